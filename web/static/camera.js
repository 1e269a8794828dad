// Camera page: live preview, calibration by tapping the corners of each gate, reference and markers, the marble's
// size by a tap on one resting marble, photo keeping (off until the table switches it on), and a plain warning
// while counts are unsure (no empty reference yet).
// The preview is fetched about once a second, every 0.4 s while someone calibrates (for a minute after each
// calibration step), not at all while the picture is frozen for tapping or the page is hidden. The interval
// in force is shown as data-preview-interval on #preview-box (milliseconds; 0 = paused).
import { api, backCancels, clearToast, confirm, explain, h, plural, sentence, toast, whenUntouched, wire } from "./kit.js";

const IDLE_MS = 1000;
const CALIBRATING_MS = 400;
const CALIBRATION_WINDOW_MS = 60000;
const STATUS_MS = 2000;

const $ = (id) => document.getElementById(id);
const preview = $("preview");
const canvas = $("calib");
const box = $("preview-box");
let status = JSON.parse($("camera-data").textContent);
const withheld = "withheld" in box.dataset; // an unpaired device: no picture for it, and it says why (camera.html)
let calibrating = false;   // tapping corners (or one marble) on a frozen snapshot
let measuring = false;     // the frozen snapshot is for a tap on one marble, not for corners
let calibratedAt = -Infinity; // when the last calibration step was taken (performance.now())
let pictureTimer = null;
let loading = false;       // a preview request is under way: the next is scheduled when it ends
let statusTimer = null;
let snapshot = null;
let release = null;  // while tapping on the frozen picture: the phone's Back cancels that, not the page (kit.js)
let polygons = {};   // gate -> [[x, y], ...] in image pixels
let gate = 1;
let fresh = true;    // the next tap on the picture starts the selected gate anew

/** How the marble's size was measured, as the page says it. */
function marbleSource(marble) {
  return { tap: "measured by a tap", markers: "from the markers' printed size",
    simulation: "as the simulated castle draws them" }[marble.source] || marble.source;
}

/** Why the camera cannot be set up from this page, with the camera off, and how to switch it on (the companion's
 *  words, web/sensors.py); null when on. */
function cameraOff(s) {
  if (!s || s.ok !== false || s.camera) return null;
  return sentence(s.error || "the camera is off");
}

function facts(s) {
  if (!s || s.ok === false && !s.camera) return [h("li", { class: "warn" }, s?.error || "the camera is off")];
  const cam = s.camera;
  const ref = s.reference;
  const items = [
    h("li", { class: cam.ok ? "" : "warn" }, cam.ok ? `Camera ${cam.source}: working`
      : `Camera ${cam.source}: ${cam.error || cam.state}${cam.retry_in != null ? `, retrying in ${Math.ceil(cam.retry_in)} s` : ""}`),
    h("li", { class: s.calibrated ? "" : "warn" }, s.calibrated ? `Gates calibrated (${s.calibration})` : "Gates not calibrated: tap the corners"),
    h("li", { class: ref.captured ? "" : "warn" }, ref.captured ? `Empty reference taken ${ref.taken}` : "No empty reference yet"),
  ];
  const marble = s.marble;
  if (marble) items.push(h("li", { class: marble.radius_px ? "" : "warn" }, marble.radius_px
    ? `Marble radius ${marble.radius_px.toFixed(1)} px (${marbleSource(marble)})`
    : s.calibrated ? "Marble size not measured: guessed from the gates (often far off)"
      : "Marble size not measured yet: tap one resting marble, or anchor to the markers once the gates are tapped"));
  if (s.markers) items.push(h("li", { class: s.markers.ok ? "" : "warn" }, s.markers.message));
  if (s.markers?.blur_px != null && !s.focus) items.push(h("li", {}, `In focus: the markers' edges blurred by ${s.markers.blur_px.toFixed(1)} px`));
  for (const warning of [s.edge, s.focus, s.moved]) if (warning) items.push(h("li", { class: "warn" }, warning));
  if (s.last_detection) items.push(h("li", { id: "seen", class: "seen" }, ...seenLine(s.last_detection, s.camera_only)));
  if (s.camera_only) items.push(h("li", {}, "No beams: the camera fills in the rounds"));
  if (s.error) items.push(h("li", { class: "warn" }, s.error));
  return items;
}

/** The counts the camera reads now, each by its gate as the picture labels it ("3:1"), the six together on one line,
 *  and those outside every gate, which a narrow screen puts on the next; the gates it is unsure of (a tap decides
 *  those: ruling D4) on a line of their own, their counts marked. */
function seenLine(detection, cameraOnly) {
  const unsure = detection.unsure.flatMap((doubt, i) => (doubt ? [i + 1] : []));
  const doubt = !unsure.length ? "" : `${unsure.length === 6 ? "Unsure of every gate"
    : `Unsure of gate${unsure.length > 1 ? "s" : ""} ${unsure.join(", ")}`}: ${cameraOnly ? "a tap decides"
    : "beams decide"}`;
  const count = (text, gate = null) => h("span", { class: `seen-count${unsure.includes(gate) ? " unsure" : ""}`,
    ...(gate ? { dataset: { gate } } : {}) }, text);
  // spaces between the parts: where a narrow screen may wrap the line
  const spaced = (parts) => parts.flatMap((part, i) => (i ? [" ", part] : [part]));
  return spaced([h("span", { class: "seen-head" }, "Seen:"),
    h("span", { class: "seen-gates" }, ...spaced(detection.counts.map((n, i) => count(`${i + 1}:${n}`, i + 1)))),
    count(`outside ${detection.outside}`),
    ...(doubt ? [h("span", { class: "seen-unsure" }, doubt)] : [])]);
}

function renderUnsure(s) {
  $("unsure").hidden = !s?.unsure;
  $("unsure-text").textContent = s?.unsure || "";
}

function renderMarble(s) {
  const marble = s?.marble;
  $("marble-size").textContent = !marble ? "" : marble.radius_px
    ? `Radius ${marble.radius_px.toFixed(1)} px, ${marbleSource(marble)}.`
    : "Not measured: anchor to the markers or tap one resting marble.";
  if (marble?.error) $("marble-size").textContent += ` ${marble.error}`;
}

/** How well the camera did on this castle and light: the kept rounds it read as the table confirmed them. */
function cameraRecord(camera) {
  if (!camera?.rounds) return "";
  const share = Math.round((100 * camera.right) / camera.rounds);
  const all = camera.flags === camera.rounds; // rounds kept by an older companion kept no flags
  const of = all ? (camera.rounds === 1 ? "that round" : `${camera.wrong_sure} of them`)
    : `${camera.wrong_sure} of the ${plural(camera.flags, "round")} kept with its flags`;
  // A kept round is wrong only where a person corrected it: what these say is how sure the camera itself was.
  // every round read right: nothing was read wrong, so nothing to say of how it flagged wrong counts
  const unflagged = !camera.flags || camera.right === camera.rounds ? ""
    : camera.wrong_sure ? ` The camera was sure of a wrong count in ${of}; the table `
      + "asked for a tap there because the beams disagreed, or a person corrected it."
    : ` ${all ? "It" : `In the ${plural(camera.flags, "round")} kept with its flags, it`} was never sure of a wrong `
      + "count: it flagged every gate it read wrong for a tap.";
  return ` The camera read all six gates right in ${camera.right} of ${camera.rounds} kept ` +
    `round${camera.rounds === 1 ? "" : "s"} (${share}%).${unflagged}`;
}

/** The disk the kept photos take, as the table reads it: "23 rounds kept, 20 MB". */
function keptSize(count, bytes) {
  if (!count) return "No rounds kept";
  const mb = bytes / 1e6;
  const size = mb >= 1000 ? `${(mb / 1000).toFixed(1)} GB` : mb >= 10 ? `${Math.round(mb)} MB`
    : mb >= 1 ? `${mb.toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1e3))} kB`;
  return `${count} round${count === 1 ? "" : "s"} kept, ${size}`;
}

function renderKeeping(s) {
  const keeping = s?.keeping;
  const button = $("keeping");
  button.hidden = !keeping;
  if (!keeping) {
    $("keeping-state").textContent = $("keeping-size").textContent = "";
    $("photos-download").hidden = $("photos-delete").hidden = true;
    return;
  }
  $("keeping-off").hidden = keeping.enabled; // "Off unless the table switches it on" only while off
  $("keeping-on").hidden = !keeping.enabled;
  button.setAttribute("aria-pressed", String(keeping.enabled));
  button.textContent = keeping.enabled ? "Keeping confirmed rounds' photos: on" : "Keep confirmed rounds' photos: off";
  $("keeping-size").textContent = keptSize(keeping.count, keeping.bytes || 0);
  $("keeping-state").textContent = `${keeping.count} of at most ${keeping.limit} kept in ${keeping.folder}` +
    (keeping.enabled ? "." : " (none are added while off).") + cameraRecord(keeping.camera) +
    (keeping.error ? ` Problem: ${keeping.error}` : "");
  $("keeping-state").classList.toggle("warn", Boolean(keeping.error));
  $("photos-download").hidden = !keeping.count;
  $("photos-download").textContent = `Download the ${keeping.count} kept round${keeping.count === 1 ? "" : "s"} (zip)`;
  $("photos-delete").hidden = !keeping.count;
}

// The side panel's parts in the page's order; the boxes holding the buttons the Next line names go first, above the
// state: on the Pi's screen and a tablet's they are then in sight without a scroll.
const aside = $("calibrate-box").parentElement;
const asideParts = [...aside.children];

function bringNamedFirst(ids) {
  const named = ids.map((id) => $(id).closest(".tapping-box"));
  const order = [...asideParts.filter((part) => named.includes(part)),
    ...asideParts.filter((part) => !named.includes(part))];
  if (order.every((part, i) => aside.children[i] === part)) return;
  whenUntouched(() => aside.replaceChildren(...order));
}

/** Where the side panel scrolls on its own (the Pi's screen held sideways) and a note above the page leaves the last
 *  button the Next line names below its foot: the panel is scrolled up just enough to show it, unless the person has
 *  scrolled the panel already. */
function showNamed(ids) {
  if (!ids.length || aside.scrollTop > 0) return;
  const below = $(ids.at(-1)).getBoundingClientRect().bottom - aside.getBoundingClientRect().bottom
    + parseFloat(getComputedStyle(aside).paddingBottom);
  if (below > 0) aside.scrollTop = Math.ceil(below);
}

/** What the person setting the camera up does next, in the order the set-up goes (README, Camera), or that the
 *  camera is ready: the words, and the ids of the buttons they name (what is to be pressed now). */
function nextStep(s) {
  if (withheld) return ["This device is not paired: it can see the camera's state, not its picture.", []];
  if (cameraOff(s)) return [cameraOff(s), []];
  if (!s.camera.ok) return ["The camera gives no picture: see State for why.", []];
  if (!s.calibrated) {
    return ["Next: press Tap the gate corners, then tap the four corners of each gate on the picture.", ["calibrate"]];
  }
  if (!s.reference.captured) return ["Next: with every gate empty, press Gates empty: take reference.", ["reference"]];
  if (s.reference_unchecked) {
    return ["Next: with every gate empty, press Gates empty: take reference. The camera took one by itself before "
      + "the gates were tapped: a marble lying in a gate then would stay unseen.", ["reference"]];
  }
  if (!s.marble?.radius_px) {
    return ["Next: the marble's size. Anchor to the 4 markers, or put one marble in a gate and press Tap one resting "
      + "marble.", ["anchor", "measure"]];
  }
  if (s.reference_in_round) {
    return ["Ready, with a doubt: the empty reference was taken while the round held marbles. Any still in a gate "
      + "the camera cannot see: take it again once the gates are empty.", []];
  }
  if (s.unsure) return ["Ready, with a doubt: see the note above.", []];
  return ["Ready: a marble rolled into a gate shows in Seen, under State.", []];
}

/** With the camera off, the buttons that need its picture look disabled and say why when tapped (an unpaired
 *  device's say it is not paired: freeze). */
function renderButtons(s) {
  const off = withheld ? null : cameraOff(s);
  for (const id of ["calibrate", "anchor", "reference", "measure"]) explain($(id), off);
}

function renderStatus() {
  const [next, named] = nextStep(status);
  $("next-step").textContent = next;
  bringNamedFirst(named);
  requestAnimationFrame(() => showNamed(named));
  renderButtons(status);
  $("facts").replaceChildren(...facts(status));
  renderUnsure(status);
  renderMarble(status);
  renderKeeping(status);
}

async function refreshStatus() {
  const result = await fetch("/api/camera").then((r) => r.json()).catch(() => null);
  if (result) status = result;
  renderStatus();
}

function previewInterval() {
  if (withheld || document.visibilityState === "hidden" || calibrating) return 0;
  return performance.now() - calibratedAt < CALIBRATION_WINDOW_MS ? CALIBRATING_MS : IDLE_MS;
}

function schedulePicture() {
  clearTimeout(pictureTimer);
  pictureTimer = null;
  const interval = previewInterval();
  box.dataset.previewInterval = String(interval);
  if (interval && !loading) pictureTimer = setTimeout(refreshPicture, interval);
}

function calibrationStep() {
  calibratedAt = performance.now();
  schedulePicture();
}

function refreshPicture() {
  if (previewInterval() === 0 || loading) return;
  loading = true;
  const next = new Image();
  const done = () => { loading = false; schedulePicture(); };
  next.onload = () => {
    if (!calibrating) { preview.src = next.src; preview.hidden = false; $("no-picture").hidden = true; }
    done(); // a picture that arrived after calibration began is dropped
  };
  next.onerror = () => {
    if (!calibrating) { preview.hidden = true; $("no-picture").hidden = false; }
    done();
  };
  next.src = `/camera/preview.jpg?t=${Date.now()}`;
}

function scheduleStatus() {
  clearTimeout(statusTimer);
  statusTimer = document.visibilityState === "hidden" ? null : setTimeout(async () => {
    await refreshStatus();
    scheduleStatus();
  }, STATUS_MS);
}

function draw() {
  const ctx = canvas.getContext("2d");
  ctx.drawImage(snapshot, 0, 0);
  ctx.lineWidth = Math.max(2, canvas.width / 300);
  ctx.font = `${Math.round(canvas.width / 30)}px sans-serif`;
  for (const [g, pts] of Object.entries(polygons)) {
    ctx.strokeStyle = ctx.fillStyle = Number(g) === gate ? "#f2b233" : "#5ccf7f";
    ctx.beginPath();
    pts.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    if (pts.length > 2) ctx.closePath();
    ctx.stroke();
    for (const [x, y] of pts) ctx.fillRect(x - 4, y - 4, 8, 8);
    if (pts.length) ctx.fillText(g, pts[0][0] + 6, pts[0][1] - 6);
  }
  const done = [1, 2, 3, 4, 5, 6].filter((g) => (polygons[g] || []).length >= 3);
  $("calib-save").disabled = done.length !== 6;
  // which gate, how far its outline is, where to go next: a gate outlined before counts as outlined
  $("calib-hint").textContent = `Gate ${gate}: tap its corners in turn` +
    (fresh ? " (a tap starts it anew)" : ` (${polygons[gate].length} tapped)`) +
    (gate < 6 ? `, then Gate ${gate + 1} above` : "") +
    `. ${done.length} of 6 gates outlined${done.length === 6 ? ": Save regions." : "."}`;
  for (const btn of $("calib-gates").children) {
    btn.setAttribute("aria-pressed", String(Number(btn.dataset.gate) === gate));
  }
}

function freeze(forMarble) {
  if (withheld) { toast($("no-picture").textContent, "error"); return; }
  const img = new Image();
  img.onload = () => {
    snapshot = img;
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    calibrating = true;
    measuring = forMarble;
    polygons = {};
    if (!forMarble) for (const g of status.regions?.gates || []) polygons[g.gate] = g.polygon.map((p) => [...p]);
    gate = 1;
    fresh = true;
    canvas.hidden = false;
    preview.hidden = true;
    $("no-picture").hidden = true; // the frozen picture is the one to tap on: no "Waiting…" under it
    $("live-heading").hidden = true; // it is no live picture now; without the heading it fits the screen whole
    $(forMarble ? "measure-tools" : "calib-tools").hidden = false;
    $("camera-page").dataset.tapping = forMarble ? "marble" : "corners"; // the picture fits the screen, tools beside it
    release?.();
    release = backCancels(stopCalibration);
    clearToast(); // a message from before would cover the picture's foot, where a person is asked to tap
    window.scrollTo(0, 0);
    if (forMarble) canvas.getContext("2d").drawImage(snapshot, 0, 0); else draw();
    calibrationStep(); // the picture is frozen for tapping: no preview until it ends
    // a note above the page (no reference yet, a doubt) pushes the picture's foot below the screen: brought up whole
    requestAnimationFrame(() => {
      const below = canvas.getBoundingClientRect().bottom - innerHeight;
      if (below > 0) window.scrollBy(0, Math.ceil(below) + 1);
    });
  };
  img.onerror = () => toast(cameraOff(status) || (status?.camera?.ok === false
    ? `The camera gives no picture now (${status.camera.error || status.camera.state}): nothing to tap on.`
    : "The camera has no picture to tap on yet: it is starting."), "error");
  img.src = `/camera/snapshot.jpg?t=${Date.now()}`;
}

const startCalibration = () => freeze(false);

function stopCalibration() {
  release?.();
  release = null;
  calibrating = measuring = false;
  canvas.hidden = true;
  $("live-heading").hidden = false;
  preview.hidden = !preview.getAttribute("src"); // the last live picture until the next one comes
  $("no-picture").hidden = !preview.hidden;
  $("calib-tools").hidden = true;
  $("measure-tools").hidden = true;
  delete $("camera-page").dataset.tapping;
  calibrationStep();
  refreshPicture();
}

async function measureAt(x, y) {
  const result = await api("/api/camera/marble", { x, y });
  if (!result.ok) return; // the toast says why: no marble there, no reference yet
  toast(`Marble radius ${result.data.marble.radius_px.toFixed(1)} px saved.`);
  stopCalibration();
  refreshStatus();
}

canvas.addEventListener("pointerdown", (e) => {
  const rect = canvas.getBoundingClientRect();
  const x = ((e.clientX - rect.left) / rect.width) * canvas.width;
  const y = ((e.clientY - rect.top) / rect.height) * canvas.height;
  if (measuring) { measureAt(Math.round(x), Math.round(y)); return; }
  if (fresh) { polygons[gate] = []; fresh = false; }
  polygons[gate].push([Math.round(x), Math.round(y)]);
  draw();
});

$("calib-gates").replaceChildren(...[1, 2, 3, 4, 5, 6].map((g) =>
  h("button", { class: "btn gate", dataset: { gate: g }, onclick: () => { gate = g; fresh = true; draw(); } },
    `Gate ${g}`)));
wire($("calibrate"), startCalibration);
wire($("measure"), () => freeze(true));
$("measure-cancel").addEventListener("click", stopCalibration);
$("keeping").addEventListener("click", async () => {
  const enabled = $("keeping").getAttribute("aria-pressed") !== "true";
  const result = await api("/api/camera/keeping", { enabled });
  if (result.ok) { status = { ...status, keeping: result.data.keeping }; renderKeeping(status); }
});
$("photos-delete").addEventListener("click", async () => {
  const count = status?.keeping?.count || 0;
  const sure = await confirm(`Delete the photos of the ${count} kept round${count === 1 ? "" : "s"}?`, "Delete them", "Keep them",
    "They leave this companion for good (a zip downloaded before is not touched). Keeping stays " +
    (status?.keeping?.enabled ? "on: switch it off too to keep no more." : "off."));
  if (!sure) return;
  const result = await api("/api/camera/photos", undefined, "DELETE");
  if (!result.ok) return;
  status = { ...status, keeping: result.data.keeping };
  renderKeeping(status);
  if (!result.data.keeping.error) toast("The kept photos are deleted.");
});
$("calib-cancel").addEventListener("click", stopCalibration);
$("calib-undo").addEventListener("click", () => { if (!fresh) (polygons[gate] || []).pop(); draw(); });
$("calib-save").addEventListener("click", async () => {
  const gates = [1, 2, 3, 4, 5, 6].map((g) => ({ gate: g, polygon: polygons[g] }));
  const result = await api("/api/camera/regions", { gates });
  if (result.ok) { toast("Gate regions saved."); stopCalibration(); refreshStatus(); }
});
/** What a person does without the printed markers: they are optional, the gates and the marble's size are tapped. */
function withoutMarkers(s) {
  return s?.calibrated
    ? "The markers are optional: the gates stay as tapped, and Tap one resting marble measures the marble's size."
    : "The markers are optional: set the gates with Tap the gate corners, and the marble's size with Tap one "
      + "resting marble.";
}

wire($("anchor"), async () => {
  calibrationStep();
  const result = await api("/api/camera/anchor", {}, "POST", { quiet: ["markers"] });
  if (result.ok) {
    toast(result.data.markers.message || "Anchored to the markers.");
    refreshStatus();
  } else if (result.data?.error?.code === "markers") {
    toast(`${sentence(result.data.error.message)} ${withoutMarkers(status)}`, "error");
  }
});
wire($("reference"), async () => {
  calibrationStep();
  let result = await api("/api/camera/reference", {}, "POST", { quiet: ["not_empty"] });
  // marbles in the gates (the round's, or seen by the camera): taken only once a person says the gates are empty
  if (!result.ok && result.data?.error?.code === "not_empty"
      && await confirm(result.data.error.message, "The gates are empty: take it", "Cancel")) {
    result = await api("/api/camera/reference", { anyway: true });
  }
  if (result.ok) { toast("Empty reference taken."); refreshStatus(); }
});

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") {
    schedulePicture(); // paused
    scheduleStatus();
    return;
  }
  refreshPicture(); // shown again: a fresh picture now, then the usual pace
  schedulePicture();
  refreshStatus();
  scheduleStatus();
});

renderStatus();
refreshPicture();
schedulePicture();
scheduleStatus();
