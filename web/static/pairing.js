// Pairing: a watching device asks and shows its code; the kiosk shows requests with Approve / Refuse (or puts
// them off with Later) and, on the Devices page, the paired devices with Revoke; a revoked tablet offers to pair again.
import { api, confirm, h, keyboard, toast, whenUntouched } from "./kit.js";

const NAME_MAX = 40; // a device's name (web/pairing.py)
const devicesPage = document.querySelector("[data-devices-page]");
const roleEl = document.querySelector("[data-pairing-role]");
const role = roleEl ? roleEl.dataset.pairingRole : "spectator";
/** How often the page looks for requests, an approval and the paired devices (the server's PAIRING_POLL_S). */
const POLL_MS = Number(document.body.dataset.pairPollMs) || 1500;
document.body.dataset.trust = role;

/** GET JSON without a toast: polls stay quiet when the companion is briefly away. */
async function quietGet(path) {
  try {
    const response = await fetch(path, { headers: { Accept: "application/json" } });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/** A time as Home says it: "18:22" (a 24-hour clock, whatever the browser's language), a day before today "on 5
 *  December 18:22". */
const clock = (date) => new Date(date * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit",
                                                                        hourCycle: "h23" });

function when(date) {
  if (!date) return "never";
  const day = new Date(date * 1000);
  if (day.toDateString() === new Date().toDateString()) return clock(date);
  return `on ${day.toLocaleDateString("en-GB", { day: "numeric", month: "long" })} ${clock(date)}`;
}

// ---- a device that watches only ----
function setupSpectator() {
  if (devicesPage) document.querySelectorAll(".pairing-strip").forEach((el) => { el.hidden = true; });
  const buttons = document.querySelectorAll("[data-pair-button]");
  const codes = document.querySelectorAll("[data-pair-code]");
  const notes = document.querySelectorAll("[data-pair-note]");
  // "Watching only" while the device only watches; while its request waits, that it waits for the kiosk's approval
  const statuses = document.querySelectorAll("[data-pair-status]");
  statuses.forEach((el) => { el.dataset.watching = el.textContent; });
  let polling = null;

  const show = (request) => {
    const waiting = request && request.status === "pending";
    statuses.forEach((el) => { el.textContent = waiting ? el.dataset.waiting : el.dataset.watching; });
    codes.forEach((el) => {
      el.hidden = !waiting;
      el.textContent = waiting ? `Code ${request.code}` : "";
    });
    buttons.forEach((b) => { b.textContent = waiting ? "Ask again" : "Pair this tablet"; });
    notes.forEach((el) => {
      el.textContent = waiting ? "Now tap Approve on the table's screen if it shows the same code."
        : request && request.status === "refused" ? "The table's screen refused this device." : "";
    });
  };

  let busy = false; // one poll at a time: a slow answer must not let two polls collect the pairing
  const poll = async () => {
    if (busy) return;
    busy = true;
    try {
      const status = await quietGet("/api/pairing");
      if (!status) return;
      const request = status.request;
      if (status.role !== "spectator") { clearInterval(polling); goOn(); return; }
      show(request);
      if (request && request.status === "approved") {
        clearInterval(polling);
        const collected = await api("/api/pairing/claim", {});
        if (collected.ok) {
          toast(`Paired as ${collected.data.device.name}.`);
          tellAfterReload(`Paired as ${collected.data.device.name}: this device may now change the games.`);
          goOn();
        }
      } else if (!request || request.status === "refused") {
        clearInterval(polling);
        if (request) toast("The table's screen refused this device.", "error");
      }
    } finally {
      busy = false;
    }
  };

  buttons.forEach((button) => button.addEventListener("click", async () => {
    const result = await api("/api/pairing/requests", {});
    if (!result.ok) return;
    show(result.data.request);
    clearInterval(polling);
    polling = setInterval(poll, POLL_MS);
  }));

  quietGet("/api/pairing").then((status) => {  // a request made before a reload still counts
    if (status && status.request) {
      show(status.request);
      polling = setInterval(poll, POLL_MS);
    }
  });
}

// What the device is told once the page it goes on to has loaded: the reload would take a toast down with it.
const TOLD_KEY = "pairing-told";

function tellAfterReload(message) {
  try { sessionStorage.setItem(TOLD_KEY, message); } catch { /* the toast before the reload said it */ }
}

/** The words kept through the reload, said once. */
function toldBeforeReload() {
  try {
    const message = sessionStorage.getItem(TOLD_KEY);
    sessionStorage.removeItem(TOLD_KEY);
    if (message) toast(message);
  } catch { /* nothing kept */ }
}

/** Once paired: the page the device opened (a table that shows its games only to paired devices sent it here from
 *  there, ?next=), else this page again, as a paired device sees it. */
function goOn() {
  const next = new URLSearchParams(location.search).get("next");
  if (next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\")) location.replace(next);
  else location.reload();
}

// ---- the kiosk: requests and devices ----
// The requests put off with Later: kept while this screen's browser runs, across its pages.
const LATER_KEY = "pairing-later";

function putOffBefore() {
  try {
    return new Set(JSON.parse(sessionStorage.getItem(LATER_KEY)) || []);
  } catch {
    return new Set();
  }
}

function setupKiosk() {
  const dialog = document.getElementById("pair-requests");
  const lists = document.querySelectorAll("[data-pair-pending]");
  const none = document.querySelector("[data-pair-none]");
  const reminder = document.querySelector("[data-pair-waiting]");
  let requests = [];
  let putOff = putOffBefore();
  let seen = new Set(); // the requests drawn so far: one new on the Devices page is scrolled into view
  let shown = "";

  const decide = async (request, decision) => {
    const result = await api(`/api/pairing/requests/${encodeURIComponent(request.id)}/${decision}`, {});
    if (result.ok) toast(decision === "approve" ? `${request.name} may now change the games.` : `${request.name} refused.`);
    await refresh();
  };

  // the code first and large: two requests from the same device differ by it alone
  const row = (request) => h("li", { class: "pair-request", dataset: { request: request.id } },
    h("span", { class: "pair-code-box" }, h("small", {}, "Code"),
      h("strong", { class: "pair-code big" }, request.code)),
    h("span", { class: "pair-who" }, h("strong", {}, request.name),
      h("small", {}, `${request.address} · asked at ${clock(request.created)}`)),
    h("span", { class: "row" },
      h("button", { class: "btn", onclick: () => decide(request, "refuse") }, "Refuse"),
      h("button", { class: "btn primary", onclick: () => decide(request, "approve") }, "Approve")));

  // the dialog asks over every page but the Devices page, for the requests not put off
  const asking = () => (devicesPage ? [] : requests.filter((r) => !putOff.has(r.id)));

  const draw = () => {
    const modal = asking();
    const waiting = devicesPage || modal.length ? [] : requests; // put off: a line says they still wait
    if (reminder) {
      reminder.hidden = waiting.length === 0;
      reminder.querySelector("[data-pair-waiting-text]").textContent = waiting.length === 1
        ? `A device waits to pair: code ${waiting[0].code}.` : `${waiting.length} devices wait to pair.`;
    }
    const key = JSON.stringify([requests.map((r) => r.id), modal.map((r) => r.id)]);
    if (key === shown) return;  // leave the buttons alone while nothing changed
    shown = key;
    const arrived = requests.some((r) => !seen.has(r.id));
    seen = new Set(requests.map((r) => r.id));
    whenUntouched(() => {
      lists.forEach((list) => list.replaceChildren(...(dialog?.contains(list) ? modal : requests).map(row)));
      if (none) none.hidden = requests.length > 0;
      if (dialog) dialog.hidden = modal.length === 0;
      if (devicesPage && arrived) {
        devicesPage.querySelector(".pair-request:last-child")?.scrollIntoView({ block: "nearest" });
      }
    });
  };

  // Later (or Escape, or a tap beside the dialog) closes it without refusing: those requests still wait on the
  // Devices page, and a new one opens it again
  const later = () => {
    putOff = new Set(requests.map((r) => r.id));
    try { sessionStorage.setItem(LATER_KEY, JSON.stringify([...putOff])); } catch { /* kept on this page only */ }
    draw();
  };
  reminder?.querySelector("[data-pair-show]").addEventListener("click", () => { // the dialog again, for them all
    putOff = new Set();
    try { sessionStorage.removeItem(LATER_KEY); } catch { /* kept on this page only */ }
    draw();
  });
  if (dialog) {
    dialog.querySelector("[data-pair-later]").addEventListener("click", later);
    dialog.addEventListener("click", (event) => { if (event.target === dialog) later(); });
    // Escape closes the dialog on top: a keypad opened over this one closes first (seen before its own handler)
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !dialog.hidden && !document.querySelector("#overlays .overlay")) later();
    }, true);
  }

  const refresh = async () => {
    const data = await quietGet("/api/pairing/requests");
    if (!data) return;
    requests = data.requests;
    draw();
  };

  const poll = () => {
    refresh();
    if (devicesPage) loadDevices();  // an approved tablet shows up once it has collected its pairing
  };
  poll();
  setInterval(() => { if (!document.hidden) poll(); }, POLL_MS);
}

let devicesShown = null;

async function loadDevices() {
  const list = document.getElementById("device-list");
  if (!list) return;
  const data = await quietGet("/api/pairing/devices");
  if (!data) return;
  const key = JSON.stringify(data.devices);
  if (key === devicesShown) return;
  devicesShown = key;
  whenUntouched(() => {
    list.replaceChildren(...data.devices.map((device) => h("li", { class: "pair-device", dataset: { device: device.id } },
      h("span", { class: "pair-who" }, h("strong", {}, device.name),
        h("small", {}, `paired ${when(device.paired)} · last seen ${when(device.last_seen)} · ${device.address}`),
        h("small", { class: "muted pair-agent", title: device.user_agent }, device.user_agent)),
      h("span", { class: "row" }, h("button", { class: "btn", onclick: () => rename(device) }, "Name…"),
        h("button", { class: "btn", onclick: () => revoke(device) }, "Revoke")))));
    document.getElementById("no-devices").hidden = data.devices.length > 0;
  });
}

/** A name the table knows a device by ("Ben's phone"): devices of one make read alike by their browser's name. */
async function rename(device) {
  const name = await keyboard(`A name for ${device.name}`, device.name, { maxLength: NAME_MAX });
  if (!name || name === device.name) return; // the keyboard gives the name trimmed
  const result = await api(`/api/pairing/devices/${device.id}`, { name }, "PATCH");
  if (result.ok) toast(`Named ${result.data.device.name}.`);
  await loadDevices();
}

async function revoke(device) {
  const sure = await confirm(`Revoke ${device.name}?`, "Revoke", "Keep it",
    `Paired ${when(device.paired)}, last seen ${when(device.last_seen)} at ${device.address}. It can then only watch, `
    + "until it is paired again.");
  if (!sure) return;
  const result = await api(`/api/pairing/devices/${device.id}`, undefined, "DELETE");
  if (result.ok) toast(`${device.name} can no longer change the games.`);
  await loadDevices();
}

// ---- a paired tablet ----
const STILL_PAIRED_MS = 10000;

function setupPaired() {
  toldBeforeReload();
  const unpair = document.getElementById("unpair");
  if (unpair) {
    unpair.addEventListener("click", async () => {
      const sure = await confirm("Unpair this tablet?", "Unpair", "Keep it paired",
        "It can then only watch, until it is paired again and approved on the table's screen.");
      if (!sure) return;
      const result = await api("/api/pairing/device", undefined, "DELETE");
      if (result.ok) location.reload();
    });
  }
  watchRevocation();
}

/** A tablet revoked on the kiosk learns it at once on a game's page (the live stream's last message), else every few
 *  seconds, and at once when the companion refuses a write of its own saying to tap "Pair this tablet" (kit.js
 *  `api`, `follow`): it then offers pairing as a watching device does; on a table that shows its games only to
 *  paired devices, the page sends it to pair again. */
function watchRevocation() {
  let busy = false;
  let again = false; // word of a revocation came while a check was under way: it may have asked too early
  const check = async () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const status = await quietGet("/api/pairing");
      if (!status || status.role !== "spectator") return;
      clearInterval(timer);
      window.removeEventListener("pairing-required", check);
      again = false;
      // the Devices page's panel says "paired": the page as a watching device has it; a game no longer shown to it
      // sends it to pair (its Devices page, back here once approved)
      if (devicesPage || !status.spectators) whenUntouched(() => location.reload());
      else whenUntouched(becomeSpectator);
    } finally {
      busy = false;
      if (again) {
        again = false;
        check();
      }
    }
  };
  const timer = setInterval(() => { if (!document.hidden) check(); }, STILL_PAIRED_MS);
  window.addEventListener("pairing-required", check);
}

function becomeSpectator() {
  document.body.dataset.trust = "spectator";
  document.querySelectorAll(".pairing-strip").forEach((el) => { el.hidden = false; });
  setupSpectator();
}

// A module runs once per page even when both the page and the shared include load it.
if (role === "kiosk") setupKiosk();
else if (role === "paired") setupPaired();
else setupSpectator();
