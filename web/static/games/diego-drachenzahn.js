// Diego Drachenzahn on the page kit. Quick scoring by default: the active player's marbles (gates or taps),
// the token by tap, then the symbol each other player turned over. A game started with "Hold guesses face down"
// (the session's option face_down, the same on every screen) has the guess-by-guess grid instead, and the
// token waits until every guess is in.
import {
  api, bySeat, button, closeUp, confirm, dialog, fitTurnName, h, icon, pastTheFoot, sentence, setText, startGame, toast,
  whenUntouched, who,
} from "../kit.js";

const DEFAULT_SYMBOLS = ["sun", "moon", "star", "crown", "key", "flame"];
const $ = (id) => document.getElementById(id);

let view = JSON.parse($("session-data").textContent);
/** Whether this game holds the guesses face down: chosen when it started, for every screen alike. */
const faceDown = () => Boolean(view.state?.face_down);
const unscored = [];
/** Whether beams are fitted (the server's set-up): without them the camera alone fills in the rounds, by choice. */
const beamsFitted = $("sensor-panel").dataset.beams !== "none";
/** What the sensors' status says (renderSensors): the camera alone fills in the rounds (no gates, the camera
 *  watching), it sees marbles not yet at rest, which it records once they do (ruling D3), and the gates where its
 *  empty reference shows a marble that is gone now (taken with marbles in the gates), which it cannot count. */
const sensed = { cameraAlone: !beamsFitted, rolling: false, held: [], cause: null }; // until the first status, as the set-up has it

const symbolOf = (gate) => (view.state?.gate_symbols || DEFAULT_SYMBOLS)[gate - 1];
const gateName = (gate) => (gate == null ? "missed" : view.state?.gate_names?.[gate - 1] || `Gate ${gate}`);
const gateLabel = (gate) => [icon(symbolOf(gate)), h("span", { class: "gname" }, gateName(gate))];

/** "Ben's guess", "Ben's and Cleo's guesses". */
function possessive(names, thing) {
  const owned = names.map((n) => `${n}'s`);
  const list = owned.length > 1 ? `${owned.slice(0, -1).join(", ")} and ${owned.at(-1)}` : owned[0];
  return `${list} ${thing}${names.length > 1 ? "es" : ""}`;
}

function gatePad(onTap, reason = null, extra = []) {
  return [1, 2, 3, 4, 5, 6].map((gate) =>
    button(gateLabel(gate), { cls: "gate", reason, dataset: { gate }, "aria-label": `${gate}: ${gateName(gate)}`,
                              onTap: () => onTap(gate) })).concat(extra);
}

/** Whether the round's marbles are to be entered by tap: a person cleared the camera's reading to enter them by tap
 *  ("Clear, enter by tap"), or taps alone entered those there are. */
function byTap(cur) {
  if (!cur.sources.every((s) => s === "tap")) return false;
  return cur.marbles.length ? cur.camera == null : Boolean(cur.confirmed && cur.camera);
}

/** The marbles the camera sees, in gates and outside them; 0 without a reading. */
function cameraSees(cur) {
  return cur.camera ? cur.camera.counts.reduce((a, b) => a + b, 0) + cur.camera.outside : 0;
}

function phrase(v) {
  const phase = v.state.phase;
  // each a phrase after the player's name, which a phone may wrap to a line of its own: none begins with a mark
  if (phase === "marbles") return byTap(v.state.current) ? "rolled: tap where each marble went" : "rolls the marbles";
  if (phase === "flagged") return "waits: check the marbles";
  if (phase === "turn-over") return "waits: the others turn over their symbols";
  if (faceDown() && phase === "guesses") return "waits for the guesses";
  return "turns over the token";
}

function renderCastle(v) {
  const box = $("castle"); // a live region: its words change only when what it says does
  if (box.hidden !== (v.castle === undefined)) box.hidden = v.castle === undefined;
  box.classList.toggle("here", Boolean(v.castle));
  setText($("castle-text"), v.castle
    ? "The castle is on this game: its gates and camera score here."
    : "The castle is not on this game: its gates and camera do not score here.");
  const take = Boolean(v.castle) || Boolean(v.read_only);
  if ($("take-castle").hidden !== take) $("take-castle").hidden = take;
}

/** Gates by the table's names and symbols, as a sentence lists them: "Moon", "Moon and Star". */
function namedGates(gates) {
  return gates.flatMap((gate, i) =>
    [i ? (i === gates.length - 1 ? " and " : ", ") : "", icon(symbolOf(gate)), gateName(gate)]);
}

/** Why the camera is unsure of every gate whatever the marbles do, by the camera's status (``unsure_cause``), and
 *  what helps: the flag gives it instead of the usual reason. */
const PICTURE_DOUBT = {
  no_reference: "the camera has no empty reference yet, so anything resting on the table may count as a marble. " +
    "Take it once the gates are empty (Camera page).",
  noisy: "the picture is far noisier than the camera's empty reference (the room grew dim), so it cannot be sure " +
    "of the counts. More light on the castle helps.",
  overexposed: "the picture is over-exposed where the camera's empty reference was not (the light grew brighter), " +
    "so it cannot be sure of the counts. Less light on the castle helps, or the reference taken again once the " +
    "gates are empty (Camera page).",
};

/** The gates the camera is unsure of that still want a look, by the table's names and symbols, and why, in plain
 *  words: those where its empty reference shows a marble that is gone now (the camera's status says which) for
 *  that reason, the others for the picture's (no reference, a noisy or over-exposed picture) or else the usual
 *  one; and those a person already confirmed, which stay (ruling D4). */
function unsureText(gates, settled) {
  const held = gates.filter((gate) => sensed.held.includes(gate));
  const other = gates.filter((gate) => !held.includes(gate));
  const lookAt = (some) => h("strong", {}, "Look at ", ...(some.length === 6 ? ["every gate"] : namedGates(some)),
    ": ");
  const one = held.length === 1;
  const reasons = [
    ...(other.length ? [h("p", { class: `unsure${sensed.cause ? " picture" : ""}` }, lookAt(other),
      ...(PICTURE_DOUBT[sensed.cause] ? [PICTURE_DOUBT[sensed.cause]] : ["the camera cannot tell how many marbles " +
        "are there", h("span", { class: "why" }, " (one may lie on the line between two gates, or still be rolling)"),
      "."]))] : []),
    ...(held.length ? [h("p", { class: "unsure held" }, lookAt(held),
      `the camera's empty reference shows ${one ? "a marble" : "marbles"} there that ${one ? "is" : "are"} gone ` +
      `now, so it cannot be sure of the count${one ? "" : "s"}. Take the reference again once the gates are empty ` +
      "(Camera page).")] : []),
  ];
  if (settled.length) {
    reasons.at(-1).append(h("span", { class: "settled" }, " ", ...namedGates(settled),
      ` stay${settled.length > 1 ? "" : "s"} as confirmed.`));
  }
  return reasons;
}

/** Who entered the round's marbles besides the camera, as the flag names them and their button: null when the
 *  camera alone filled them in (no beams). */
function entry(sources) {
  const by = new Set(sources.filter((s) => s !== "camera"));
  if (!by.size) return null;
  if (!by.has("sensor")) return ["Tapped", "Taps are right"];
  return by.size > 1 ? ["Gates and taps", "Gates and taps are right"] : ["Gates", "Gates are right"];
}

function renderFlag(game, cur) {
  const flag = $("flag");
  flag.hidden = !cur.flag;
  if (!cur.flag) return;
  const camera = cur.camera ? cur.camera.counts.flatMap((n, i) => Array(n).fill(i + 1)) : null;
  // what the camera saw as its line says it: its gates, then the marbles it saw outside them, each a miss (null)
  const seen = camera ? [...camera, ...Array(cur.camera.outside).fill(null)] : null;
  const unsure = cur.camera?.unsure || [];
  // the gates still to check: those the camera is unsure of, less those a person confirmed that it reads the same
  // again (the view's "unsettled", the gates the flag names: ruling D4)
  const unsettled = cur.camera?.unsettled ?? unsure;
  const settled = unsure.filter((gate) => !unsettled.includes(gate));
  // the camera alone filled in the round and sees no more than three: its doubt is the only reason for the flag
  const onlyUnsure = unsettled.length && cur.sources.every((s) => s === "camera")
    && camera.length + cur.camera.outside <= 3;
  const inOrder = (marbles) => [...marbles].sort((a, b) => (a ?? 7) - (b ?? 7)).map(gateName).join(", ");
  const confirmMarbles = (marbles) => game.send({ type: "confirm", marbles });
  // what the camera is compared with: the beams' marbles, the taps', or none when the camera alone filled them in
  const entered = entry(cur.sources);
  const readings = [...(entered ? [`${entered[0]}: ${inOrder(cur.marbles) || "none"}`] : []),
    ...(camera ? [`Camera: ${[inOrder(camera), cur.camera.outside ? `${cur.camera.outside} missed` : ""]
      .filter(Boolean).join(", ") || "none"}`] : [])];
  flag.replaceChildren(
    ...(onlyUnsure ? [] : [h("p", {}, h("strong", {}, "Check the marbles: "), sentence(cur.flag))]),
    ...(unsettled.length ? unsureText(unsettled, settled) : []),
    ...(readings.length ? [h("p", {}, readings.join(" · "))] : []),
    h("div", { class: "row" },
      // a count the camera is unsure of is no suggested answer (ruling D4); offered only for a round's worth, and
      // confirming all the camera saw, the misses too
      seen && seen.length <= 3
        ? button("Camera is right", { cls: unsettled.length ? "" : "primary", onTap: () => confirmMarbles(seen) })
        : null,
      entered && cur.marbles.length <= 3 ? button(entered[1], { onTap: () => confirmMarbles(cur.marbles) }) : null,
      button("Clear, enter by tap", { onTap: () => confirmMarbles([]) })));
}

/** What the marbles so far are, as true as the reading: a miss is no marble in, more than three wait for a tap,
 *  a flagged round waits for its check (ruling D4); without beams the camera fills them in, a tap corrects it. */
function marbleHint(cur) {
  const marbles = cur.marbles;
  const n = marbles.length;
  if (n > 3) return `${n} marbles recorded: the round waits for the check above`;
  const seen = cameraSees(cur);
  if (cur.flag && seen > 3) return `the camera sees ${seen} marbles: the round waits for the count to be confirmed`;
  if (cur.flag) return "the round waits for the check above";
  if (n < 3) {
    if (byTap(cur)) return "tap where each one went";
    if (sensed.cameraAlone && view.castle) return "the camera fills these in once they rest; tap only to correct it";
    return beamsFitted ? "from the gates, or tap where each one went" : "tap where each one went";
  }
  const missed = marbles.filter((gate) => gate === null).length;
  if (!missed) return "3 marbles in gates";
  return `3 marbles rolled: ${3 - missed} in ${3 - missed === 1 ? "a gate" : "gates"}, ${missed} missed`;
}

function renderMarbles(game, cur, turnOver) {
  // the camera sees marbles not yet at rest: it records them once they do (camera alone, ruling D3)
  const rolling = sensed.rolling && Boolean(view.castle) && !turnOver;
  $("rolling").hidden = !rolling;
  const slots = [];
  const many = cur.marbles.length > 3; // more chips than a round's: each shows its gate's number (its name said aloud)
  for (let i = 0; i < Math.max(3, cur.marbles.length); i++) {
    const filled = i < cur.marbles.length;
    const gate = cur.marbles[i];
    const missed = filled ? gate === null : cur.token != null; // revealed with fewer: the rest missed (ruling D4)
    slots.push(h("div", { class: `slot${filled ? " filled" : ""}${missed ? " miss" : ""}`,
                          dataset: { gate: filled ? String(gate) : "" } },
      filled && gate !== null ? icon(symbolOf(gate)) : null,
      many && filled ? [h("span", { "aria-hidden": "true" }, gate === null ? "✗" : String(gate)),
        h("span", { class: "sr-only" }, gateName(gate))]
        : h("span", {}, filled || missed ? gateName(filled ? gate : null) : "–"),
      filled ? h("small", {}, cur.sources[i]) : null));
  }
  $("slots").replaceChildren(...slots);
  $("slots").classList.toggle("rolling", rolling);
  // the camera sees more marbles than the round holds: those shown are not what the round will score (ruling D4)
  $("slots").classList.toggle("stale", Boolean(cur.flag) && cameraSees(cur) > 3);
  const full = cur.marbles.length >= 3;
  $("marble-hint").textContent = marbleHint(cur);
  const reason = cur.flag ? "Marbles: check the reading above first." : null;
  const pad = $("marble-pad");
  pad.hidden = full || turnOver;
  pad.replaceChildren(...gatePad((gate) => game.send({ type: "marble", gate }, { counts: true }), reason,
    [button("Missed", { cls: "gate miss", reason, dataset: { gate: "miss" },
                        onTap: () => game.send({ type: "marble", gate: null }, { counts: true }) })]));
}

/** The guessers' [player, value] pairs clockwise from the active player, as their cards come down round the table. */
function clockwise(byPlayer) {
  const n = view.players.length, active = view.players.indexOf(view.turn);
  const fromActive = ([player]) => (view.players.indexOf(player) - active + n) % n;
  return bySeat(view, byPlayer).sort((a, b) => fromActive(a) - fromActive(b));
}

/** A player's answer where their buttons stood, over those buttons' room drawn unseen (`pad`: the class of their
 *  pad; `labels`: what the buttons show), as high as they were on every screen, wrapped as they were: an answer
 *  moves no other row, so that the next player's buttons stay under the finger and a quick tap on them counts
 *  (kit.js takes a tap on a button drawn at the last tap's spot for a double tap's). */
function inTheirRoom(pad, labels, answer) {
  const room = h("div", { class: `gate-pad ${pad} room`, "aria-hidden": "true" },
    labels.map(([label, cls]) => h("span", { class: `btn gate${cls ? ` ${cls}` : ""}` }, label)));
  return h("div", { class: "turned-answer" }, room, answer);
}

/** The six gates as their buttons show them, for a room drawn unseen. */
const gateLabels = () => [1, 2, 3, 4, 5, 6].map((gate) => [gateLabel(gate), null]);

function renderGuesses(game, cur, turnOver) {
  const step = $("guesses-step");
  step.hidden = !faceDown() || turnOver;
  if (step.hidden) return;
  // a guess in stands where its player's buttons stood (inTheirRoom): the rows after it keep their place
  $("guesses").replaceChildren(...clockwise(cur.guessed).map(([player, done]) =>
    h("div", { class: `guess-row${done ? " done" : ""}`, dataset: { player } },
      who(view, player, "who name"),
      done ? inTheirRoom("small", gateLabels(), h("span", { class: "guessed" }, "✓ guessed"))
        : h("div", { class: "gate-pad small" },
          gatePad((gate) => game.send({ type: "guess", player, gate }))))));
}

function revealReason(state, cur) {
  if (cur.flag) return "Reveal: check the marbles first.";
  const waiting = cur.waiting_for_guesses || [];
  if (faceDown() && waiting.length) return `Reveal: waiting for ${possessive(waiting, "guess")}.`;
  if (!state.expects.includes("reveal")) {
    return waiting.length ? `Reveal: waiting for ${possessive(waiting, "guess")}.` : "Reveal: not now.";
  }
  return null;
}

function renderToken(game, state, cur, turnOver) {
  $("token-step").hidden = turnOver;
  if (turnOver) return;
  // face down, the token's row follows the guess rows, drawn as one of them on the Pi's screen (kiosk.css): the
  // rows keep their height as the guesses come in, and with four players the token's row is on that screen all along
  $("token-step").classList.toggle("beside", faceDown());
  $("token-title").textContent = "Which symbol is on the token?";
  $("reveal-pad").replaceChildren(...gatePad((gate) => (cur.marbles.length < 3 ? game.ask(() => revealShort(cur, gate))
    : game.send({ type: "reveal", gate })), revealReason(state, cur)));
}

/** With fewer than three marbles recorded, ask whether the rest missed before the token is revealed (ruling D4: a
 *  missed marble counts for no gate), so that a tap too early, a marble still rolling, costs no points unasked; a
 *  marble recorded meanwhile, or the token revealed on another device, closes the question and says so (revealMoot).
 *  The event, or nothing when they wait. */
async function revealShort(cur, gate) {
  const short = 3 - cur.marbles.length;
  const question = cur.marbles.length ? `Only ${cur.marbles.length} of 3 marbles recorded.` : "No marble recorded yet.";
  const ok = await confirm(question, `Reveal: ${short === 3 ? "all" : short} missed`, "Wait for the marbles",
    `The token shows ${gateName(gate)}. Marbles not recorded count as missed: they score nothing.`,
    { moot: (v) => revealMoot(v, cur) });
  return ok ? { type: "reveal", gate } : null;
}

/** Why the question "Only 1 of 3 marbles recorded: reveal?", asked of round `asked`, no longer stands in the game as
 *  it is now (`v`): the token was revealed on another device, the game ended or was put away, the round or its
 *  marbles changed, or the reveal waits for something first (a check, a guess). Null while it stands: a camera
 *  reading that sees the same marbles changes nothing asked. */
function revealMoot(v, asked) {
  const state = v.state;
  const revealed = [state?.current, state?.last_round].find((r) => r?.number === asked.number && r.token != null);
  if (revealed) {
    const missed = 3 - revealed.marbles.length;
    return `Answered on another device: the token shows ${gateName(revealed.token)}` +
      (missed > 0 ? `, and the ${missed === 1 ? "marble" : `${missed} marbles`} not recorded counted as missed.` : ".");
  }
  if (v.status === "abandoned") return "This game was abandoned on another device: nothing was revealed.";
  if (v.read_only) return "This game was set aside meanwhile: nothing was revealed.";
  const cur = state.current;
  if (!cur) return "This game ended meanwhile: nothing was revealed.";
  if (cur.number !== asked.number) return `The round changed meanwhile: this is round ${cur.number} now.`;
  if (JSON.stringify(cur.marbles) !== JSON.stringify(asked.marbles)) {
    const n = cur.marbles.length;
    return n >= 3 ? "The marbles changed meanwhile: all 3 are recorded now."
      : `The marbles changed meanwhile: ${n ? `${n} of 3` : "none"} recorded now.`;
  }
  const reason = revealReason(state, cur);
  return reason ? `The round changed meanwhile. ${reason}` : null;
}

/** What a player turned over, said right or wrong against the token: by mark and word, not by colour alone. */
function turnedText(value, token, cls = "guessed") {
  const right = value === true || (typeof value === "number" && value === token);
  const mark = right ? "✓" : "✗";
  const word = right ? "right" : "wrong";
  const shown = typeof value === "number" ? [icon(symbolOf(value)), ` ${gateName(value)} · ${word}`] : [` ${word}`];
  return h("span", { class: `${cls} ${word}`, dataset: { result: word } }, `${mark} `, ...shown);
}

/** Besides the six symbols, what a player may say instead: only whether it was right. */
const VERDICTS = [["✓ Right", "right", true], ["✗ Wrong", "wrong", false]];

/** A player's row of buttons for what they turned over: the six symbols, then Right and Wrong. */
function turnedPad(send, player) {
  return h("div", { class: "gate-pad turned" },
    gatePad((gate) => send(player, { gate })),
    VERDICTS.map(([label, cls, correct]) => button(label, { cls: `gate ${cls}`, dataset: { correct: String(correct) },
                                                            onTap: () => send(player, { correct }) })));
}

/** What a player turned over in place of their buttons (inTheirRoom): no other row moves. */
function turnedAnswer(value, token) {
  return inTheirRoom("turned", [...gateLabels(), ...VERDICTS.map(([label, cls]) => [label, cls])],
    turnedText(value, token));
}

function renderTurned(game, cur, turnOver) {
  $("turned-step").hidden = !turnOver;
  if (!turnOver) return;
  const token = cur.token;
  const guesses = cur.guesses || {};
  const send = (player, extra) => game.send({ type: "turned", player, ...extra });
  $("turned").replaceChildren(
    ...(token ? [h("p", { class: "token-shown" }, "The token shows ", icon(symbolOf(token)), ` ${gateName(token)}`)] : []),
    ...clockwise(cur.guessed).map(([player]) => {
      const value = guesses[player];
      return h("div", { class: `guess-row${value != null ? " done" : ""}`, dataset: { player } },
        who(view, player, "who name"),
        value != null ? turnedAnswer(value, token) : turnedPad(send, player));
    }));
}

function renderLastRound(state) {
  const last = state.last_round;
  if (!last) { $("last-round").replaceChildren(); return; }
  const points = bySeat(view, last.points).filter(([, pts]) => pts > 0).map(([p, pts]) => `${p} +${pts}`);
  const guesses = bySeat(view, last.guesses || {}).filter(([, value]) => value != null);
  $("last-round").replaceChildren(h("span", {}, `Round ${last.number}: the token showed `,
    last.token ? icon(symbolOf(last.token)) : null, ` ${gateName(last.token)}. `,
    points.length ? points.join(", ") : "Nobody scored."),
  ...guesses.map(([player, value]) => h("span", { class: "last-guess", dataset: { player } }, ` · ${player} `,
    turnedText(value, last.token, "verdict"))));
}

function render(v, game) {
  view = v;
  const state = v.state;
  renderCastle(v);
  if (lastSensors) renderSensors(lastSensors);  // a new round: its counts start at none
  if (!state) return; // set aside: today's rules cannot read this game; the notice says so
  renderLastRound(state);
  const cur = state.current;
  if (!cur) return; // the final screen shows
  const turnOver = state.phase === "turn-over";
  renderFlag(game, cur);
  renderMarbles(game, cur, turnOver);
  renderGuesses(game, cur, turnOver);
  renderToken(game, state, cur, turnOver);
  renderTurned(game, cur, turnOver);
  renderPhoto(cur.camera ? `/camera/confirmation/${v.id}.jpg?seq=${v.seq}` : null);
  $("facedown").textContent = faceDown() ? "Guesses are held face down in this game (chosen at its start)."
    : "Quick scoring: each player says after the reveal what they turned over (chosen at the game's start).";
}

/** The camera's photo of the round, shown once it has loaded: it is kept in memory only, so after a restart it is
 *  gone, and no broken picture shows. A device not paired may not see it (pairing.js says which this is): it does not
 *  ask. */
function renderPhoto(url) {
  const open = $("photo-open");
  const photo = $("photo");
  if (!url || document.body.dataset.trust === "spectator") {
    open.hidden = true;
    delete photo.dataset.want;
    return;
  }
  if (photo.dataset.want !== url) { // the last photo stays in sight until the new one has loaded
    photo.dataset.want = url;
    photo.src = url;
  }
}

$("photo").addEventListener("load", () => { $("photo-open").hidden = !$("photo").dataset.want; });
$("photo").addEventListener("error", () => { $("photo-open").hidden = true; });
$("photo-open").addEventListener("click", () => dialog((close) => [
  h("button", { type: "button", class: "photo-large", "aria-label": "Close the photo", onclick: () => close() },
    h("img", { src: $("photo").src, alt: "The camera's photo of the round" })),
  h("p", { class: "muted center" }, "Tap to close."),
], { cls: "photo-dialog", label: "The camera's photo of the round" }));

function roundCount(status, gate, index) {
  return gate.round_marbles ?? status.round_marbles?.[index] ?? status.gates?.round_marbles?.[index] ?? null;
}

let lastSensors = null;

function renderSensors(status) {
  lastSensors = status;
  const gates = status.gates || {};
  // the round the counts are for: a round begun since, its gates have seen none yet (the next marble says so too)
  const counted = status.round, now = view?.state?.current;
  const before = Boolean(counted && view && (counted[0] !== view.id || counted[1] !== now?.number));
  const camera = status.camera || {};
  const unsure = camera.ok && camera.unsure;
  // why the counts are unsure, on a line of its own under the camera's state, with the way to the Camera page
  // (where its note may send the family: "Gates empty: take reference"), which the header reaches only by its menu
  const cameraLine = h("li", { class: camera.ok && !camera.unsure ? "" : "warn", id: "camera-state" },
    camera.ok ? `Camera: watching${unsure ? " · counts unsure" : ""}`
      : `Camera: ${camera.camera?.error || camera.error || "starting"}`,
    camera.waiting ? h("span", { id: "camera-waiting" }, ` · ${camera.waiting}`) : null,
    unsure ? h("span", { id: "camera-unsure", class: "camera-note" }, `${camera.unsure} `,
      h("a", { href: "/camera", id: "camera-page-link" }, "Open the Camera page")) : null);
  followCamera(camera);
  const list = $("gate-status");
  if (!gates.gates || gates.gates.length === 0) {
    // no beams fitted is the table's chosen set-up, not a fault: said, not shown as a warning
    list.replaceChildren(h("li", { class: beamsFitted ? "warn" : "setup", id: "gates-state" },
      gates.error || "no gates"), cameraLine);
    return;
  }
  list.replaceChildren(...gates.gates.map((g, i) => {
    const perRound = before ? 0 : roundCount(gates, g, i);
    const n = perRound ?? g.marbles;
    // an interrupted beam (a marble passing, or something in it) said in words, not by its background alone
    return h("li", { class: g.stuck ? "warn" : g.flaky ? "flaky" : g.blocked ? "blocked" : "", dataset: { gate: g.gate } },
      icon(symbolOf(g.gate)), `${g.gate}: `, g.stuck ? "beam blocked, check it" : g.flaky ? "flickering cable"
        : `${n} marble${n === 1 ? "" : "s"}${perRound == null ? " in all" : ""}`,
      !g.stuck && !g.flaky && g.blocked ? h("strong", { class: "beam-mark" }, " · blocked") : null);
  }), cameraLine);
}

/** Redraw the round when what the camera does changes what it shows: who fills in the marbles, marbles rolling,
 *  the gates its empty reference holds a marble gone now in, and why the picture leaves every gate in doubt (the
 *  flag's reasons). */
function followCamera(camera) {
  const next = { cameraAlone: Boolean(camera.ok && camera.camera_only),
                 rolling: Boolean(camera.ok && camera.camera_only && camera.waiting),
                 held: (camera.ok && camera.reference_holds) || [],
                 cause: (camera.ok && PICTURE_DOUBT[camera.unsure_cause] && camera.unsure_cause) || null };
  if (next.cameraAlone === sensed.cameraAlone && next.rolling === sensed.rolling
      && next.held.join() === sensed.held.join() && next.cause === sensed.cause) return;
  Object.assign(sensed, next);
  whenUntouched(game.render);
}

function noteReading(text) {
  unscored.unshift(text);
  unscored.length = Math.min(unscored.length, 3);
  $("unscored").replaceChildren(...unscored.map((t) => h("li", {}, t)));
}

function renderMarble(marble) {
  const where = marble.gate == null ? "Past every gate" : `Gate ${marble.gate}`;
  if (!marble.scored) noteReading(`${where}: ${sentence(marble.note) || "not scored."}`);
  else if (marble.session !== view.id) noteReading(`${where}: scored in game ${marble.session}.`);
}

function renderCamera(reading) {
  if (reading.note) noteReading(`Camera: ${sentence(reading.note)}`);
  else if (reading.session != null && reading.session !== view.id) noteReading(`Camera: scored in game ${reading.session}.`);
}

/** The ways the round with its flag makes room where it reaches below the screen's foot (the Pi's 800x480 screen: the
 *  gates and the camera disagreeing, the camera unsure too), the least first (kiosk.css): the token's question waits
 *  until the marbles are checked (it cannot be answered before), then the flag leaves out why the camera cannot tell,
 *  then the turn line its "waits: check the marbles", which the flag itself says. */
const FLAG_ROOM = [["flag-token-waits"], ["flag-token-waits", "flag-brief"],
  ["flag-token-waits", "flag-brief", "flag-alone"]];

/** The turn's name fitted, and the room a flag needs made where the page would reach below the screen's foot (a
 *  phone's page scrolls all the same, and keeps everything). */
function fit() {
  const grid = $("play");
  grid.classList.remove(...FLAG_ROOM.flat());
  fitTurnName();
  if ($("flag").hidden || !matchMedia("(min-width: 601px)").matches || pastTheFoot() <= 0) return;
  closeUp(grid, FLAG_ROOM, { each: fitTurnName, closest: true });
}

const game = startGame({ render, phrase, fit, sensors: renderSensors, marble: renderMarble,
  camera: renderCamera });

$("take-castle").addEventListener("click", async () => {
  const result = await api("/api/castle", { session: view.id });
  if (!result.ok) return;
  toast("The castle now scores for this game.");
  const fresh = await api(`/api/sessions/${view.id}`);
  if (fresh.ok) game.show(fresh.data);
});

// the Pi's 800x480 screen: the gates' panel (and the simulated rolls) waits behind its button beside the scores and
// opens over the page's foot until tapped again (kiosk.css); the badge's "Roll a marble" opens it too
const sensorPanel = $("sensor-panel");
const openSensors = (open) => {
  sensorPanel.classList.toggle("open", open);
  $("sensors-toggle").setAttribute("aria-expanded", String(open));
};
// a message shows on the open panel's top edge (kiosk.css), clear of the turn's name and the round's marbles
new ResizeObserver(() => {
  document.body.style.setProperty("--panel-top", `${sensorPanel.getBoundingClientRect().top}px`);
}).observe(sensorPanel);
$("sensors-toggle").addEventListener("click", () => openSensors(!sensorPanel.classList.contains("open")));
document.addEventListener("click", (e) => { if (e.target.closest?.("#sim-show-pad")) openSensors(true); }, true);

const simPad = $("sim-pad");
if (simPad) {
  // with beams, a beam pulse (and Chatter, a beam's bouncing signal); without, a marble into the simulated castle
  // for the camera to find once it rests
  const intoCastle = simPad.dataset.into === "castle";
  const rolled = (gate) => (intoCastle
    ? (gate == null ? "Rolled a marble beside the gates: the camera counts it as missed once it rests"
      : `Rolled a marble into ${gateName(gate)}: the camera records it once it rests`)
    : (gate == null ? "Rolled a marble past every gate" : `Rolled a marble through gate ${gate}`));
  const roll = async (gate) => {
    const chatter = $("sim-chatter")?.getAttribute("aria-pressed") === "true";
    const width = Math.round((8 + Math.random() * 24) * 10) / 10; // a 16 mm marble at 0.5-2 m/s
    const result = await api("/api/simulation/marble", gate == null ? { gate: null } : { gate, width_ms: width, chatter });
    if (result.ok) toast(rolled(gate));
  };
  simPad.replaceChildren(...[1, 2, 3, 4, 5, 6].map((gate) =>
    button([icon(symbolOf(gate)), `→ ${gate}`], { cls: "gate", dataset: { gate }, onTap: () => roll(gate) })),
    button("miss", { cls: "gate miss", onTap: () => roll(null) }));
  const chatter = $("sim-chatter");
  chatter?.addEventListener("click", () => {
    chatter.setAttribute("aria-pressed", String(chatter.getAttribute("aria-pressed") !== "true"));
  });
}
