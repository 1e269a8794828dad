// Drachen Wurf on the page kit. The dice and tiles are on the table; the page takes what happened, one tap at a
// time: the tiles that came up (a 6x6 grid, tap = flip), the W8 removal with 2 players, securing the base tile by
// tile into hoard rows (the legal rows light up with what each would score), what the dice won (the tile, then
// the number of matching dice; an egg may have doubled a die), the egg move and the end of the turn.
import {
  button, closeUp, colourOf, explain, fitTurnName, h, icon, pastTheFoot, plural, setText, startGame, who, wire,
} from "../kit.js";

const SPRITE = "/static/games/drachen-wurf.svg";
const SIDES = [2, 3, 4, 5, 6];
const DICE = 6;
const $ = (id) => document.getElementById(id);

// Six dragon colours that stay apart for colour-blind eyes (Okabe-Ito), each with the ink its symbol is drawn
// in. A colour the table named after a known colour word is shown in that colour; the others take the rest.
const COLOURS = {
  red: { hex: "#D55E00", ink: "#111", words: ["red", "rot", "červen", "cerven", "rouge", "rojo", "rosso"] },
  blue: { hex: "#0072B2", ink: "#fff", words: ["blue", "blau", "modr", "bleu", "azul", "blu"] },
  green: { hex: "#009E73", ink: "#111", words: ["green", "grün", "gruen", "zelen", "vert", "verde"] },
  yellow: { hex: "#F0E442", ink: "#111", words: ["yellow", "gelb", "žlut", "zlut", "jaune", "gold"] },
  purple: { hex: "#CC79A7", ink: "#111", words: ["purple", "violet", "lila", "fial", "pink", "rosa", "magenta"] },
  black: { hex: "#1B1B1B", ink: "#fff", words: ["black", "schwarz", "čern", "cern", "noir", "negro", "nero"] },
  white: { hex: "#F2F2F2", ink: "#111", words: ["white", "weiß", "weiss", "bíl", "bil", "blanc"] },
  orange: { hex: "#E69F00", ink: "#111", words: ["orange", "oranž", "oranz"] },
  sky: { hex: "#56B4E9", ink: "#111", words: ["sky", "cyan", "türkis", "turquoise", "hellblau"] },
};
const DEFAULT_COLOURS = ["red", "blue", "green", "yellow", "purple", "black"];

// The landscape symbols of the sprite; a landscape named after a known word gets its symbol.
const LANDSCAPES = {
  mountains: ["mountain", "hill", "berg", "gebirge", "hor", "rock", "fels", "skal", "alp"],
  forest: ["forest", "wood", "wald", "les", "tree", "baum", "jungle", "dschungel", "hain"],
  water: ["water", "sea", "lake", "river", "ocean", "meer", "see", "wasser", "fluss", "moř", "mor", "voda",
          "jezer", "řek", "rek", "coast", "küste", "swamp", "sumpf", "bažin", "marsh"],
  desert: ["desert", "sand", "wüste", "wuste", "pouš", "pous", "dune", "düne", "steppe", "plain", "savan"],
  ice: ["ice", "snow", "eis", "schnee", "led", "sníh", "snih", "glacier", "frost", "winter", "gletscher"],
  volcano: ["volcan", "vulkan", "sopk", "fire", "feuer", "lava", "oheň", "ohen"],
};
const DEFAULT_LANDSCAPES = ["mountains", "forest", "water", "desert", "ice", "volcano"];

/** For each of the six names, a key of `table`: by a known word in the name, else the first one left. */
function assign(names, table, defaults) {
  const words = (name) => String(name).toLowerCase().split(/[^\p{L}]+/u).filter(Boolean);
  const chosen = names.map((name) => Object.keys(table).find((key) =>
    words(name).some((w) => (table[key].words || table[key]).some((k) => w.startsWith(k)))) || null);
  const taken = new Set();
  const unique = chosen.map((key) => (key && !taken.has(key) ? (taken.add(key), key) : null));
  const rest = [...defaults, ...Object.keys(table)].filter((key) => !taken.has(key));
  return unique.map((key) => key || rest.shift());
}

let view = JSON.parse($("session-data").textContent);
let look = { colours: [], landscapes: [], faces: [] };
let lookFor = "";
// what this page holds between taps; each is checked against the view on every render
let pick = null;        // the tile the dice won, before its k: {tile, from, side}
let eggOn = false;      // "an egg doubled a die" for the next win
let chosen = null;      // the tile being secured, or moved by an egg
let moving = false;     // the egg move is being entered
let turnSeen = null;

const st = () => view.state;
const colourIx = (t) => Math.floor(t / 6);
const landIx = (t) => t % 6;
const colourName = (t) => st().colour_names[colourIx(t)];
const landName = (t) => st().landscape_names[landIx(t)];
const tileName = (t) => `${colourName(t)} dragon on ${landName(t)}`;
const fields = (t) => ({ colour: colourIx(t) + 1, landscape: landIx(t) + 1 });

function refreshLook() {
  const key = JSON.stringify([st().colour_names, st().landscape_names]);
  if (key === lookFor) return;
  lookFor = key;
  look = { colours: assign(st().colour_names, COLOURS, DEFAULT_COLOURS).map((k) => COLOURS[k]),
           landscapes: assign(st().landscape_names, LANDSCAPES, DEFAULT_LANDSCAPES),
           faces: faceNames(st().colour_names) };
}

/** The colours' names as the face of a tile shows them, large enough to read across the table on its 48 px: a
 *  numbered one short ("C3" for "Colour 3"), one of up to four letters whole ("Red", "Blau"), a longer one cut to
 *  three letters and a dot ("Yel.", "Sch."), or to as many more as tell it from another colour's ("Čern.", "Červ."). */
function faceNames(names) {
  const texts = names.map((name) => [...String(name).trim()]);
  const start = (letters, n) => letters.slice(0, n).join("").toLowerCase();
  return texts.map((letters, i) => {
    const text = letters.join("");
    const numbered = text.match(/^(\S)\S*\s+(\d+)$/);
    if (numbered) return `${numbered[1]}${numbered[2]}`;
    if (letters.length <= 4) return text;
    let n = 3;
    while (n < letters.length && texts.some((other, j) => j !== i && start(other, n) === start(letters, n))) n++;
    return n < letters.length ? `${letters.slice(0, n).join("")}.` : text;
  });
}

/** A short form of a colour's name in a line of text: "Red", "Blue", "C3" for "Colour 3". */
function shortName(name) {
  const text = String(name).trim();
  const numbered = text.match(/^(\S)\S*\s+(\d+)$/);
  if (numbered) return `${numbered[1]}${numbered[2]}`;
  return text.length <= 6 ? text : text.slice(0, 5);
}

/** A colour's or landscape's name at the grid's edge: whole ("Mountains", cut by the page only where it must be),
 *  a numbered one short ("L1" for "Landscape 1"). */
function headName(name) {
  const text = String(name).trim();
  return /^\S+\s+\d+$/.test(text) ? shortName(text) : text;
}

const symbol = (id, cls = "wsym") => icon(id, cls, SPRITE);

const landSymbol = (ix, cls) => symbol(look.landscapes[ix], cls);

function tileStyle(t) {
  const c = look.colours[colourIx(t)];
  return { "--tc": c.hex, "--ti": c.ink };
}

/** A tile: a button when `onTap` or `reason` is given, else a picture. */
function tile(t, { onTap = null, reason = null, cls = "", mini = false, note = null, said = null } = {}) {
  const face = [landSymbol(landIx(t)), mini ? null : h("span", { class: "cn" }, look.faces[colourIx(t)]),
                note ? h("span", { class: "tnote" }, note) : null];
  const classes = `wtile${mini ? " mini" : ""} ${cls}`.trim();
  // `said`: what the tile's marks say, after its name ("can be stolen")
  const name = said ? `${tileName(t)}: ${said}` : tileName(t);
  const props = { style: tileStyle(t), dataset: { tile: t }, "aria-label": name, title: name };
  if (onTap || reason) return button(face, { ...props, cls: classes, onTap, reason });
  return h("span", { ...props, class: classes, role: "img" }, ...face);
}

// ---- the header line and the hint --------------------------------------------------------------------------

function phrase(v) {
  const s = v.state;
  if (!s) return "";
  const extra = s.current?.extra_turn ? " again (6 dice)" : "";
  return {
    flip: `flips ${plural(s.to_flip, "tile")}${extra}`,
    remove: "removes a tile",
    secure: "secures the base",
    bonus: "puts the 6-dice tile in the hoard",
    dice: `rolls the dice${extra}`,
    moved: "ends the turn",
  }[s.phase] || "";
}

function hint(s, active) {
  switch (s.phase) {
    case "flip": return `Tap each tile that came up: ${plural(s.to_flip, "more tile")} to show in the middle.`;
    case "remove": return `${active} removes one of the ${s.shown} shown tiles from the game: tap it.`;
    case "secure": return "Every tile on the base goes into the hoard, one by one.";
    case "bonus": return "Won with 6 dice: it goes straight into the hoard, and another turn follows.";
    case "dice": return moving ? `Egg move: tap a hoard tile, then the row it moves to. It ends the turn${
      s.current?.dice_left ? `, with ${plural(s.current.dice_left, "die", "dice")} unused` : ""}.`
      : `Tap the tile the dice won, then the number of matching dice.${s.current?.bonus
        ? " 6 dice on one tile: another turn follows." : ""}`;
    case "moved": return "The egg moved a hoard tile: that ends the turn.";
    default: return "";
  }
}

// ---- the 6x6 grid of tiles: tap the one that came up -----------------------------------------------------

function renderFlip(s) {
  const step = $("flip-step");
  step.hidden = s.phase !== "flip";
  $("flip-middle").hidden = step.hidden;
  if (step.hidden) return;
  const places = s.tiles;
  const cells = [h("span", { class: "corner" })];
  for (let l = 0; l < 6; l++) {
    cells.push(h("span", { class: "colhead", title: s.landscape_names[l] }, landSymbol(l),
      h("span", {}, headName(s.landscape_names[l]))));
  }
  for (let c = 0; c < 6; c++) {
    const hex = look.colours[c].hex;
    cells.push(h("span", { class: "rowhead", style: { "--tc": hex }, title: s.colour_names[c] }, h("span", { class: "sw" }),
      h("span", {}, headName(s.colour_names[c]))));
    for (let l = 0; l < 6; l++) {
      const t = c * 6 + l;
      const spot = places[t].place;
      if (spot.where === "face_down") {
        cells.push(tile(t, { onTap: () => game.send({ type: "flip", ...fields(t) }) }));
      } else {
        const mark = { middle: "up", removed: "✕", base: "B", hoard: "H", bonus: "H" }[spot.where];
        const owner = spot.player ? { "--oc": colourOf(view, spot.player) } : {};
        cells.push(h("span", { class: `wtile gone ${spot.where}`, style: { ...tileStyle(t), ...owner }, dataset: { tile: t },
                               title: `${tileName(t)}: ${spot.where.replace("_", " ")}${spot.player ? ` (${spot.player})` : ""}` },
          landSymbol(l), h("span", { class: "tnote" }, mark)));
      }
    }
  }
  $("flip-grid").replaceChildren(...cells);
  $("flip-middle").replaceChildren(h("span", { class: "label" }, `Up: ${s.middle.length} of ${s.shown}`),
    h("span", { class: "wurf-tiles" }, ...s.middle.map((t) => tile(t))));
}

// ---- the middle ---------------------------------------------------------------------------------------------

function winTarget(t, from, side = null) {
  return () => {
    pick = pick && pick.tile === t ? null : { tile: t, from, side };
    game.render();
    const dice = $("dice-step").getBoundingClientRect(); // on a phone, a base lies far below "how many dice?"
    if (pick && (dice.top < 0 || dice.bottom > window.innerHeight)) $("dice-step").scrollIntoView({ block: "nearest" });
  };
}

function renderMiddle(s) {
  const step = $("middle-step");
  step.hidden = ["flip", "secure", "bonus", "moved"].includes(s.phase) || (s.phase === "dice" && moving);
  $("middle-note").textContent = `${plural(s.pile, "tile")} face down · ${s.removed.length} removed`;
  const tiles = s.middle.map((t) => {
    if (s.phase === "remove") {
      return tile(t, { cls: "remove", onTap: () => game.send({ type: "remove", ...fields(t) }) });
    }
    if (s.phase === "dice") {
      const ok = s.max_k >= 2;
      return tile(t, { cls: pick?.tile === t ? "picked" : "", onTap: ok ? winTarget(t, "middle") : null,
                       reason: ok ? null : "All 6 dice are used this turn: end the turn." });
    }
    return tile(t);
  });
  $("middle").replaceChildren(...(tiles.length ? tiles : [h("span", { class: "muted" }, "empty")]));
}

// ---- securing the base, and the egg move: a tile, then its row ---------------------------------------------

function rowTiles(row) {
  return h("span", { class: "rowtiles" }, ...row.map((t) => tile(t, { mini: true })));
}

/** Why `t` may not join `row` (W6): it shares neither colour nor landscape with the row. */
function rowRefusal(t, row, number) {
  if (!row.length) return `Row ${number} is empty.`;
  return [`The ${tileName(t)} shares neither colour nor landscape with row ${number}.`, "W6"];
}

/** A button per hoard row and one for a new row: legal ones light up with the score they give. */
function rowButtons(t, rows, choices, send, whyNot = null, withTiles = true) {
  const best = Math.max(...choices.map((c) => c.gain));
  const by = new Map(choices.map((c) => [c.row, c]));
  const gainText = (c) => `${c.gain >= 0 ? "+" : ""}${c.gain} → ${c.score}`;
  const buttons = rows.map((row, i) => {
    const c = by.get(i + 1);
    return button([h("span", { class: "rowno" }, `Row ${i + 1}`), withTiles ? rowTiles(row) : null,
                   h("span", { class: "gain" }, c ? gainText(c) : "—")], {
      cls: `rowtarget${c && c.gain === best ? " best" : ""}`, dataset: { row: i + 1 },
      reason: c ? null : (whyNot?.(i + 1) || rowRefusal(t, row, i + 1)),
      onTap: () => send(i + 1),
    });
  });
  const fresh = by.get(null);
  buttons.push(button([h("span", { class: "rowno" }, "New row"), fresh ? h("span", { class: "gain" }, gainText(fresh)) : null], {
    cls: `rowtarget newrow${fresh && fresh.gain === best ? " best" : ""}`, dataset: { row: "new" },
    reason: fresh ? null : `The ${tileName(t)} is alone in its row already.`,
    onTap: () => send(null),
  }));
  return buttons;
}

function renderSecure(s, active) {
  const step = $("secure-step");
  const securing = s.phase === "secure" || s.phase === "bonus";
  const egg = s.phase === "dice" && moving;
  step.hidden = !securing && !egg;
  if (step.hidden) return;
  const rows = s.hoards[active].rows;
  if (securing) {
    const pending = Object.keys(s.placements).map(Number);
    if (!pending.includes(chosen)) chosen = pending[0] ?? null;
    const base = s.bases[active];
    const sideOf = (t) => SIDES.find((k) => (base[k] || []).includes(t));
    $("secure-title").replaceChildren(s.phase === "bonus" ? "Into the hoard: the tile won with 6 dice"
      : `Secure the base: ${plural(pending.length, "tile")} left`, h("small", {}, " tap a tile, then its row"));
    $("secure-tiles").replaceChildren(...pending.map((t) => tile(t, {
      cls: t === chosen ? "picked" : "", note: s.phase === "bonus" ? "6" : `${sideOf(t)}`,
      onTap: () => { chosen = t; game.render(); } })));
    // the tile a row's button secures is the one chosen when it was drawn: once it is in the hoard the next one is
    // chosen as the page is drawn again (a tap the kit does not count, as a double tap's second half, changes nothing)
    const t = chosen;
    $("row-targets").replaceChildren(...(t == null ? [] : rowButtons(t, rows, s.placements[String(t)],
      (row) => game.send({ type: "secure", ...fields(t), row }))));
    return;
  }
  const movable = Object.keys(s.moves).map(Number);
  if (!movable.includes(chosen)) chosen = null;
  $("secure-title").replaceChildren("Egg move", h("small", {}, chosen == null ? " tap the hoard tile to move"
    : ` the ${tileName(chosen)}: tap its new row`));
  $("secure-tiles").replaceChildren(...rows.map((row, i) => h("span", { class: "hoardrow" },
    h("span", { class: "rowno" }, `${i + 1}`),
    ...row.map((t) => tile(t, { cls: t === chosen ? "picked" : "", onTap: movable.includes(t) ? () => {
      chosen = chosen === t ? null : t; game.render(); } : null,
      reason: movable.includes(t) ? null : [`The ${tileName(t)} has no other row to go to.`, "W6"] })))));
  if (chosen == null) { $("row-targets").replaceChildren(); return; }
  const from = rows.findIndex((row) => row.includes(chosen)) + 1;
  // each row's number and what it would score, its tiles shown numbered right above
  // the move ends the turn, which leaves the egg move (a tap not counted leaves it as it was)
  const t = chosen;
  $("row-targets").replaceChildren(...rowButtons(t, rows, s.moves[String(t)],
    (row) => game.send({ type: "move", ...fields(t), row }),
    (row) => (row === from ? `The ${tileName(t)} is in row ${row} already.` : null), false));
}

// ---- what the dice won: the tile, an egg, the number of matching dice --------------------------------------

function eggState(s, active) {
  const cur = s.current;
  if (cur.egg_doubled) return ["An egg already doubled a die this turn: one per turn.", "W4"];
  if ((s.eggs[active] ?? 0) < 1) return [`${active} has no egg to double a die.`, "W4"];
  return null;
}

function kReason(s, k, eggReason) {
  const left = s.current.dice_left;
  if (s.max_k < 2) return "All 6 dice are used this turn: end the turn.";
  const limit = Math.min(DICE, left + (eggOn ? 1 : 0));
  if (k > limit) {
    const withEgg = !eggOn && !eggReason && k <= left + 1
      ? ` With an egg doubling a die, ${left + 1}: turn on “egg doubled a die” first.` : "";
    return `Only ${plural(left, "die", "dice")} ${left === 1 ? "is" : "are"} left this turn.${withEgg}`;
  }
  if (!pick) return "First tap the tile the dice won: in the middle or on another player's base.";
  if (pick.side != null && k <= pick.side) {
    return [`Stealing from side ${pick.side} needs more than ${pick.side} matching dice.`, "W2"];
  }
  if (eggOn && k < 2) return "With the egg, at least 2.";
  return null;
}

function renderDice(s, active) {
  const step = $("dice-step");
  step.hidden = s.phase !== "dice" || moving;
  $("egg-toggle").hidden = step.hidden;
  if (step.hidden) return;
  const cur = s.current;
  if (pick && !(s.winnable[String(Math.max(2, s.max_k))] || []).includes(pick.tile)) pick = null;
  const eggReason = eggState(s, active);
  if (eggReason) eggOn = false;
  // "3 on C1·Landscape 1": the dice first, so that their number never runs into the landscape's
  const wins = cur.wins.map((w) => `${w.k}${w.egg ? " with an egg" : ""} on ${shortName(colourName(w.tile))}·${landName(w.tile)}`);
  $("won-note").textContent = pick
    ? `the ${tileName(pick.tile)}${pick.from === "middle" ? "" : `, stolen from ${pick.from}'s side ${pick.side}`}: how many dice?`
    : `${cur.dice_left} of ${DICE} dice left${wins.length ? ` · won: ${wins.join(", ")}` : ""}`;
  const toggle = $("egg-toggle");
  toggle.replaceChildren(symbol("egg", "wsym egg"), h("span", {}, "Egg doubled a die"));
  toggle.setAttribute("aria-pressed", String(eggOn));
  explain(toggle, eggReason);
  $("k-pad").replaceChildren(...SIDES.map((k) => button(String(k), {
    cls: "key", dataset: { k }, "aria-label": `${k} matching dice`, reason: kReason(s, k, eggReason),
    onTap: () => {
      const { tile: t, from } = pick;
      const egg = eggOn;
      pick = null;
      eggOn = false;
      game.send({ type: "win", ...fields(t), from, k, egg });
    },
  })));
}

function renderActions(s, active) {
  const rows = s.hoards[active].rows;
  const move = $("move-button");
  move.hidden = !(s.phase === "dice" || s.phase === "moved") || rows.length === 0;
  move.setAttribute("aria-pressed", String(moving));
  let reason = null;
  if (s.phase === "moved") reason = ["One egg move per turn, and it ends the turn.", "W4"];
  else if ((s.eggs[active] ?? 0) < 1) reason = [`${active} has no egg to move a hoard tile.`, "W4"];
  else if (!s.expects.includes("move")) reason = ["No hoard tile can go to another row.", "W6"];
  if (reason) moving = false;
  explain(move, reason);
  const end = $("end-turn");
  const why = {
    flip: `First tap the tiles that came up: ${s.to_flip} more.`,
    remove: `First ${active} removes one of the ${s.shown} shown tiles.`,
    secure: `First every tile on ${active}'s base goes into the hoard.`,
    bonus: "First the tile won with 6 dice goes into a hoard row.",
  }[s.phase] || null;
  explain(end, why);
  end.hidden = s.phase === "flip" || s.phase === "remove";
  const again = s.current?.bonus && s.phase !== "flip";
  end.textContent = again ? "End turn ↻" : "End turn";
  end.setAttribute("aria-label", again ? "End turn: another turn follows" : "End turn");
}

// ---- the table: each player's base (sides 2 to 6) and hoard -----------------------------------------------

function baseTile(s, player, active, t, side) {
  if (s.phase === "dice" && player !== active && !moving) {
    const can = (s.stealable[String(Math.max(2, s.max_k))] || []).includes(t);
    // a tile that can be stolen: its ring, and a mark of its own (⇄) for those who cannot tell the ring's colour
    return tile(t, { cls: `${can ? "steal" : ""}${pick?.tile === t ? " picked" : ""}`, onTap: can ? winTarget(t, player, side) : null,
      note: can ? h("span", { class: "steal-mark", "aria-hidden": "true" }, "⇄") : null, said: can ? "can be stolen" : null,
      reason: can ? null : s.max_k < 2 ? "All 6 dice are used this turn."
        : [`Stealing from side ${side} needs more than ${side} matching dice; at most ${s.max_k} this turn.`, "W2"] });
  }
  if (s.phase === "secure" && player === active) {
    return tile(t, { cls: chosen === t ? "picked" : "", onTap: () => { chosen = t; game.render(); } });
  }
  return tile(t, { mini: true });
}

function renderTable(s) {
  const active = s.active;
  $("table").replaceChildren(...s.players.map((p) => {
    const parts = s.score_parts[p];
    const base = s.bases[p];
    const hoard = s.hoards[p];
    return h("div", { class: `wurf-player${p === active ? " active" : ""}`, dataset: { player: p },
                      style: { "--c": colourOf(view, p) } },
      // the points as a sum (a screen reader hears it on every screen); a 7-inch screen shows the eggs and the total
      h("div", { class: "phead" }, who(view, p, "who"),
        h("span", { class: "pscore" }, h("span", { class: "pparts" }, `rows ${parts.rows} + eggs ${parts.eggs} = `),
          h("span", { class: "peggs", "aria-hidden": "true" }, symbol("egg", "wsym egg"), String(s.eggs[p])),
          h("b", {}, s.scores[p]))),
      h("div", { class: "base", "aria-label": `${p}'s base` }, ...SIDES.map((k) =>
        h("div", { class: `side${(base[k] || []).length ? " full" : ""}`, dataset: { side: k } },
          h("span", { class: "sideno" }, k), ...(base[k] || []).map((t) => baseTile(s, p, active, t, k))))),
      h("div", { class: "hoard", "aria-label": `${p}'s hoard` },
        ...(hoard.rows.length ? hoard.rows.map((row, i) => h("div", { class: "hrow", dataset: { row: i + 1 } },
          rowTiles(row), h("span", { class: "rs" }, `=${hoard.row_scores[i]}`)))
          : [h("span", { class: "muted" }, "hoard empty")])));
  }));
}

function renderEggs(v, s) {
  $("eggs").replaceChildren(...s.players.map((p) => h("li", { dataset: { player: p }, style: { "--c": colourOf(v, p) } },
    h("span", { class: "name" }, p), h("span", { class: "n" }, symbol("egg", "wsym egg"), String(s.eggs[p])))));
  $("supply").replaceChildren(h("span", {}, "Supply ", symbol("egg", "wsym egg"), `${s.egg_supply}`),
    h("span", {}, `${plural(s.pile, "tile")} face down`));
}

// ---- the final screen: each hoard row by row, beside its player's total -----------------------------------------

/** A player's hoard on the final screen, with their total (kit.js `standing`): each row's tiles and what it scores
 *  (its length squared), and the eggs left, which the total adds. */
function standing(v, p) {
  const s = v.state;
  const hoard = s?.hoards?.[p];
  if (!hoard) return null;
  return h("div", { class: "final-hoard", dataset: { player: p }, role: "group", "aria-label": `${p}'s hoard` },
    ...hoard.rows.map((row, i) => h("span", { class: "hrow", dataset: { row: i + 1 } }, rowTiles(row),
      h("span", { class: "rs" }, h("span", { class: "sq" }, `${row.length}²\u2009`), `=\u2009${hoard.row_scores[i]}`))),
    s.eggs[p] ? h("span", { class: "eggs" }, `+ ${plural(s.eggs[p], "egg")}`) : null);
}

/** The final screen on the Pi's screens: six players' hoards, each beside its player's total, reached below the
 *  screen's foot (by up to 24 px), their rows on two lines. There each row's score gives way to the room (a row of n
 *  tiles scores n², the total stands beside it, and a screen reader still says each); a phone's page scrolls. */
function fitFinal() {
  const final = $("final");
  final.classList.remove("wurf-final-close");
  if (final.hidden || !matchMedia("(min-width: 701px)").matches || pastTheFoot() <= 0) return;
  final.classList.add("wurf-final-close");
}

function renderLegend(s) {
  $("legend").replaceChildren(h("p", { class: "label" }, "Dragon colours and landscapes"),
    h("div", { class: "legend-grid" },
      ...s.colour_names.map((name, c) => h("span", { class: "lg" }, h("span", { class: "sw", style: { "--tc": look.colours[c].hex } }), name)),
      ...s.landscape_names.map((name, l) => h("span", { class: "lg" }, landSymbol(l), name))));
}

// ---- the 7-inch screens: the whole turn and table on the screen -----------------------------------------------

/** The ways the page makes room on a tablet's or the Pi's screen, each a class on the game's grid (kiosk.css): the
 *  round wider and the table narrower, or wider still; the tiles on the table and in the rows to choose a size
 *  smaller; the hint under the turn read out only (the phrase, the step's title and its buttons say what to do); the
 *  rows' points in the hoards given up (each player's total stays); on a small tablet (601 to 760 px wide) the line of
 *  scores under the round read out only (each player's eggs and total are on the table); on a wider tablet the list of
 *  eggs beside the scores (six long names there, each on two lines, took the page 259 px below the foot). */
const ROOM = ["wurf-wide", "wurf-wider", "wurf-small", "wurf-no-hint", "wurf-no-points", "wurf-no-scores",
  "wurf-no-eggs"];

/** The ways tried, the least first: each way of giving up something tried with the round as it is, then wider, then
 *  wider still. */
const TRIES = [[], ["wurf-small"], ["wurf-small", "wurf-no-hint"], ["wurf-small", "wurf-no-hint", "wurf-no-points"]]
  .flatMap((ways) => [ways, [...ways, "wurf-wide"], [...ways, "wurf-wider"]]);

/** Late in a game of five or six, a long name whose turn it is, a hoard of many rows, the egg's move: where the page
 *  would reach below the screen's foot, the first of the TRIES that fits it is taken; where none does, the one that
 *  comes nearest. The list of eggs beside the scores gives way before any, and on a small tablet the line of scores in
 *  every one of them. A phone's page scrolls all the same, and keeps everything. */
function fitRoom() {
  const grid = $("play");
  grid.classList.remove(...ROOM);
  fitTurnName(); // in the room the turn's line has without them
  if (grid.hidden || !matchMedia("(min-width: 601px)").matches || pastTheFoot() <= 0) return;
  // the list of eggs beside the scores gives way first (the table shows them too), where it takes room: on the Pi's
  // screen the scores, the list with them, are read out only
  const eggs = $("eggs");
  if (eggs.checkVisibility() && eggs.parentElement.clientHeight > 1) {
    grid.classList.add("wurf-no-eggs");
    if (pastTheFoot() <= 0) return;
  }
  const tries = matchMedia("(max-width: 760px)").matches ? TRIES.map((way) => ["wurf-no-scores", ...way]) : TRIES;
  closeUp(grid, tries, { each: fitTurnName, closest: true }); // the turn's name in the room its line has now
}

function render(v, g) {
  view = v;
  const s = v.state;
  if (!s) return; // set aside: the notice says why
  refreshLook();
  renderEggs(v, s);
  renderLegend(s);
  const cur = s.current;
  $("play").dataset.phase = s.phase;
  if (!cur) return; // the final screen shows
  const turnKey = `${cur.number}`;
  if (turnKey !== turnSeen) { turnSeen = turnKey; pick = null; eggOn = false; moving = false; chosen = null; }
  if (s.phase !== "dice") moving = false;
  const active = s.active;
  renderActions(s, active);
  setText($("hint"), hint(s, active)); // a live region: set only when it says something else
  renderFlip(s);
  renderMiddle(s);
  renderSecure(s, active);
  renderDice(s, active);
  renderTable(s);
  void g;
}

/** How the game was won, on the final screen (W7). */
function why(view) {
  if (!view.state?.finished) return "";
  const tied = (view.winners || []).length > 1 ? " A tie shares the win." : "";
  return `Every tile is in a hoard${view.players.length === 2 ? " or removed" : ""}, which ends the game. Each hoard row `
    + `scores its length squared, each egg left 1, and the most points win.${tied}`;
}

/** The page fitted to the screen once the kit has drawn it all (on every drawing and resize): the play area, or the
 *  final screen after the kit's own fitting of it. */
function fit() {
  fitRoom();
  fitFinal();
}

const game = startGame({ render, phrase, why, standing, fit });

wire($("egg-toggle"), () => { eggOn = !eggOn; game.render(); });
wire($("move-button"), () => {
  moving = !moving;
  chosen = null;
  pick = null;
  game.render();
});
wire($("end-turn"), () => {
  pick = null;
  game.send({ type: "end" });
});
