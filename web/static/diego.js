// Diego Drachenzahn by tap: marbles, guesses, the reveal, the score track; live over SSE.
import { api, follow, h, toast } from "./kiosk.js";

let view = JSON.parse(document.getElementById("session-data").textContent);
const sessionId = view.id;
const $ = (id) => document.getElementById(id);

function gateName(gate) {
  if (gate === null || gate === undefined) return "missed";
  return view.state.gate_names[gate - 1] || `Gate ${gate}`;
}

/** Send one event with the seq we saw; a stale write shows the fresh state instead. */
async function send(event) {
  // Undo, redo and a confirmation change what others may have just seen: they carry the seq this page saw.
  // Other taps are judged by the rules alone, so a sensor reading arriving meanwhile never refuses a tap.
  const guarded = event.type === "confirm" ? { expected_seq: view.seq } : {};
  const result = await api(`/api/sessions/${sessionId}/events`, { ...event, ...guarded });
  settle(result);
}

async function step(kind) {
  const result = await api(`/api/sessions/${sessionId}/${kind}`, { expected_seq: view.seq });
  settle(result);
}

function settle(result) {
  if (result.ok) show(result.data);
  else if (result.status === 409 && result.data?.session) show(result.data.session);
}

function show(next) {
  if (next.seq < view.seq) return; // an older message arriving late
  view = next;
  render();
}

function gateButtons(onTap, { enabled = true, extra = [] } = {}) {
  const buttons = view.state.gate_names.map((name, i) =>
    h("button", { class: "btn gate", dataset: { gate: i + 1 }, disabled: !enabled, onclick: () => onTap(i + 1) },
      h("b", {}, i + 1), h("span", {}, name)));
  return [...buttons, ...extra];
}

function render() {
  const s = view.state;
  const cur = s.current;
  $("round-label").textContent = s.finished ? "· finished" : `· round ${s.round} of ${s.total_rounds}`;
  $("undo").disabled = !view.can_undo;
  $("redo").disabled = !view.can_redo;

  // score track, active player first marked
  const best = Math.max(1, ...Object.values(s.scores));
  $("score-track").replaceChildren(...view.players.map((p) =>
    h("li", { class: p === s.active ? "active" : "", dataset: { player: p } },
      h("span", { class: "name" }, p),
      h("span", { class: "score", dataset: { score: s.scores[p] } }, s.scores[p]),
      h("span", { class: "track" }, h("span", { style: `width:${(100 * s.scores[p]) / best}%` })))));

  const last = s.last_round;
  $("last-round").textContent = last
    ? `Round ${last.number}: the token showed ${gateName(last.token)}. ` +
      Object.entries(last.points).filter(([, pts]) => pts > 0).map(([p, pts]) => `${p} +${pts}`).join(", ")
    : "";

  $("final").hidden = !s.finished;
  if (s.finished) {
    $("winners").textContent = (s.winners.length > 1 ? "Winners: " : "Winner: ") + s.winners.join(" & ");
    $("final-scores").replaceChildren(...[...view.players].sort((a, b) => s.scores[b] - s.scores[a])
      .map((p) => h("li", {}, `${p}: ${s.scores[p]}`)));
    return;
  }

  const phaseText = { marbles: "rolls the marbles", guesses: "waits for the guesses",
                      reveal: "reveals the token", flagged: "waits: check the marbles" };
  $("turn").replaceChildren(h("strong", {}, s.active), ` ${phaseText[s.phase] || ""}`);

  // marbles
  const slots = [];
  const count = Math.max(3, cur.marbles.length);
  for (let i = 0; i < count; i++) {
    const gate = cur.marbles[i];
    const filled = i < cur.marbles.length;
    slots.push(h("div", { class: `slot${filled ? " filled" : ""}${gate === null ? " miss" : ""}`,
                          dataset: { gate: filled ? String(gate) : "" } },
      filled ? gateName(gate) : "–", filled ? h("small", {}, cur.sources[i]) : null));
  }
  $("slots").replaceChildren(...slots);
  const full = cur.marbles.length >= 3;
  $("marble-hint").textContent = full ? "all three in" : "tap the gate each marble went into";
  $("marble-pad").replaceChildren(...gateButtons((g) => send({ type: "marble", gate: g }), {
    enabled: !full,
    extra: [h("button", { class: "btn gate miss", disabled: full, onclick: () => send({ type: "marble", gate: null }) }, "Missed")],
  }));

  // flag (rulings D3, D4): show both readings and let a person decide
  const flag = $("flag");
  flag.hidden = !cur.flag;
  if (cur.flag) {
    const camera = cur.camera ? cur.camera.counts.flatMap((n, i) => Array(n).fill(i + 1)) : null;
    flag.replaceChildren(
      h("p", {}, h("strong", {}, "Check the marbles: "), cur.flag, "."),
      h("p", {}, `Gates: ${cur.marbles.map(gateName).join(", ") || "none"}` +
        (camera ? ` · Camera: ${camera.map(gateName).join(", ") || "none"}` : "")),
      h("div", { class: "row" },
        camera && camera.length <= 3
          ? h("button", { class: "btn primary", onclick: () => send({ type: "confirm", marbles: camera }) }, "Camera is right") : null,
        cur.marbles.length <= 3
          ? h("button", { class: "btn", onclick: () => send({ type: "confirm", marbles: cur.marbles }) }, "Gates are right") : null,
        h("button", { class: "btn", onclick: () => send({ type: "confirm", marbles: [] }) }, "Clear, enter by tap")));
  }
  const photo = $("photo");
  photo.hidden = !cur.camera;
  if (cur.camera) photo.src = `/camera/confirmation/${sessionId}.jpg?seq=${view.seq}`;

  // guesses: one row per non-active player; the value stays hidden
  $("guesses").replaceChildren(...Object.entries(cur.guessed).map(([player, done]) =>
    h("div", { class: `guess-row${done ? " done" : ""}`, dataset: { player } },
      h("span", { class: "name" }, player),
      done ? h("span", { class: "guessed" }, "✓ guessed")
           : h("div", { class: "gate-pad small" }, gateButtons((g) => send({ type: "guess", player, gate: g }))))));

  const canReveal = s.expects.includes("reveal");
  $("reveal-pad").replaceChildren(...gateButtons((g) => send({ type: "reveal", gate: g }), { enabled: canReveal }));
}

function renderSensors(status) {
  const gates = status.gates || {};
  const camera = status.camera || {};
  const cameraLine = h("li", { class: camera.ok ? "" : "warn", id: "camera-state" },
    camera.ok ? "Camera: watching" : `Camera: ${camera.camera?.error || camera.error || "starting"}`);
  const list = $("gate-status");
  if (!gates.gates || gates.gates.length === 0) {
    list.replaceChildren(h("li", { class: "warn" }, gates.error || "no gates"), cameraLine);
    return;
  }
  list.replaceChildren(...gates.gates.map((g) =>
    h("li", { class: g.stuck ? "warn" : g.flaky ? "flaky" : g.blocked ? "blocked" : "", dataset: { gate: g.gate } },
      `${g.gate}: `, g.stuck ? "beam blocked, check it" : g.flaky ? "flickering cable"
        : `${g.marbles} marble${g.marbles === 1 ? "" : "s"}`)),
    cameraLine);
}

function renderMarble(marble) {
  $("sensor-note").textContent = marble.scored
    ? `Gate ${marble.gate}: marble (${marble.width_ms} ms)`
    : `Gate ${marble.gate}: not scored, ${marble.note}`;
}

$("undo").addEventListener("click", () => step("undo"));
$("redo").addEventListener("click", () => step("redo"));
$("final-undo").addEventListener("click", () => step("undo"));

const simPad = $("sim-pad");
if (simPad) {
  simPad.replaceChildren(...[1, 2, 3, 4, 5, 6].map((gate) =>
    h("button", { class: "btn gate", dataset: { gate }, onclick: async () => {
      const chatter = $("sim-chatter").checked;
      const width = 8 + Math.random() * 24; // a 16 mm marble at 0.5-2 m/s
      const result = await api("/api/simulation/marble", { gate, width_ms: Math.round(width * 10) / 10, chatter });
      if (result.ok) toast(`Rolled a marble through gate ${gate}`);
    } }, `→ ${gate}`)),
    h("button", { class: "btn gate miss", onclick: async () => {
      const result = await api("/api/simulation/marble", { gate: null });
      if (result.ok) toast("Rolled a marble past every gate");
    } }, "miss"));
}

render();
follow(sessionId, { onSession: show, onSensors: renderSensors, onMarble: renderMarble });
