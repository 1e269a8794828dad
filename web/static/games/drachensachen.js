// Drachensachen on the page kit. The cards stay on the table; the page keeps what is tedious to hold in one's
// head: the trouble pile, the pending draw of 4s, the skips of 5s, the direction, whose turn it is, the cards out
// of the game per value and the active tricks. Every tracker tap is one event; keypads only for the round-end
// coins and a hindrance card's numbers. Scores are coins lost: the fewest wins (view.lower_wins).
import {
  andList, backCancels, button, colourOf, dialog, h, keypad, plural, sentence, startGame, toast, who, whoList,
  closeUp, fitTurnName, pastTheFoot, widestWord, wordsWidth,
} from "../kit.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const MAX_EIGHTS = 8; // 72 goblin cards of values 1-9: eight 8s in the deck

/** The tricks as short tags for the side panel; a tap on them shows each trick's name and full reminder. */
const SHORT = { // in the order of the cards' values, the dragon last
  fast_dragon: "0: again",
  small_but_bold: "1 on a 9",
  surprise: "2: card taken",
  carousel: "7: carousel",
  golden_feathers: "8s: coin back",
  revealing_secrets: "9: reserve",
  goblins_against_dragons: "Dragon: draw 1",
};
const TRICK_ORDER = Object.keys(SHORT);
/** The hindrance kinds as the cards are best told apart: the two with numbers first. */
const KIND_ORDER = ["invasion", "unknown", "chaos"];
const KIND_BUTTON = { invasion: "Invasion…", unknown: "Unknown…", chaos: "Chaos" };
/** Short labels for the value cells. */
const VALUE_SHORT = { zero: "Zero", fire_breather: "Fire", defender: "Def." };

/** Page-local choices (not events): what the cards-out panel is doing, and the went-out picker. */
const local = { cards: "show", burned: {}, wentOut: false };
const OFF = { cards: "show", wentOut: false }; // the modes of `local` the phone's Back cancels, and their rest
const ended = {}; // for each mode under way: says it ended otherwise than by Back (kit.js backCancels)

/** Set `local[key]`, a mode of the page that the phone's Back cancels (back to OFF[key]), as it closes a dialog. */
function setMode(key, value) {
  ended[key]?.();
  ended[key] = value === OFF[key] ? null : backCancels(() => { setMode(key, OFF[key]); game.render(); });
  local[key] = value;
}

let game = null;

const expects = (s, type) => s.expects?.includes(type);
const send = (event, options) => game.send(event, options);

// ---- the turn line --------------------------------------------------------------------------------------------

function phrase(view) {
  const s = view.state;
  if (!s || s.phase === "finished" || s.phase === "scoring") return "";
  if (s.phase === "setup") {
    if (s.current.number === 1) return "starts round 1";
    return starterWhy(view, s);
  }
  if (s.pending_faces) return `faces +${s.pending_draw}: pass it on or draw`;
  if (s.skips) return `plays · ${s.skipping.join(", ")} ${s.skipping.length === 1 ? "skips" : "skip"} next`;
  return "plays";
}

/** Why the round's starter starts (S5): who lost the most last round; where several did, the first of them met
 *  clockwise after the last round's starter (who is met last), and so said, with the count they tied at (the board
 *  and the last round's losses beside it name them). */
function starterWhy(view, s) {
  const losses = s.last_round?.losses || {};
  const most = Math.max(...view.players.map((p) => losses[p] ?? 0));
  const tied = view.players.filter((p) => (losses[p] ?? 0) === most);
  if (tied.length < 2) return "starts: lost the most last round";
  const after = `clockwise after ${s.last_round.starter}`; // who started the last round
  const all = tied.length === view.players.length;
  return ["starts: ", h("span", { class: "ds-why" }, all ? `all lost the same (${most || "nothing"}), the next ${after}`
    : `of the ${tied.length} who lost the most (${most} each), the first ${after}`),
  h("span", { class: "ds-why-short", hidden: true }, all ? "all tied, next clockwise" : "tied, first clockwise")];
}

/** The starter's tie said in a few words (starterWhy), where said whole it leaves the page too long for the screen
 *  (a line more beside seven players' hindrances under Chaos, or long names). */
function shortenWhy(short) {
  const why = document.querySelector("#turn .ds-why");
  if (!why) return false;
  why.hidden = short;
  document.querySelector("#turn .ds-why-short").hidden = !short;
  return true;
}

// ---- setting up the round ---------------------------------------------------------------------------------------

function starterPart(view, s) {
  if (expects(s, "starter")) {
    return h("div", { class: "ds-step", id: "ds-starter" },
      h("h3", {}, "Who starts round 1? ", h("small", {}, "chosen at the table")),
      h("div", { class: "ds-players" }, ...view.players.map((p) =>
        button(who(view, p), { cls: "ds-player", dataset: { player: p }, style: { "--c": colourOf(view, p) },
                               onTap: () => send({ type: "starter", player: p }) }))));
  }
  return null; // the turn line says who starts, and why
}

function trickPart(view, s) {
  const revealed = s.current.trick && s.tricks.find((t) => t.id === s.current.trick);
  if (revealed) return h("span", { class: "ds-fact" }, "Trick revealed: ", h("strong", {}, revealed.name), ". ");
  if (!expects(s, "trick")) return null;
  return h("div", { class: "ds-step", id: "ds-trick" },
    h("h3", {}, "Which trick is revealed? ", h("small", {}, "it stays for the game")),
    h("div", { class: "ds-choices" }, ...s.trick_choices.map((t) =>
      button(t.name, { cls: "ds-choice", dataset: { trick: t.id },
                       onTap: () => send({ type: "trick", trick: t.id }) }))));
}

function cardText(card) {
  if (card.kind === "invasion") return `${card.name}: ${plural(card.hand, "card")} in hand`;
  if (card.kind === "unknown") return `${card.name}: reserve ${card.face_up} face up, ${card.face_down} face down`;
  return `${card.name}: every player draws a hindrance`;
}

/** A drawn card in a few words, for the list of every player's card under Chaos. */
function shortCard(card) {
  if (card.kind === "invasion") return `${plural(card.hand, "card")} in hand`;
  if (card.kind === "unknown") return `reserve ${card.face_up} up, ${card.face_down} down`;
  return card.name;
}

/** The hindrance drawn, with what it asks for by keypad: the event, or nothing when cancelled. */
async function drawHindrance(view, kind, player) {
  const event = { type: "hindrance", kind, player };
  const name = (what) => `${player}: ${what}`;
  if (kind === "invasion") {
    const hand = await keypad(name("cards in hand"), { min: 1, max: 20 });
    if (hand == null) return null;
    event.hand = hand;
  } else if (kind === "unknown") {
    const up = await keypad(name("reserve cards face up"), { min: 0, max: 12 });
    if (up == null) return null;
    const down = await keypad(name("reserve cards face down"), { min: 0, max: 12 });
    if (down == null) return null;
    if (up + down === 0) { toast("An Unknown card lays out at least one reserve card.", "error"); return null; }
    Object.assign(event, { face_up: up, face_down: down });
  }
  return event;
}

function kindButtons(view, player) {
  const kinds = view.state.hindrance_kinds;
  const order = Object.keys(kinds).sort((a, b) => KIND_ORDER.indexOf(a) - KIND_ORDER.indexOf(b));
  return h("div", { class: "ds-kinds", dataset: { drawer: player } }, ...order.map((kind) =>
    button(KIND_BUTTON[kind] || kinds[kind], { cls: "ds-choice", dataset: { kind }, "aria-label": kinds[kind],
                                               onTap: () => game.ask(() => drawHindrance(view, kind, player)) })));
}

function hindrancePart(view, s) {
  if (!s.hindrance_holder) return [];
  const chaos = s.hindrance?.kind === "chaos";
  const drawn = Object.fromEntries((s.chaos_draws || []).map((c) => [c.player, c]));
  const open = expects(s, "hindrance") && !view.players.every((p) => drawn[p]);
  if (chaos && !open) { // every card drawn: a few words each, in the setup's paragraph
    return [h("span", { class: "ds-fact", id: "ds-hindrance" }, who(view, s.hindrance.player), " drew ",
      h("strong", {}, s.hindrance.name), ": ", h("span", { id: "ds-chaos" }, ...view.players.map((p, i) =>
        h("span", { dataset: { player: p } }, i ? " · " : "", who(view, p), " ",
          drawn[p] ? shortCard(drawn[p]) : "no card left"))), ". ")];
  }
  const parts = [];
  if (s.hindrance) {
    parts.push(h("span", { class: "ds-fact", id: "ds-hindrance" }, who(view, s.hindrance.player), " drew ",
      h("strong", {}, cardText(s.hindrance)), ". "));
  } else {
    parts.push(h("div", { class: "ds-step" },
      h("h3", {}, who(view, s.hindrance_holder), " went out last round: which hindrance did they draw?"),
      kindButtons(view, s.hindrance_holder)));
  }
  if (chaos) {
    const drawnBy = (p) => (drawn[p] ? h("span", { class: "ds-drawn" }, cardText(drawn[p])) : kindButtons(view, p));
    const name = (p) => Object.assign(who(view, p, "who name"), { title: p }); // whole, where a long word is cut
    parts.push(h("div", { class: "ds-step ds-chaos", id: "ds-chaos" }, ...view.players.map((p) =>
      h("div", { class: "ds-chaos-row", dataset: { player: p } }, name(p), drawnBy(p))),
    h("p", { class: "muted" }, `Trouble pile under Chaos: ${s.trouble_pile.start} cards (every card not dealt).`)));
  }
  return parts;
}

/** The round's setup: what is still to enter as steps; what is entered, and what comes next, in one short
 *  paragraph, so that the trackers below stay on a small screen. The tiles wait until the setup is done. */
function renderSetup(view, s) {
  const box = $("ds-setup");
  box.hidden = s.phase !== "setup";
  $("ds-trackers").classList.toggle("owed", !box.hidden && Boolean(s.setup_owed));
  if (box.hidden) return;
  const parts = [starterPart(view, s), trickPart(view, s), ...hindrancePart(view, s)].filter(Boolean);
  const facts = parts.filter((el) => el.classList.contains("ds-fact"));
  const steps = parts.filter((el) => !el.classList.contains("ds-fact"));
  if (s.turn && !s.setup_owed) {
    facts.push(h("span", { class: "muted", id: "ds-setup-hint" },
      "The round is set up: a tracker tap starts play."));
  }
  box.replaceChildren(...[facts.length ? h("p", { class: "ds-facts" }, ...facts) : null, ...steps,
    s.turn && s.setup_owed ? h("p", { class: "muted ds-hint", id: "ds-setup-hint" },
      sentence(`${s.setup_owed.message}; then play can start.`)) : null].filter(Boolean));
}

// ---- the trackers -------------------------------------------------------------------------------------------------

function reasonFor(s, type) {
  if (expects(s, type)) return null;
  if (s.phase === "scoring") return "The round is over: enter the coins.";
  if (!s.turn) return "Choose who starts round 1 first.";
  if (s.setup_owed) return [sentence(s.setup_owed.message), s.setup_owed.rule];  // what the setup owes
  const faces = s.pending_faces;
  if (faces && ["next_turn", "skip", "draw", "set_out", "reverse"].includes(type)) {
    return `${faces} faces +${s.pending_draw}: pass it on (a 4 or a Defender) or draw it first.`;
  }
  if (s.goes_again && ["four", "skip", "reverse", "defender", "draw"].includes(type)) {
    return [`${s.goes_again} goes again (the carousel): tap Next turn to begin that turn first.`, "S11"];
  }
  switch (type) {
    case "draw_pending": return s.pending_draw ? "The pending draw faces the next player: pass the turn first."
      : "No draw is pending: a 4 makes one.";
    case "defender": return s.skips ? "Everyone is already affected by this skip."
      : "No draw or skip faces this player: a Defender played now changes no tracker.";
    case "draw": return ["Only the trick goblins against dragons draws 1 beside the 4s. Can't play? Take the "
      + "discard pile.", "S6"];
    case "skip": return `${plural(s.skips, "skip")} pending: pass the turn first (5s played together count at once).`;
    case "reverse": return "Only the trick carousel reverses the direction, and it is not revealed.";
    default: return "Not now.";
  }
}

/** Why the went-out picker offers only some players: a card is played on one's own turn, or by a skipped player a
 *  Defender (S8); a round with no tracker tap has not followed its turns, and anyone may have gone out. */
function outNote(view, s, able) {
  if (able.length === view.players.length) return null;
  const skipping = able.filter((p) => p !== s.turn);
  return h("small", { id: "ds-went-out-why" }, "A last card is played on one's own turn", ...(skipping.length
    ? [" (", who(view, s.turn), "'s now), or by ", ...whoList(view, skipping), ", skipping, as a Defender."]
    : [": now ", who(view, s.turn), "'s."]), " Someone went out on an earlier turn? Undo back to it.");
}

/** Who a tracker tap names (whose turn it is, whom the pending draw faces), so the log and its undo say who. */
const by = (player) => (player ? { player } : {});

function tile(el, label, value, detail, buttons, cls = "") {
  el.className = `ds-tile ${cls}`.trim();
  el.replaceChildren(
    h("div", { class: "ds-tile-head" }, h("span", { class: "ds-tile-label" }, label),
      h("span", { class: "ds-tile-value" }, ...[value].flat())),
    h("div", { class: "ds-tile-detail" }, ...[detail].flat()),
    h("div", { class: "ds-tile-buttons" }, ...buttons));
}

function renderTrackers(view, s) {
  const box = $("ds-trackers");
  box.hidden = s.phase === "scoring" || !s.turn;
  if (box.hidden) return;
  if (local.wentOut) {
    box.classList.add("picking");
    const able = s.going_out ?? view.players; // only who may play a card now: the rest would be refused
    $("ds-main-row").replaceChildren(h("div", { class: "ds-went-out", id: "ds-went-out" },
      h("h3", {}, "Who played their last card? ", outNote(view, s, able)),
      h("div", { class: "ds-players" }, ...able.map((p) =>
        button(who(view, p), { cls: "ds-player", dataset: { player: p }, style: { "--c": colourOf(view, p) },
                               onTap: () => { setMode("wentOut", false); send({ type: "went_out", player: p }); } })),
        button("Cancel", { cls: "ghost", id: "ds-went-out-cancel",
                           onTap: () => { setMode("wentOut", false); game.render(); } }))));
    return;
  }
  box.classList.remove("picking");
  // Reverse beside Next turn, as both pass the turn on (a 7 under the carousel): the direction's tile keeps the
  // order of play only, so that long names in it leave the trackers on a small screen
  $("ds-main-row").replaceChildren(
    button(["Next turn ", h("span", { "aria-hidden": "true" }, s.direction === "clockwise" ? "↻" : "↺")],
      { cls: "primary ds-next", id: "ds-next", reason: reasonFor(s, "next_turn"),
        onTap: () => send({ type: "next_turn" }) }),
    button("Reverse", { cls: "ds-reverse", id: "ds-reverse", reason: reasonFor(s, "reverse"),
                        onTap: () => send({ type: "reverse" }) }),
    button("Went out…", { cls: "ds-out-button", id: "ds-went-out-open", reason: reasonFor(s, "went_out"),
                          onTap: () => { setMode("wentOut", true); game.render(); } }));

  const pile = s.trouble_pile;
  tile($("ds-pile"), "Trouble pile", String(pile.left),
    pile.empty ? h("span", { class: "ds-warn" }, `empty: draws ignored${pile.ignored ? ` (${pile.ignored})` : ""}`)
      : `of ${pile.start}${pile.last_draw ? ` · ${pile.last_draw.player} drew ${pile.last_draw.drawn}` : ""}`,
    [button("Draw 1", { cls: "ds-big", id: "ds-draw", "aria-label": "Draw 1 card", reason: reasonFor(s, "draw"),
                        onTap: () => send({ type: "draw", count: 1, ...by(s.turn) }) }),
     button(s.pending_draw ? `Draw ${s.pending_draw}` : "Draw due", { id: "ds-draw-pending",
       reason: reasonFor(s, "draw_pending"),
       onTap: () => send({ type: "draw_pending", ...by(s.pending_faces) }) })],
    pile.empty ? "empty" : "");

  const facing = s.pending_faces ? [who(view, s.pending_faces), " faces it"] : null;
  tile($("ds-pending"), "Pending draw", s.pending_draw ? `+${s.pending_draw}` : "0",
    facing || (s.pending_draw ? "faces the next player" : "a 4 adds 2"),
    [button("4 (+2)", { cls: "ds-big", id: "ds-four", "aria-label": "A 4 played: 2 more to draw",
                        reason: reasonFor(s, "four"), onTap: () => send({ type: "four", count: 1 }, { counts: true }) }),
     button("Defender", { id: "ds-defend-pending",
                          onTap: () => send({ type: "defender", ...by(s.pending_faces) }),
                          reason: facing ? reasonFor(s, "defender")
                            : "A Defender passes the pending draw on only when it faces this player." })],
    facing ? "alert" : "");

  const skipButtons = s.skips
    ? s.skipping.map((p) => button([h("small", {}, "Defender"), who(view, p)], {
      cls: "ds-defender", dataset: { defender: p }, "aria-label": `Defender played by ${p}`,
      reason: reasonFor(s, "defender"), onTap: () => send({ type: "defender", player: p }) }))
    : [1, 2, 3].map((n) => button(Array(n).fill("5").join(" "), {
      cls: "ds-five", dataset: { skip: n }, "aria-label": `${n} × 5 played`,
      reason: reasonFor(s, "skip"), onTap: () => send({ type: "skip", count: n }) }));
  tile($("ds-skips"), "Skips", String(s.skips),
    s.skips ? [...whoList(view, s.skipping), s.skipping.length === 1 ? " skips" : " skip"]
      : s.last_skipped.length ? [...whoList(view, s.last_skipped), " skipped"] : "5s played at once",
    skipButtons, s.skips ? "alert" : "");

  const count = view.players.length;
  const seat = view.players.indexOf(s.turn);
  const step = s.direction === "clockwise" ? 1 : count - 1;
  const order = view.players.map((_, k) => view.players[(seat + step * k) % count]); // from whose turn it is
  tile($("ds-direction"), "Direction", [h("small", {}, `${s.direction} `), s.direction === "clockwise" ? "↻" : "↺"],
    s.goes_again ? [who(view, s.goes_again), " goes again: the carousel, of two players"]
      : order.flatMap((p, i) => [i ? " → " : "", who(view, p)]),
    []);
}

// ---- cards out of the game ---------------------------------------------------------------------------------------

/** The cards panel's mode: "show", or "set" (a 4 from a hand) or "burn" (a pile burned) while cards are tapped in,
 *  which the phone's Back cancels. */
function cardsMode(mode) {
  setMode("cards", mode);
  local.burned = {};
  game.render();
}

function burnedTotal() { return Object.values(local.burned).reduce((a, b) => a + b, 0); }

/** A value cell's name: the words it shows first ("Def."), then the card's whole name where they are short of it
 *  ("Def. (Defender): 2 out"). */
function cellName(s, v, n) {
  const shown = VALUE_SHORT[v] || v;
  const full = s.value_names[v];
  return `${shown}${full && full !== shown ? ` (${full})` : ""}: ${n} out`;
}

function renderCards(view, s) {
  const counts = s.cards_out_round || s.cards_out;
  const values = Object.keys(s.value_names);
  const total = values.reduce((sum, v) => sum + (counts[v] || 0), 0);
  $("ds-cards-sum").textContent = s.phase === "finished" ? "" : `this round: ${total}`;
  const playing = s.phase === "play" || (s.phase === "setup" && s.turn);
  const mode = playing ? local.cards : "show";
  const cellTap = (v) => {
    if (mode === "set") { cardsMode("show"); send({ type: "set_out", value: v }); }
    else if (mode === "burn") { local.burned[v] = (local.burned[v] || 0) + 1; game.render(); }
  };
  const notNow = "Cards go out of the game during play.";
  const cellReason = mode !== "show" ? null
    : playing ? "To count cards out of the game, tap “4 from a hand” or “Pile burned” first." : notNow;
  $("ds-cards").dataset.mode = mode;
  $("ds-cards").replaceChildren(...values.map((v) => button([
    h("span", { class: "ds-value" }, VALUE_SHORT[v] || v),
    h("span", { class: "ds-count" }, String(counts[v] || 0)),
    mode === "burn" && local.burned[v] ? h("span", { class: "ds-add" }, `+${local.burned[v]}`) : null,
  ], { cls: "ds-cell", dataset: { value: v }, "aria-label": cellName(s, v, counts[v] || 0),
       reason: cellReason, onTap: () => cellTap(v) })));
  const show = () => cardsMode("show");
  const actions = $("ds-cards-actions");
  actions.dataset.mode = mode;
  if (mode === "set") {
    actions.replaceChildren(h("p", { class: "ds-cards-hint" }, "Tap the value of the four cards."),
      button("Cancel", { cls: "ghost", id: "ds-cards-cancel", onTap: show }));
  } else if (mode === "burn") {
    const n = burnedTotal();
    const most = Math.max(0, ...Object.values(local.burned));
    const burn = async (cause) => { // refused, the panel stays with the cards tapped in, for a better answer
      const result = await send({ type: "burned", cause, cards: { ...local.burned } });
      if (result.ok) show();
    };
    const hint = `Tap each burned card: ${plural(n, "card")}. Burned by:`;
    actions.replaceChildren(h("p", { class: "ds-cards-hint" }, hint),
      button("4 in a row", { id: "ds-burn-four", onTap: () => burn("four_in_a_row"), reason: most >= 4
        ? reasonFor(s, "burned") : "Four in a row burns at least four cards of one value: tap them in." }),
      button("Fire-Breather", { id: "ds-burn-fire", onTap: () => burn("fire_breather"),
                                reason: local.burned.fire_breather ? reasonFor(s, "burned")
                                  : "A pile burned by a Fire-Breather holds it: tap “Fire”." }),
      button("✕", { cls: "ghost", id: "ds-cards-cancel", "aria-label": "Cancel", onTap: show }));
  } else {
    actions.replaceChildren(
      button("4 from a hand", { id: "ds-set-out", reason: playing ? reasonFor(s, "set_out") : notNow,
                                onTap: () => cardsMode("set") }),
      button("Pile burned…", { id: "ds-burned", reason: playing ? reasonFor(s, "burned") : notNow,
                               onTap: () => cardsMode("burn") }));
  }
}

function showTricks(s) {
  return dialog((close) => [
    h("p", { class: "big" }, `Tricks in play: ${s.tricks.length} of 7`),
    h("dl", { class: "ds-trick-reminders" }, ...s.tricks.flatMap((t) => [h("dt", {}, t.name), h("dd", {}, t.reminder)])),
    h("div", { class: "row" }, button("Close", { cls: "primary", id: "ds-tricks-close", onTap: () => close() })),
  ]);
}

function renderTricks(view, s) {
  const box = $("ds-tricks");
  box.hidden = !s.options.tricks;
  if (box.hidden) return;
  // One button of short tags, a few lines however many tricks are revealed: the trackers below stay on screen.
  box.replaceChildren(button([
    h("span", { class: "ds-tricks-head" }, "Tricks ", h("small", {}, `${s.tricks.length} of 7`)),
    s.tricks.length ? h("span", { class: "ds-trick-list", id: "ds-trick-list" }, ...[...s.tricks]
      .sort((a, b) => TRICK_ORDER.indexOf(a.id) - TRICK_ORDER.indexOf(b.id)).map((t) =>
      h("span", { class: "ds-trick", dataset: { trick: t.id }, title: t.reminder }, SHORT[t.id] || t.name)))
      : h("span", { class: "muted" }, "none revealed yet"),
  ], { cls: "ds-tricks-button", id: "ds-tricks-open", "aria-label": `Tricks in play: ${s.tricks.length} of 7`,
       reason: s.tricks.length ? null : ["No trick is revealed yet: one is revealed at the start of every round.", "S9"],
       onTap: () => showTricks(s) }));
}

// ---- the round's end ------------------------------------------------------------------------------------------------

/** A player's coins (and 8s) by keypad: the event, or nothing when cancelled. */
async function enterCoins(view, player, feathers) {
  const label = feathers ? `${player}: coins on the cards other than 8s` : `${player}: coins on hand and reserve`;
  const coins = await keypad(label, { min: 0, max: 99 });
  if (coins == null) return null;
  const event = { type: "coins", player, coins };
  if (feathers) {
    const eights = await keypad(`${player} (${plural(coins, "coin")}): 8s still held`, { min: 0, max: MAX_EIGHTS });
    if (eights == null) return null;
    event.eights = eights;
  }
  return event;
}

function lossOf(s, coins, eights) {
  return Math.min(s.round_cap, coins) - (s.golden_feathers ? eights || 0 : 0);
}

/** How a loss came from the coins (S3, golden feathers): " (12 capped at 10, less 2 for the 8s)", " (5, less 1 for
 *  the 8s)", " (for the 8s)", or nothing where the loss is the coins. */
function lossDetail(s, coins, eights) {
  const back = s.golden_feathers ? eights || 0 : 0;
  const parts = [];
  if (coins > s.round_cap) parts.push(`${coins} capped at ${s.round_cap}`);
  else if (back && coins) parts.push(`${coins}`);
  if (back) parts.push(coins ? `less ${back} for the 8s` : "for the 8s");
  return parts.length ? h("small", {}, ` (${parts.join(", ")})`) : null;
}

/** A round's loss in words: "loses 3", "loses nothing", or with golden feathers, 8s worth more, "gets 2 back". */
function lossWords(loss) {
  return loss > 0 ? `loses ${loss}` : loss < 0 ? `gets ${-loss} back` : "loses nothing";
}

function renderScoring(view, s) {
  const box = $("ds-scoring");
  box.hidden = s.phase !== "scoring";
  if (box.hidden) return;
  const feathers = s.golden_feathers;
  box.replaceChildren(
    h("h3", {}, who(view, s.finisher), " went out and loses nothing. ",
      h("small", {}, feathers ? "Each other player: coins on the other cards, then the 8s held."
        : "Each other player: coins on hand and available reserve.")),
    h("div", { class: "ds-coin-rows", id: "ds-coins" }, ...view.players.filter((p) => p !== s.finisher).map((p) => {
      const coins = s.coins[p];
      const done = coins != null;
      const eights = feathers ? `, ${plural(s.eights[p] || 0, "eight")}` : ""; // "2 eights", not "2 8s"
      return h("div", { class: `ds-coin-row${done ? " done" : ""}`, dataset: { player: p } },
        who(view, p, "who name"),
        done ? h("span", { class: "ds-entered" }, `${plural(coins, "coin")}${eights}`,
          h("strong", {}, ` → ${lossWords(lossOf(s, coins, s.eights[p]))}`), lossDetail(s, coins, s.eights[p]))
          // named by its words as seen, and whose coins ("Coins for Ben…")
          : button(`${feathers ? "Coins and 8s" : "Coins"}…`, { cls: "primary", dataset: { coins: p },
            "aria-label": `${feathers ? "Coins and 8s" : "Coins"} for ${p}…`,
            onTap: () => game.ask(() => enterCoins(view, p, feathers)) }));
    })));
}

function endCheck(view, s) {
  const top = Math.max(...view.players.map((p) => view.scores[p] ?? 0));
  if (s.extra_round) {
    const fewest = Math.min(...view.players.map((p) => view.scores[p] ?? 0));
    const tied = view.players.filter((p) => view.scores[p] === fewest);
    const over = view.players.filter((p) => (view.scores[p] ?? 0) >= s.limit);
    return [...whoList(view, over), ` ${over.length === 1 ? "has" : "have"} lost ${s.limit} or more, but `,
      ...whoList(view, tied),
      ` tie for the fewest (${fewest}): one more round.`];
  }
  return top >= s.limit ? [] : [`Nobody has lost ${s.limit} yet (most: ${top}).`];
}

function renderLast(view, s) {
  const last = s.last_round;
  const box = $("ds-last");
  box.hidden = !last || s.phase !== "setup";
  if (box.hidden) return;
  const parts = view.players.filter((p) => p !== last.finisher).map((p) => {
    const loss = last.losses[p];
    const coins = last.coins[p];
    return [who(view, p), ` ${lossWords(loss)}`, lossDetail(s, coins, last.eights[p])].filter(Boolean);
  });
  box.replaceChildren(h("strong", {}, `Round ${last.number}: `), who(view, last.finisher), " went out. ",
    ...parts.flatMap((part, i) => [i ? ", " : "", ...part]), ". ", ...endCheck(view, s));
}

// ---- the chart ---------------------------------------------------------------------------------------------------

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

/** The shape ending each player's line, by seat, and the same shape before their name in the legend: the lines
 *  differ by shape and name, not by colour alone. */
const SHAPES = ["circle", "square", "triangle", "diamond", "down", "star"];

/** A player's shape at (`cx`, `cy`), about `r` in radius, in `colour`. */
function marker(shape, cx, cy, r, colour) {
  const at = (pts) => pts.map(([px, py]) => `${(cx + px * r).toFixed(1)},${(cy + py * r).toFixed(1)}`).join(" ");
  const star = [...Array(10)].map((_, i) => {
    const a = -Math.PI / 2 + (i * Math.PI) / 5, k = i % 2 ? 0.45 : 1.15;
    return [k * Math.cos(a), k * Math.sin(a)];
  });
  const polygons = { triangle: [[0, -1.2], [1.1, 0.8], [-1.1, 0.8]], diamond: [[0, -1.25], [1.1, 0], [0, 1.25], [-1.1, 0]],
                     down: [[-1.1, -0.8], [1.1, -0.8], [0, 1.2]], star };
  const attrs = { fill: colour, class: "ds-mark", "data-shape": shape };
  if (shape === "circle") return svg("circle", { cx, cy, r, ...attrs });
  if (shape === "square") return svg("rect", { x: cx - 0.85 * r, y: cy - 0.85 * r, width: 1.7 * r, height: 1.7 * r, ...attrs });
  return svg("polygon", { points: at(polygons[shape]), ...attrs });
}

const shapeOf = (view, p) => SHAPES[Math.max(0, view.players.indexOf(p)) % SHAPES.length];

/** A player's key, before their name on the score board and the final totals (kit.js `mark`): the shape their line
 *  ends in, so that those boards are the chart's legend, with names. */
function mark(view, p) {
  return svg("svg", { viewBox: "-7 -7 14 14", class: "ds-key", "aria-hidden": "true", "data-player": p },
    marker(shapeOf(view, p), 0, 0, 5, colourOf(view, p)));
}

/** How far apart two end marks must stand (in the chart's units) not to overlap: a shape of radius 7 with its
 *  outline is at most 18 wide (the star) and 19 high (the diamond). */
const MARK_WIDE = 18;
const MARK_HIGH = 19;

/** Where each line's end mark stands: at the line's end, or, where it would cover a mark already placed (two
 *  players who lost the same, or nearly), beside it towards the middle of the chart (to the left of the last round,
 *  to the right before the first), so that every player's shape is seen whole. */
function markSpots(ends, middle) {
  const placed = [];
  return ends.map(([ex, ey]) => {
    const step = ex > middle ? -MARK_WIDE : MARK_WIDE;
    let mx = ex;
    while (placed.some(([px, py]) => Math.abs(px - mx) < MARK_WIDE && Math.abs(py - ey) < MARK_HIGH)) mx += step;
    placed.push([mx, ey]);
    return [mx, ey];
  });
}

/** The axis numbers' size in the chart's units (kiosk.css .ds-tick, the largest it sets): 13 px where the chart is
 *  narrowest, beside the score board on the Pi's screens (124 px wide, at .52 of its units). The chart's edges leave
 *  them room, two digits whole. */
const TICK = 26;

/** Each player's running loss per round as lines, each ending in its player's shape, with the end line (21)
 *  dashed. The shapes are drawn over every line, each clear of the others. */
function chart(view, s) {
  const rounds = Math.max(0, ...view.players.map((p) => s.running[p]?.length || 0));
  const values = view.players.flatMap((p) => s.running[p] || []);
  const top = Math.max(s.limit + 3, ...values);
  const bottom = Math.min(0, ...values);
  // room for a shape at the ends, for the limit's number left of the lines and the rounds' under them
  const W = 240; const H = 130; const L = Math.ceil(1.3 * TICK) + 4; const R = Math.ceil(.65 * TICK) + 1; const T = 10;
  const B = TICK + 9;
  const x = (i) => L + (rounds ? (i / rounds) * (W - L - R) : 0);
  const y = (v) => T + ((top - v) / (top - bottom)) * (H - T - B);
  const grid = [
    svg("line", { x1: L, x2: W - R, y1: y(0), y2: y(0), class: "ds-axis" }),
    svg("line", { x1: L, x2: W - R, y1: y(s.limit), y2: y(s.limit), class: "ds-limit" }),
    svg("text", { x: L - 3, y: y(s.limit) + .36 * TICK, class: "ds-tick", "text-anchor": "end" }, String(s.limit)),
    svg("text", { x: L - 3, y: y(0) + .36 * TICK, class: "ds-tick", "text-anchor": "end" }, "0"),
  ];
  // every round's number where one digit each has room, else every step-th (two digits apart) and the last
  const step = Math.ceil((1.4 * TICK * rounds) / (W - L - R));
  for (let i = 1; i <= rounds; i++) {
    if (rounds <= Math.floor((W - L - R) / (.8 * TICK)) || (i % step === 0 && rounds - i >= step) || i === rounds) {
      grid.push(svg("text", { x: x(i), y: H - Math.ceil(.25 * TICK), class: "ds-tick", "text-anchor": "middle" },
                    String(i)));
    }
  }
  const title = (p) => svg("title", {}, `${p}: ${(s.running[p] || []).join(", ") || "no round yet"}`);
  const points = view.players.map((p) => [0, ...(s.running[p] || [])].map((v, i) => [x(i), y(v)]));
  const lines = view.players.map((p, k) => svg("g", { "data-player": p },
    svg("polyline", { points: points[k].map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" "),
                      fill: "none", stroke: colourOf(view, p), "stroke-width": 2.5, "stroke-linejoin": "round" }),
    title(p)));
  const spots = markSpots(points.map((pts) => pts.at(-1)), W / 2);
  // the shapes over every line, 7 in radius: big enough to tell them apart
  const marks = view.players.map((p, k) => svg("g", { "data-player": p },
    marker(shapeOf(view, p), Number(spots[k][0].toFixed(1)), Number(spots[k][1].toFixed(1)), 7, colourOf(view, p)),
    title(p)));
  const lost = view.players.map((p) => `${p} (${shapeOf(view, p)}) ${(s.running[p] || []).at(-1) ?? 0}`).join(", ");
  return svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "ds-chart-svg", role: "img",
                      "aria-label": `Coins lost after each round; ${s.limit} ends the game. So far: ${lost}` },
  ...grid, ...lines, ...marks);
}

function renderCharts(view, s) {
  const played = Object.values(s.running || {}).some((r) => r.length);
  $("ds-chart").replaceChildren(chart(view, s),
    h("figcaption", {}, played ? `after each round · ${s.limit} ends` : `${s.limit} ends the game`));
  let final = $("ds-final-chart");
  if (!final) {
    final = h("figure", { class: "ds-chart ds-final-chart", id: "ds-final-chart",
                          "aria-label": "Coins lost per round" });
    $("final").querySelector(".final-grid").append(final); // under the totals, beside the table (kiosk.css)
  }
  if (view.finished) {
    final.replaceChildren(chart(view, s),
      h("figcaption", {}, `Coins lost after each round · ${s.limit} ended the game · the fewest wins`));
  }
  fitTicks();
}

/** Both charts' axis numbers, in play and on the final screen, drawn at 13 to 14 px on every screen: as many of the
 *  chart's units (TICK at most) as the scale it is drawn at needs, measured anew whenever the chart's size changes
 *  (the page laid out, a board closing up beside it, the final screen shown, a phone turned). */
const tickSizes = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    const scale = target.getScreenCTM()?.a;
    if (scale) target.style.setProperty("--ds-tick", `${Math.min(TICK, Math.ceil(13.5 / scale))}px`);
  }
});

/** The charts just drawn, sized as they are drawn (tickSizes). */
function fitTicks() {
  tickSizes.disconnect();
  for (const drawing of document.querySelectorAll(".ds-chart .ds-chart-svg")) tickSizes.observe(drawing);
}

/** How the game was won, on the final screen: the fewest coins lost, once someone lost the limit or more (S4). */
function why(view) {
  const s = view.state;
  if (!s?.finished) return "";
  const over = view.players.filter((p) => (view.scores[p] ?? 0) >= s.limit);
  return `The fewest coins lost win. ${andList(over)} lost ${s.limit} or more, which ended the game.`;
}

// ---- long names on a small screen ---------------------------------------------------------------------------

const cutShort = (el) => wordsWidth(el) > el.getBoundingClientRect().width + 0.01;

/** Whether a row's hindrance buttons are narrower than their labels. */
const squeezed = (row) => [row.querySelector(".ds-kinds"), ...row.querySelectorAll(".ds-choice")]
  .some((el) => el && el.scrollWidth > el.clientWidth + 1);

/** Under Chaos each player's name breaks between its words only (kiosk.css), in a column beside the row's buttons (two
 *  columns of them on the Pi's screens, two players a line): where a word of a name is wider than its column
 *  ("Bartholomäus" on the 800x480 screen), each column of names is as wide as its widest word (kiosk.css,
 *  --ds-name-room-1 and -2: a long name on two lines or three, no higher than its buttons) while the buttons beside
 *  them keep their labels whole; where they would not, the names of one column keep their room (the narrower's first)
 *  and a name with a word wider than its column takes the row's whole width, above its buttons (a line more); where
 *  the buttons still would not, every such name does. So two long names, one in each column ("Bartholomäus
 *  Drachenherz" beside "Zdeňka Nováková-Dvořákov"), stand beside their buttons, or one of them does. */
function fitChaosNames() {
  const box = document.querySelector("#ds-chaos.ds-chaos");
  const rows = [...document.querySelectorAll("#ds-chaos .ds-chaos-row")];
  const ROOMS = ["--ds-name-room-1", "--ds-name-room-2"];
  const cutNames = () => rows.filter((row) => row.querySelector(".name") && cutShort(row.querySelector(".name")));
  /** The names laid out in columns of `rooms` (px; none: the column's own width), a name still cut short above its
   *  buttons: whether every row's buttons then keep their labels whole. */
  const lay = (rooms) => {
    ROOMS.forEach((room, i) => (rooms[i] ? box.style.setProperty(room, `${rooms[i]}px`)
      : box.style.removeProperty(room)));
    for (const row of rows) row.classList.remove("ds-name-above");
    for (const row of cutNames()) row.classList.add("ds-name-above");
    return !rows.some(squeezed) && box.scrollWidth <= box.clientWidth + 1;
  };
  if (!box) return;
  lay([]);
  if (!rows.some((row) => row.classList.contains("ds-name-above"))) return; // every name whole in its column
  // each column's room: its names' widest word, and the row's own padding before it (the second of a line's)
  const columns = new Map();
  for (const row of rows) {
    const at = Math.round(row.getBoundingClientRect().left);
    const room = widestWord(row.querySelector(".name")) + parseFloat(getComputedStyle(row).paddingLeft);
    columns.set(at, Math.max(columns.get(at) ?? 0, Math.ceil(room) + 1));
  }
  const rooms = [...columns].sort(([a], [b]) => a - b).map(([, room]) => room).slice(0, ROOMS.length);
  const narrower = rooms.indexOf(Math.min(...rooms));
  const tries = [rooms, rooms.map((room, i) => (i === narrower ? room : null)),
    rooms.map((room, i) => (i === narrower ? null : room))];
  if (!tries.some(lay)) lay([]);
}

/** A Defender for each player who skips names them on its button, breaking between words only (kiosk.css): where a
 *  word is wider than a button beside the others ("Bartholomäus" on the 800x480 screen), the buttons take a line
 *  each, the tile's whole width. */
function fitDefenders() {
  const box = document.querySelector("#ds-skips .ds-tile-buttons");
  if (!box) return;
  box.classList.remove("ds-one-a-line");
  if ([...box.querySelectorAll(".ds-defender .who")].some(cutShort)) box.classList.add("ds-one-a-line");
}

/** The set-up's hint once it is entered ("The round is set up: a tracker tap starts play.") where the screen has room
 *  for it: on the 800x480 screen long names, and every player's card under Chaos, may leave none, and the trackers
 *  come first (Next turn, lit, says that play can start). A page that scrolls all the same (a phone) keeps it. */
function fitSetupHint() {
  const hint = document.querySelector("#ds-setup .ds-facts > #ds-setup-hint");
  if (!hint) return;
  hint.hidden = false;
  if (pastTheFoot() <= 0) return;
  hint.hidden = true;
  if (pastTheFoot() > 0) hint.hidden = false; // the page scrolls without it too
}

/** The round's names fitted to the room the round has. */
function fitRound() {
  fitChaosNames();
  fitDefenders();
  fitTurnName();
}

/** The ways the page makes room on a small screen, each a class on the game's grid (kiosk.css): the score board closed
 *  up (its scores a size smaller, each long name under its key and score), the chart under it giving way to it, and
 *  the last round's losses giving way to the set-up; for five long names or more among six or seven players, the
 *  board tighter still (its names' lines and its scores closer) and, under Chaos, the players' rows too (each long
 *  name in plain letters rather than bold, the hindrances' labels at 13 px, the round's sides narrower), so that each
 *  name stays beside its three hindrances. */
const ROOM = ["ds-board-close", "ds-chart-gives-way", "ds-last-gives-way", "ds-board-tight", "ds-chaos-tight"];
/** Every class a fitting may leave on the game's grid: the ways of ROOM, and the side's stepping aside or closing up. */
const FITTED = [...ROOM, "ds-side-aside", "ds-side-close"];

/** Long names on the 800x480 screen: on the score board each took the whole width of its row, its key on a line above
 *  it and its score on a line under it, so that with seven players, or two long names under Chaos, the board reached
 *  below the screen's foot (by 37 and 51 px), and under Chaos the round beside it too; five long names or more among
 *  six or seven players under Chaos, each above its hindrances, left the page 86 to 300 px too long. Where the page
 *  reaches below the screen, the first of these ways that fits it is taken, the least first: the board closed up
 *  (where it stands beside the round), the last round's losses giving way to the set-up, both, the chart giving way
 *  too, the board tighter, the players' rows under Chaos too; each with the names fitted anew in the room it leaves.
 *  Where none fits (a phone, whose page scrolls all the same), none. While the set-up asks something, the tricks and
 *  the cards out of the game keep their place beside the round wherever it fits so, and step aside only where it does
 *  not: the set-up's last answer then moves nothing over. */
function fitRoom() {
  const grid = $("play");
  grid.classList.remove(...FITTED);
  if (closeRoom(grid) <= 0) return;
  // the set-up's questions still reach below the foot: the tricks and the cards out step aside (kiosk.css); in play,
  // where the tricks and the cards out themselves reach below it (all seven tricks in play), the note on what the
  // cards out are gives way (kiosk.css), their heading and keys say it
  const setup = document.querySelector("#ds-setup:not([hidden]) .ds-step");
  grid.classList.add(setup ? "ds-side-aside" : "ds-side-close");
  closeRoom(grid);
}

/** The first of the ways of making room (ROOM) that fits the page, the names fitted in each; how far the page then
 *  reaches below the screen's foot. */
function closeRoom(grid) {
  fitRound();
  if (pastTheFoot() <= 0) return 0;
  const board = grid.querySelector(".scores").getBoundingClientRect().right <= $("round").getBoundingClientRect().left;
  const last = $("ds-last").checkVisibility();
  const chaos = Boolean(document.querySelector("#ds-chaos .ds-chaos-row"));
  const most = ["ds-board-close", "ds-chart-gives-way", ...(last ? ["ds-last-gives-way"] : [])];
  const tries = [board && ["ds-board-close"], last && ["ds-last-gives-way"],
    board && last && ["ds-board-close", "ds-last-gives-way"], board && ["ds-board-close", "ds-chart-gives-way"],
    board && last && most, board && [...most, "ds-board-tight"],
    board && chaos && [...most, "ds-board-tight", "ds-chaos-tight"]].filter(Boolean);
  closeUp(grid, tries, { each: fitRound }); // the names fitted in the room each way leaves
  return pastTheFoot();
}

/** The round drawn, its names and the set-up's hint fitted to the screen as it is. */
function fitToScreen() {
  if ($("play").hidden) return; // the final screen: the kit fits it
  const hint = document.querySelector("#ds-setup .ds-facts > #ds-setup-hint");
  if (hint) hint.hidden = true; // the hint last: it takes the room the rest leaves
  shortenWhy(false);
  const ways = () => FITTED.filter((way) => $("play").classList.contains(way)).length;
  fitRoom();
  const whole = pastTheFoot() > 0 ? Infinity : ways(); // said whole, the room the page needs made, or none fits
  if (whole && shortenWhy(true)) {
    fitRoom();
    if (pastTheFoot() > 0 || ways() >= whole) { shortenWhy(false); fitRoom(); } // no better: said whole
  }
  fitSetupHint();
}

// ---- the page ----------------------------------------------------------------------------------------------------

function render(view, g) {
  game = g;
  const s = view.state;
  if (!s) return; // set aside: the notice says why
  if (s.phase !== "play" && s.phase !== "setup") {
    setMode("cards", "show");
    setMode("wentOut", false);
  }
  $("ds-lost-note").textContent = `coins lost · fewest wins · ${s.limit} ends`;
  document.body.dataset.phase = s.phase;
  document.body.dataset.game = view.game;
  renderCharts(view, s);
  renderTricks(view, s);
  if (s.phase === "finished") return;
  renderSetup(view, s);
  renderTrackers(view, s);
  renderScoring(view, s);
  renderLast(view, s);
  renderCards(view, s);
}

// fitted once the kit has drawn the page (and on every resize): the round's parts decide the names' room
game = startGame({ render, phrase, why, mark, fit: fitToScreen });
