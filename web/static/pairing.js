// Pairing: a watching device asks and shows its code; the kiosk shows requests with Approve / Refuse
// and, on the Devices page, the paired devices with Revoke.
import { api, h, toast, whenUntouched } from "./kit.js";

const POLL_MS = 1500;
const devicesPage = document.querySelector("[data-devices-page]");
const roleEl = document.querySelector("[data-pairing-role]");
const role = roleEl ? roleEl.dataset.pairingRole : "spectator";
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

function when(date) {
  if (!date) return "never";
  return new Date(date * 1000).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
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
      if (status.role !== "spectator") { clearInterval(polling); location.reload(); return; }
      show(request);
      if (request && request.status === "approved") {
        clearInterval(polling);
        const collected = await api("/api/pairing/claim", {});
        if (collected.ok) {
          toast(`Paired as ${collected.data.device.name}.`);
          location.reload();
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

// ---- the kiosk: requests and devices ----
function setupKiosk() {
  const dialog = document.getElementById("pair-requests");
  const lists = document.querySelectorAll("[data-pair-pending]");
  const none = document.querySelector("[data-pair-none]");
  let shown = "";

  const decide = async (request, decision) => {
    const result = await api(`/api/pairing/requests/${encodeURIComponent(request.id)}/${decision}`, {});
    if (result.ok) toast(decision === "approve" ? `${request.name} may now change the games.` : `${request.name} refused.`);
    await refresh();
  };

  const row = (request) => h("li", { class: "pair-request", dataset: { request: request.id } },
    h("span", { class: "pair-who" }, h("strong", {}, request.name), h("small", {}, request.address)),
    h("span", { class: "pair-code big" }, request.code),
    h("span", { class: "row" },
      h("button", { class: "btn", onclick: () => decide(request, "refuse") }, "Refuse"),
      h("button", { class: "btn primary", onclick: () => decide(request, "approve") }, "Approve")));

  const refresh = async () => {
    const data = await quietGet("/api/pairing/requests");
    if (!data) return;
    const key = data.requests.map((r) => r.id).join(",");
    if (key === shown) return;  // leave the buttons alone while nothing changed
    shown = key;
    whenUntouched(() => {
      lists.forEach((list) => list.replaceChildren(...data.requests.map(row)));
      if (none) none.hidden = data.requests.length > 0;
      if (dialog) dialog.hidden = devicesPage !== null || data.requests.length === 0;
    });
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
        h("small", { class: "muted" }, device.user_agent)),
      h("button", { class: "btn", onclick: () => revoke(device) }, "Revoke"))));
    document.getElementById("no-devices").hidden = data.devices.length > 0;
  });
}

async function revoke(device) {
  const result = await api(`/api/pairing/devices/${device.id}`, undefined, "DELETE");
  if (result.ok) toast(`${device.name} can no longer change the games.`);
  await loadDevices();
}

// ---- a paired tablet ----
function setupPaired() {
  const unpair = document.getElementById("unpair");
  if (!unpair) return;
  unpair.addEventListener("click", async () => {
    const result = await api("/api/pairing/device", undefined, "DELETE");
    if (result.ok) location.reload();
  });
}

// A module runs once per page even when both the page and the shared include load it.
if (role === "kiosk") setupKiosk();
else if (role === "paired") setupPaired();
else setupSpectator();
