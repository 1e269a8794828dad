// Dračí hrad on the page kit: the companion is the game manager. The heroes' cards show purse, lives (pips, the
// red threshold marked), equipment and badges; the round opens where the mover stands: the city (shops, tavern,
// oracle, the arrow squares to the castle) or a castle card (treasure, dart, obstacle, sceptre, a card used), or a
// fight, step by step: the enemy and the weapon, then "Roll" (the companion rolls) or the dice entered by keypad,
// each exchange's sum shown; or the bank (treasure paid out in gold, the card stock edited). A group shares a
// treasure (each share and the remainder shown before and after) and fights together, each hero with their own
// weapon; the table picks whom the enemy attacks. A number the rules got wrong is set by hand (long-press a hero, or
// "Set a number…"), with a reason, and logged.
import {
  andList, button, bySeat, closeUp, colourOf, confirm, dialog, h, keypad, pastTheFoot, playerStyle, plural, startGame,
  toast, who, whoList,
} from "../kit.js";

const $ = (id) => document.getElementById(id);

/** Short names for the goods (the full name is the button's label for screen readers). */
const SHORT = {
  sword: "Sword", two_hand_sword: "2-hand sword", axe: "Axe", bow: "Bow", hammer: "Hammer", shield: "Shield",
  leather: "Leather", chain_mail: "Chain mail", food: "Food", torch: "Torch", darren_back: "Darren back",
  skunk: "Skunk", antidote: "Antidote", potion: "Potion", opening_spell: "Opening spell", cloak: "Cloak",
};
const WEAPONS = ["sword", "two_hand_sword", "axe", "bow", "hammer"];
const RESTRICTED = ["two_hand_sword", "axe", "bow"];
const MAGIC_CARDS = ["opening_spell", "cloak"];
const OUTCOME = { won: "won against", lost: "fell to", escaped: "escaped from", ended: "stopped fighting" };
const WAIT = { dark_corridor: "dark corridor", thick_fog: "thick fog", locked_door: "locked door",
               tavern: "tavern", oracle: "oracle", held: "held" };
const REASONS = ["Corrected at the table", "Entered wrong", "From the hero card", "House rule"];
const LONG_PRESS_MS = 600;
const PANES = ["city", "castle", "fight", "bank"];
const MAX_COPIES = 12; // copies of one card kind in the stock (the rules check again: H4)
const MAX_PRICE = 99;

/** Page-local choices (never events): the pane shown (a tab tapped to look, until the move or the mover's place
 *  changes) and the fight being set up. */
const local = { pane: "city", enemy: null, weapons: {}, group: [], treasureGroup: [], targets: [], keeper: null,
                paneFor: null, handedOver: null };

let game = null;

/** How long after a move ended otherwise than by Next a tap on Next asks first (ms): the reflex of a person who
 *  taps Next after every move, not a move of the next hero's own on the board, which takes longer. */
const HANDED_OVER_MS = 4000;

/** Send an event. One that ended the mover's move otherwise than by Next (a stop, an obstacle, a treasure, the
 *  dart, a fight) says so, and a Next tapped right after it, to finish that move, asks first (`nextTapped`): it
 *  would end the next hero's move unseen. `counts`: each tap of it counts, however quick (kit.js: otherwise a double
 *  tap counts once). */
async function send(event, ask = null, { counts = false } = {}) {
  const mover = game.view.state?.turn;
  let type = event?.type;
  local.handedOver = null;
  const result = await (ask ? game.ask(async () => { const asked = await ask(); type = asked?.type; return asked; })
    : game.send(event, { counts }));
  const next = result?.ok ? result.data.state?.turn : null;
  if (mover && next && next !== mover && type !== "end_turn") {
    toast(`That ended ${mover}'s move: ${next} moves now.`);
    local.handedOver = { from: mover, to: next, at: performance.now() };
  }
  return result;
}

/** Next: ends the move of the hero on the move; right after a move ended by itself, it asks whether that hero's
 *  own move is over too. */
function nextTapped(player) {
  const handed = local.handedOver;
  if (!handed || handed.to !== player || performance.now() - handed.at > HANDED_OVER_MS) {
    return send({ type: "end_turn", player });
  }
  return send(null, async () => (await confirm(`${handed.from}'s move ended already: ${player} moves now.`,
    `End ${player}'s move too`, `${player} moves on`)) && { type: "end_turn", player });
}
/** An enemy's verb as its name needs it, a plural name too ("the Geeants attack"); its possessive ("the Harpies'
 *  die") comes with the fight, as the rules word it. */
const verb = (enemy, one, many) => (enemy.plural ? many : one);
const heroOf = (s, player) => s.heroes.find((x) => x.player === player);
const mover = (s) => s.heroes.find((x) => x.turn) || null;
const itemName = (s, id) => s.shop.flatMap((q) => q.items).find((i) => i.item === id)?.name || SHORT[id] || id;
const weaponAttack = (s, id) => s.shop.flatMap((q) => q.items).find((i) => i.item === id)?.attack || 0;

// ---- the turn line ------------------------------------------------------------------------------------------

function phrase(view) {
  const s = view.state;
  if (!s || s.finished) return "";
  const hero = mover(s);
  if (s.fight) return `fights the ${s.fight.name}`;
  if (s.antidote_choice) return "is poisoned: the antidote now, or Next";
  if (leftOver(s)) return "waits: who keeps the treasure left over?";
  if (hero?.waiting) return `waits (${WAIT[hero.wait_reason] || "held"}): tap Next`;
  // a hero kept a round (ruling H14) is passed over by Next: said, or the turn seems not to have moved (and a hero
  // alone, the round seems to jump)
  const kept = Object.keys(s.missed_at);
  const missed = kept.length ? ` · ${andList(kept)} sat out a round` : "";
  return hero ? `moves · ${hero.gold} gold${missed}` : "";
}

/** The last victory's remainder waiting for a keeper (ruling H13), or null. */
const leftOver = (s) => (s.last_fight?.left_over ? s.last_fight : null);

function whyNot(s, hero) {
  if (s.finished) return ["The game is over.", "H17"];
  if (s.fight) return [`A fight against the ${s.fight.name} is running: finish it first.`, "H5"];
  const spare = leftOver(s);
  if (spare) return [`First: who keeps the ${spare.left_over} left over of the ${spare.possessive} treasure?`, "H13"];
  if (!hero) return ["Nobody is on the move.", "turn-order"];
  if (hero.out) return [`${hero.player}'s hero is out of the game.`, "H10"];
  if (s.antidote_choice) return [`The poisoned dart ended ${hero.player}'s move: use the antidote or tap Next.`, "H9"];
  if (hero.waiting) {
    return [`${hero.player}'s hero waits (${WAIT[hero.wait_reason] || "held"}) ${plural(hero.waiting, "more round")}: ` +
      "tap Next.", "H14"];
  }
  return [null, null];
}

// ---- the heroes -----------------------------------------------------------------------------------------------

function pips(hero) {
  const out = [];
  for (let i = 1; i <= hero.max_lives; i++) {
    const cls = `hr-pip${i <= hero.lives ? " full" : ""}${i <= hero.red ? " red" : ""}${i === hero.red ? " edge" : ""}`;
    out.push(h("span", { class: cls }));
  }
  return h("div", { class: "hr-pips", role: "img", dataset: { lives: hero.lives },
                    "aria-label": `${hero.lives} of ${hero.max_lives} lives; no attack at ${hero.red} or fewer` },
    ...out);
}

function heroCard(view, s, hero) {
  const badges = [];
  if (hero.turn) badges.push(h("span", { class: "hr-badge turn" }, s.fight ? "fighting" : "on the move"));
  if (hero.waiting) {
    badges.push(h("span", { class: "hr-badge wait" }, `waits ${hero.waiting} · ${WAIT[hero.wait_reason] || "held"}`));
  }
  const keptAt = s.missed_at?.[hero.player];
  if (keptAt) badges.push(h("span", { class: "hr-badge wait" }, `sat out a round · ${WAIT[keptAt] || "held"}`));
  if (hero.poisoned) badges.push(h("span", { class: "hr-badge poison" }, "poisoned"));
  if (hero.out) badges.push(h("span", { class: "hr-badge out" }, "out"));
  else if (!hero.can_attack) badges.push(h("span", { class: "hr-badge red" }, "no attack"));
  if (hero.sceptre) badges.push(h("span", { class: "hr-badge sceptre" }, "sceptre"));
  // the equipment, then the cards: each thing whole on its line ("Darren back", "Food ×2"), the lines broken between
  // them only, and never before a comma
  const goods = [...Object.entries(hero.equipment).map(([id, n]) => [id, n, false]),
    ...Object.entries(hero.cards).map(([id, n]) => [id, n, true])];
  const kit = goods.map(([id, n, card], i) => {
    const label = n > 1 ? `${SHORT[id]} ×${n}` : SHORT[id];
    return h("span", { class: "hr-kit-item" }, card ? h("span", { class: "hr-kit-card" }, label) : label,
      i < goods.length - 1 ? "," : "");
  });
  const card = h("article", {
    class: `hr-hero${hero.turn ? " active" : ""}${hero.out ? " out" : ""}`, dataset: { player: hero.player },
    style: playerStyle(view, hero.player), title: "Hold to set a number by hand",
    "aria-label": `${hero.player}, ${hero.name}: ${hero.score} points`,
  },
  // the score on the first line's right; the player's name beside it (a long one on as many lines as it takes), then
  // the hero's, whole, on the same line where it fits, else on the next
  h("div", { class: "hr-hero-head" },
    h("span", { class: "hr-score", dataset: { score: hero.score } }, String(hero.score)),
    who(view, hero.player, "who name"), " ",
    h("span", { class: "hr-hero-name" }, hero.name.split(" ")[0])),
  h("div", { class: "hr-purse" },
    h("span", { class: "hr-gold", dataset: { gold: hero.gold } }, `${hero.gold} gold`),
    h("span", { class: "hr-treasure", dataset: { treasure: hero.treasure } }, `${hero.treasure} treasure`)),
  h("div", { class: "hr-lives" }, pips(hero),
    h("span", { class: "hr-lives-n" }, `${hero.lives}/${hero.max_lives}`)),
  // the badges, then the equipment, on shared lines
  badges.length || kit.length ? h("div", { class: "hr-notes" },
    badges.length ? h("span", { class: "hr-badges" }, ...badges) : null,
    kit.length ? h("span", { class: "hr-kit" }, ...kit.flatMap((k, i) => [i ? " " : "", k])) : null) : null);
  longPress(card, () => game.ask(() => setNumber(hero.player)));
  return card;
}

function longPress(el, action) {
  let timer = null;
  const cancel = () => { clearTimeout(timer); timer = null; };
  el.addEventListener("pointerdown", () => { cancel(); timer = setTimeout(() => { timer = null; action(); }, LONG_PRESS_MS); });
  for (const type of ["pointerup", "pointerleave", "pointercancel", "pointermove"]) {
    el.addEventListener(type, (event) => { if (type !== "pointermove" || event.movementX ** 2 + event.movementY ** 2 > 16) cancel(); });
  }
  el.addEventListener("contextmenu", (event) => event.preventDefault());
}

function renderHeroes(view, s) {
  $("hr-heroes").replaceChildren(...s.heroes.map((hero) => heroCard(view, s, hero)));
  const log = $("hr-log");
  log.hidden = s.overrides.length === 0;
  if (log.hidden) return;
  const shown = [...s.overrides].reverse().slice(0, 4);
  log.replaceChildren(h("h3", {}, "Set by hand ", h("span", { class: "hr-log-n" }, `${s.overrides.length}`)),
    h("ul", { id: "hr-overrides" }, ...shown.map((o) => h("li", { dataset: { field: o.field } },
      ...overrideText(view, s, o)))));
}

/** The ways the heroes' cards close up, each a class on the game's grid (kiosk.css) that the next one keeps, the least
 *  first: the cards closer together; closer lines, the pips on one line beside the lives' number, the badges and the
 *  equipment sharing their lines; the purse on its line, then the badges, the equipment and the lives in one flow;
 *  the equipment on the mover's card only. Every way but the last shows each hero's equipment whole. */
const CLOSE_UP = ["hr-cards-snug", "hr-cards-close", "hr-cards-flow", "hr-cards-bare"];

/** Six heroes with their equipment on the 800x480 screen: the cards reached 109 px below the screen's foot (the page
 *  588 px high), the sixth one's purse and lives wholly out of sight. Where the cards stand beside the round and would reach below the
 *  screen's foot, they close up, the least that brings the last one's foot onto the screen (the log of numbers set
 *  by hand gives way to them: fitToScreen); a phone's page, one column, scrolls all the same, its cards whole. */
function fitHeroes() {
  const grid = $("play");
  const list = $("hr-heroes");
  const aside = list.closest(".scores");
  grid.classList.remove(...CLOSE_UP);
  if (!list.checkVisibility() || aside.getBoundingClientRect().right > $("round").getBoundingClientRect().left) return;
  const px = (el, property) => parseFloat(getComputedStyle(el)[property]) || 0;
  // the lowest a card's foot may reach: the screen's, less the room under the cards' panel and inside it
  const foot = document.documentElement.clientHeight - px(grid.parentElement, "paddingBottom")
    - px(aside, "paddingBottom") - px(aside, "borderBottomWidth");
  const past = () => list.getBoundingClientRect().bottom + scrollY - foot - 0.5;
  if (past() > 0) closeUp(grid, CLOSE_UP.map((_, n) => CLOSE_UP.slice(0, n + 1)), { past, closest: true });
}

/** The whole log of numbers set by hand, newest first, each with its round (the menu's "Numbers set by hand…"). */
function showLog() {
  const view = game.view;
  const s = view.state;
  if (!s) return;
  dialog((close) => [
    h("p", { class: "big" }, "Numbers set by hand"),
    s.overrides.length ? h("ul", { class: "hr-log-all", id: "hr-log-all" }, ...[...s.overrides].reverse().map((o) =>
      h("li", { dataset: { field: o.field } }, ...overrideText(view, s, o), h("span", { class: "muted" }, ` · round ${o.round}`))))
      : h("p", { class: "muted" }, "Nothing yet: a number set by hand (hold a hero's card) is logged here."),
    h("div", { class: "row" }, button("Close", { cls: "ghost", onTap: () => close(null) })),
  ], { cls: "hr-pick" });
}

const END_REASONS = ["Nobody can hurt anybody", "Corrected at the table", "Started by mistake"];

/** A reason the page offers, in the middle of a sentence ("started by mistake"); one typed elsewhere as it came. */
function reasonWords(reason) {
  if (!reason) return "";
  const own = [...REASONS, ...STOCK_REASONS, ...END_REASONS].includes(reason);
  return `: ${own ? reason[0].toLowerCase() + reason.slice(1) : reason}`;
}

/** A line of the log of numbers set by hand (ruling H1), as a sentence a player reads: "Ben's fight with the Spider
 *  ended by hand: started by mistake", "The fight with the Dragon (Ben, Clara) ended by hand", "The Spider's lives set
 *  from 25 to 3 by hand", "Ben's gold set from 200 to 150 by hand: entered wrong". What a number is called comes with
 *  the entry (`words`), as Undo says it. */
function overrideText(view, s, o) {
  const why = reasonWords(o.reason);
  const change = `set from ${o.was} to ${o.now} by hand${why}`;
  if (o.field === "fight") { // a fight ended by hand: its enemy and every hero who entered it (combat.end_fight)
    const enemy = s.enemies.find((e) => e.id === o.enemy)?.name || "enemy";
    if (o.heroes.length > 1) { // a group's fight, the group's
      return [`The fight with the ${enemy} (`, ...o.heroes.flatMap((p, i) => [i ? ", " : "", who(view, p)]),
        `) ended by hand${why}`];
    }
    return [who(view, o.heroes[0]), `'s fight with the ${enemy} ended by hand${why}`];
  }
  if (o.field.startsWith("stock:")) { // a card's stock, edited in the bank (H4)
    const item = o.field.slice(6);
    const prices = (list) => (list.length ? `${list.join(", ")} gold` : "none");
    return [`${SHORT[item] || item} cards for sale set from ${prices(o.was)} to ${prices(o.now)} by hand${why}`];
  }
  const words = o.words || o.field.replace(/_/g, " ");
  if (!o.player) return [`${words[0].toUpperCase()}${words.slice(1)} ${change}`]; // an enemy's lives
  if (o.field === "poisoned") return [who(view, o.player), `${o.now ? " poisoned" : " cured of poison"} by hand${why}`];
  return [who(view, o.player), `'s ${words} ${change}`];
}

// ---- the tabs and Next -----------------------------------------------------------------------------------------

function renderTabs(view, s) {
  const fighting = Boolean(s.fight);
  const hero = mover(s);
  // the pane of where the mover stands, the city or the castle, as the companion keeps it: the same on every device; a
  // fight shows itself. A tab tapped to look holds until the move (a lone hero's next one too) or the mover's place
  // changes.
  const moment = `${s.round}|${view.turn}|${fighting}|${hero?.place}`;
  if (local.paneFor !== moment) {
    local.paneFor = moment;
    local.pane = fighting ? "fight" : hero?.place || "city";
    local.enemy = null; local.weapons = {}; local.group = []; local.treasureGroup = []; local.targets = [];
    local.keeper = null; local.leftOut = null;
  }
  const busy = fighting ? "A fight is running: finish it first (Roll, or End the fight…)." : null;
  const tab = (pane, label, full = label) => button(label, {
    cls: "hr-tab", dataset: { pane }, "aria-pressed": String(local.pane === pane), "aria-label": full,
    reason: pane === "city" || pane === "castle" ? busy : null, rule: "H5",
    onTap: () => { local.pane = pane; game.render(); } });
  const [why, rule] = whyNot(s, hero);
  const spare = leftOver(s);
  const nextReason = fighting ? "The fight ends the move when it is over." : spare ? why : hero?.waiting ? null : hero ? null : why;
  $("hr-tabs").replaceChildren(tab("city", "City"), tab("castle", "Castle", "Castle card"), tab("fight", "Fight"), tab("bank", "Bank"),
    button(["Next ", h("span", { "aria-hidden": "true" }, "▶")], {
      cls: "primary hr-next", id: "hr-next", reason: nextReason, rule: fighting ? "H5" : rule,
      onTap: () => nextTapped(view.turn) }));
  for (const pane of PANES) $(`hr-${pane}`).hidden = local.pane !== pane;
}

// ---- the city -----------------------------------------------------------------------------------------------------

function buyReason(s, hero, item) {
  const [why, rule] = whyNot(s, hero);
  if (why) return [why, rule];
  const name = item.name.toLowerCase();
  if (RESTRICTED.includes(item.item) && !hero.weapons_allowed.includes(item.item)) {
    return [`${hero.name} may not use the ${name} (hero card).`, "H2"];
  }
  if (MAGIC_CARDS.includes(item.item) && !hero.magic) return [`${hero.name} uses no magic objects: no ${name}.`, "H2"];
  if (item.price == null) return [`The ${name} cards are sold out.`, "H4"];
  if (item.price > hero.gold) return [`The ${name} costs ${item.price} gold; ${hero.player} has ${hero.gold}.`, "H3"];
  return [null, null];
}

function renderCity(view, s) {
  const hero = mover(s);
  const shops = [];
  for (const square of s.shop) {
    shops.push([square.square, square.name, square.items.map((item) => {
      const [reason, rule] = hero ? buyReason(s, hero, item) : ["Nobody is on the move.", "turn-order"];
      const left = item.kind === "card" ? ` · ${item.stock.length} left` : "";
      return button([h("span", { class: "hr-item" }, SHORT[item.item] || item.name),
        h("small", { class: "hr-price" }, item.price == null ? "sold out" : `${item.price} gold${left}`)], {
        cls: `hr-buy hr-${item.kind}`, dataset: { item: item.item }, "aria-label": `Buy ${item.name}`, reason, rule,
        onTap: () => buy(hero, item) });
    })]);
  }
  shops.push(["rest", "Rest", [["tavern", "Tavern"], ["oracle", "Oracle"]].map(([square, label]) => {
    const cost = s.city[square];
    let [reason, rule] = hero ? whyNot(s, hero) : ["Nobody is on the move.", "turn-order"];
    if (!reason && hero.gold < cost) [reason, rule] = [`The ${square} costs ${cost} gold; ${hero.player} has ${hero.gold}.`, "H3"];
    return button([h("span", { class: "hr-item" }, label), h("small", { class: "hr-price" }, `${cost} gold · a round`)], {
      cls: "hr-buy stop", dataset: { stop: square }, reason, rule,
      onTap: () => send({ type: "stop", player: hero.player, square }) });
  })]);
  shops.push(["castle", "Castle", [gateButton(s, hero)]]);
  const grid = h("div", { class: "hr-shop", id: "hr-shop" });
  $("hr-city").replaceChildren(grid);
  shelve(grid, shops);
}

/** The shops on the city's rows: each shop's name on a line of its own over its goods, never at the end of the row
 *  before them. A shop starts a row of its own unless it fits in what is left of the row (the Armourer and the
 *  Merchant side by side); one longer than a row goes on in the next, under a line with no name (the Magician's six
 *  on five places). How many places a row has is read from the grid as the screen draws it. */
function shelve(grid, shops) {
  const tracks = getComputedStyle(grid).gridTemplateColumns.split(" ");
  const across = Math.max(1, tracks.filter((w) => w.endsWith("px")).length);
  const rows = [];
  let row = null;
  for (const [id, name, goods] of shops) {
    if (!row || row.used + Math.min(goods.length, across) > across) rows.push(row = { used: 0, heads: [], goods: [] });
    for (let i = 0; i < goods.length;) {
      if (row.used === across) rows.push(row = { used: 0, heads: [], goods: [] });
      const part = goods.slice(i, i + across - row.used);
      row.heads.push(h("div", { class: `hr-square${i ? " more" : ""}`, dataset: i ? {} : { square: id },
        "aria-hidden": i ? "true" : null, style: { "grid-column": `span ${part.length}` } }, i ? "" : name));
      row.goods.push(...part);
      row.used += part.length;
      i += part.length;
    }
  }
  rows.forEach((r, n) => {
    for (const el of r.heads) el.style.gridRow = String(2 * n + 1);
    for (const el of r.goods) el.style.gridRow = String(2 * n + 2);
    grid.append(...r.heads, ...r.goods);
  });
}

/** A purchase: at a shop a second tap is a second purchase (the next card dearer, ruling H4), so every tap counts,
 *  however quick; each is said at once, with how many the hero holds now and the gold left, so that a slip is seen
 *  and taken back with one tap on Undo. */
async function buy(hero, item) {
  const result = await send({ type: "buy", player: hero.player, item: item.item }, null, { counts: true });
  const after = result?.ok ? heroOf(result.data.state, hero.player) : null;
  if (!after) return;
  const held = after.equipment[item.item] || after.cards[item.item] || 0;
  toast(`${hero.player} bought ${SHORT[item.item]}${held > 1 ? ` (${held} now)` : ""}: ${after.gold} gold left. `
    + "↶ Undo takes it back.");
}

/** The arrow squares: the last roll in the city reaches the path to the castle, the move ends, and the hero's moves are
 *  into the castle from there (the companion keeps where each hero stands). */
function gateButton(s, hero) {
  let [reason, rule] = hero ? whyNot(s, hero) : ["Nobody is on the move.", "turn-order"];
  if (!reason && hero.place === "castle") [reason, rule] = [`${hero.player}'s hero is at the castle already.`, "movement"];
  return button([h("span", { class: "hr-item" }, "Arrow square"), h("small", { class: "hr-price" }, "the castle next")], {
    cls: "hr-buy hr-gate", id: "hr-enter", "aria-label": "Arrow square: into the castle from the next move", reason, rule,
    onTap: () => send({ type: "enter", player: hero.player }) });
}

// ---- the bank: treasure paid out in gold, the card stock ----------------------------------------------------------

const MAX_GOLD = 9999; // a purse's bound in the rules (H3)
const STOCK_REASONS = ["A second box", "A card lost", "Corrected at the table", "House rule"];

function exchangeReason(hero) {
  if (!hero.treasure) return [`${hero.player} holds no treasure to pay out in gold.`, "H13"];
  if (hero.gold >= MAX_GOLD) return [`${hero.player}'s purse is full (${MAX_GOLD} gold).`, "H3"];
  return [null, null];
}

/** Treasure paid out in gold, by keypad: the event, or nothing when cancelled. */
async function exchange(hero) {
  const most = Math.min(hero.treasure, MAX_GOLD - hero.gold);
  const amount = await keypad(`${hero.player}: treasure paid in gold`, { value: most, min: 1, max: most });
  return amount == null ? null : { type: "exchange", player: hero.player, amount };
}

/** The stock of one card kind edited in a dialog: copies taken out by tap, added by keypad; then why (the event, or
 *  nothing when cancelled). */
async function editStock(item) {
  let edited = [...item.stock];
  for (;;) { // Back at "Why?" returns here with the prices as they were edited
    edited = await stockDialog(item, edited);
    if (!edited) return null;
    const change = `${item.stock.join(", ") || "none"} → ${edited.join(", ") || "none"}`;
    const reason = await why(`${item.name}: ${change}. Why?`, STOCK_REASONS);
    if (reason) return { type: "stock", item: item.item, prices: edited, reason };
  }
}

/** The stock editor, opened on ``start``: the prices saved, or null when cancelled. */
function stockDialog(item, start) {
  const prices = [...start];
  const same = () => prices.join() === item.stock.join();
  return dialog((close) => {
    const body = h("div", { class: "hr-stock-edit" });
    const draw = () => {
      const full = prices.length >= MAX_COPIES;
      body.replaceChildren(
        h("p", { class: "big", id: "hr-stock-title" }, `${item.name}: the prices left`),
        h("p", { class: "muted" }, prices.length ? "Sold cheapest first. Tap a price to take that copy out." : "None left: sold out."),
        h("div", { class: "hr-row", id: "hr-stock-prices" }, ...prices.map((price, i) => button(`${price} gold ✕`, {
          cls: "hr-price-chip", dataset: { price }, "aria-label": `Take out the copy at ${price} gold`,
          onTap: () => { prices.splice(i, 1); draw(); } })),
        button("+ Add a copy…", { id: "hr-stock-add", reason: full ? `At most ${MAX_COPIES} copies of a card.` : null,
          rule: "H4", onTap: async () => {
            const price = await keypad(`${item.name}: the new copy's price`, { min: 0, max: MAX_PRICE });
            if (price == null) return;
            prices.push(price);
            prices.sort((a, b) => a - b);
            draw();
          } })),
        h("div", { class: "row" }, button("Cancel", { cls: "ghost", onTap: () => close(null) }),
          button("Save", { cls: "primary", id: "hr-stock-save", reason: same() ? "Nothing changed yet." : null,
                          onTap: () => close([...prices]) })));
    };
    draw();
    return body;
  }, { cls: "hr-pick" });
}

function renderBank(view, s) {
  const pay = s.heroes.map((hero) => {
    const [reason, rule] = exchangeReason(hero);
    return button([who(view, hero.player), h("small", {}, `${hero.treasure} treasure`)], {
      cls: "hr-exchange", dataset: { exchange: hero.player }, "aria-label": `${hero.player}: treasure to gold`,
      style: { "--c": colourOf(view, hero.player) }, reason, rule, onTap: () => game.ask(() => exchange(hero)) });
  });
  const cards = s.shop.flatMap((q) => q.items).filter((i) => i.kind === "card");
  const stock = cards.map((item) => button([h("span", { class: "hr-item" }, SHORT[item.item]),
    h("small", { class: "hr-price" }, item.stock.length ? item.stock.join(", ") : "sold out")], {
    cls: "hr-buy hr-card hr-stock", dataset: { stock: item.item }, "aria-label": `Edit the ${item.name} stock`,
    onTap: () => game.ask(() => editStock(item)) }));
  $("hr-bank").replaceChildren(
    h("div", { class: "hr-row" }, h("span", { class: "hr-row-label" }, "Treasure to gold"), ...pay),
    h("p", { class: "hr-note" }, "Paid out in gold, treasure keeps its points and can be spent in the city."),
    h("div", { class: "hr-row" }, h("span", { class: "hr-row-label" }, "Card stock"),
      h("small", { class: "muted" }, "· the prices left, sold cheapest first. Tap a card to change them.")),
    h("div", { class: "hr-shop", id: "hr-stock" }, ...stock));
}

// ---- a treasure shared by a group (ruling H13) --------------------------------------------------------------------

/** Each sharer's part of `value` and what is left over (the rules split the same way). */
function split(value, count) {
  return { each: Math.floor(value / count), rest: value % count };
}

function standingOthers(s, hero) {
  return s.heroes.filter((x) => hero && x.player !== hero.player && !x.out && !x.waiting);
}

/** Before paying: each share and, when it does not split evenly, who keeps the remainder (the event, or nothing when
 *  cancelled). */
async function shareTreasure(view, hero, group, value) {
  const sharers = [hero.player, ...group];
  const { each, rest } = split(value, sharers.length);
  const keeper = await dialog((close) => [
    h("p", { class: "big" }, `Treasure ${value} shared by `, ...whoList(view, sharers)),
    h("ul", { class: "hr-shares", id: "hr-share-preview" }, ...sharers.map((p) => h("li", { dataset: { share: p } },
      who(view, p), ` ${each}`))),
    rest ? h("p", { id: "hr-share-rest" }, `${rest} left over: who keeps it?`) : null,
    h("div", { class: "hr-picks" }, ...(rest
      ? sharers.map((p) => button([who(view, p), ` gets ${each + rest}`], { dataset: { remainder: p },
        style: { "--c": colourOf(view, p) }, onTap: () => close(p) }))
      : [button("Pay the shares", { cls: "primary", id: "hr-share-pay", onTap: () => close(hero.player) })])),
    h("div", { class: "row" }, button("Cancel", { cls: "ghost", onTap: () => close(null) })),
  ], { cls: "hr-pick" });
  return keeper ? { type: "treasure", player: hero.player, value, group, remainder_to: keeper } : null;
}

function treasureRows(view, s, hero, why, rule) {
  const others = standingOthers(s, hero);
  const group = local.treasureGroup.filter((n) => others.some((x) => x.player === n));
  const count = 1 + group.length;
  const values = s.treasures.map((value) => {
    const { each, rest } = split(value, count);
    return button([h("span", {}, String(value)), group.length ? h("small", {}, `${each} each${rest ? ` +${rest}` : ""}`) : null], {
      cls: "hr-treasure-btn", dataset: { treasure: value }, "aria-label": `Treasure ${value}`, reason: why, rule,
      onTap: () => (group.length ? send(null, () => shareTreasure(view, hero, group, value))
        : send({ type: "treasure", player: hero.player, value })) });
  });
  const row = (label, ...buttons) => h("div", { class: "hr-row" }, h("span", { class: "hr-row-label" }, label), ...buttons);
  return [row("Treasure", ...values),
    others.length && !why ? row("Shared with", ...others.map((x) => button(who(view, x.player), {
      cls: "hr-join", dataset: { share: x.player }, "aria-pressed": String(group.includes(x.player)),
      "aria-label": `${x.player} shares the treasure`, style: { "--c": colourOf(view, x.player) },
      onTap: () => {
        local.treasureGroup = group.includes(x.player) ? group.filter((n) => n !== x.player) : [...group, x.player];
        game.render();
      } }))) : null];
}

function treasureText(view, t) {
  const shares = bySeat(view, t.shares);
  if (shares.length < 2) return [h("strong", {}, "Last treasure: "), who(view, t.player), ` +${t.value}.`];
  return [h("strong", {}, `Last treasure: ${t.value} shared: `),
    ...shares.flatMap(([p, n], i) => [i ? ", " : "", who(view, p), ` +${n}`]),
    t.remainder ? [` (the ${t.remainder} left over to `, who(view, t.remainder_to), ")"] : "", "."];
}

// ---- a castle card ------------------------------------------------------------------------------------------------

function renderCastle(view, s) {
  const hero = mover(s);
  const [why, rule] = whyNot(s, hero);
  const p = hero?.player;
  const row = (label, ...buttons) => h("div", { class: "hr-row" }, h("span", { class: "hr-row-label" }, label), ...buttons);
  const usable = [];
  if (hero && !hero.out) {
    for (const [item, n] of Object.entries(hero.cards)) {
      if (["skunk", "cloak"].includes(item)) continue; // in a fight
      // the reason a card cannot be used now, with the rule the table would name
      let reason = why && !["antidote", "torch", "opening_spell"].includes(item) ? [why, rule] : null;
      if (item === "antidote" && !hero.poisoned) reason = [`${hero.player}'s hero is not poisoned.`, "H9"];
      if ((item === "food" || item === "potion") && hero.lives >= hero.max_lives) {
        reason = [`${hero.player} has all ${hero.max_lives} lives.`, "H15"];
      }
      if (item === "torch" && hero.wait_reason !== "dark_corridor") reason = ["A torch lights a dark corridor.", "H14"];
      if (item === "opening_spell" && hero.wait_reason !== "locked_door") {
        reason = ["An opening spell opens a locked door.", "H14"];
      }
      usable.push(button(n > 1 ? `${SHORT[item]} ×${n}` : SHORT[item], {
        cls: "hr-use", dataset: { use: item }, reason,
        onTap: () => (item === "darren_back" ? send(null, () => darrenBack(p)) : send({ type: "use", player: p, item })) }));
    }
  }
  const obstacles = Object.entries(s.obstacles).map(([id, name]) => {
    const rounds = { dark_corridor: 1, thick_fog: 2, locked_door: s.options.locked_door_rounds }[id];
    return button([h("span", {}, name), h("small", {}, rounds ? `waits ${plural(rounds, "round")}` : "go back next move")], {
      cls: "hr-obstacle", dataset: { obstacle: id }, reason: why, rule,
      onTap: () => send(null, () => obstacleEvent(s, hero, id)) });
  });
  $("hr-castle").replaceChildren(...[
    ...treasureRows(view, s, hero, why, rule),
    row("Trap", button([h("span", {}, "Poisoned dart"), h("small", {}, `${s.dart.attack} + die`)], {
      id: "hr-dart", "aria-label": "Poisoned dart: roll", reason: why, rule,
      onTap: () => send({ type: "dart", player: p }) }),
    button("Dart dice…", { id: "hr-dart-dice", "aria-label": "Poisoned dart: enter the dice", reason: why, rule,
      onTap: () => send(null, () => dartDice(s, p)) }),
    button("Sceptre!", { cls: "hr-sceptre", id: "hr-sceptre", reason: why, rule, onTap: () => game.ask(async () =>
      (await confirm(`${p} found the royal sceptre?`, "Yes: +50, the game ends", "Not yet")) && { type: "sceptre", player: p }) })),
    row("Obstacle", ...obstacles),
    usable.length ? row("Use", ...usable) : null,
  ].filter(Boolean));
}

/** The Darren back's two uses (rulebook): back to the city, to shop again, or, stuck, to a turned card nearby; the
 *  companion puts the hero there. The event, or null when cancelled. */
async function darrenBack(player) {
  const to = await pick(`${player}'s Darren back carries the hero…`, [
    ["city", [h("span", {}, "Back to the city"), h("small", { class: "muted" }, " to shop again")], { dataset: { to: "city" } }],
    ["castle", [h("span", {}, "To a turned card"), h("small", { class: "muted" }, " stuck in the castle")],
      { dataset: { to: "castle" } }]]);
  return to && { type: "use", player, item: "darren_back", to };
}

/** The obstacle the mover met; where the hero holds the card that passes it, the table says whether it is spent
 *  there (ruling H14; a hero alone has no later moment to spend it: the wait is over at once). Null: cancelled. */
async function obstacleEvent(s, hero, obstacle) {
  const event = { type: "obstacle", player: hero.player, obstacle };
  const item = s.obstacle_cards[obstacle];
  if (!item || !hero.cards[item] || (MAGIC_CARDS.includes(item) && !hero.magic)) return event;
  const card = item === "torch" ? "a torch" : "an opening spell";
  const corridor = obstacle === "dark_corridor";
  const spend = await confirm(`${hero.player} holds ${card}: spend it at the ${s.obstacles[obstacle].toLowerCase()}?`,
    `Spend ${card}`, corridor ? "Keep it: wait a round" : "Keep it: stay, go back next move",
    corridor ? "Spent, the hero goes on next move." : "Spent, the door opens: the heroes here go on through it now.");
  if (spend == null) return null;
  return spend ? { ...event, spend: true } : event;
}

/** The dart's two dice by keypad (ruling H9): the dart's attack die, then the hero's defence die; null when
 *  cancelled. */
async function dartDice(s, player) {
  const attack = await askDie(`The dart's attack die (${s.dart.attack} + die)`);
  if (attack == null) return null;
  const defence = await askDie(`${player}'s defence die`);
  if (defence == null) return null;
  return { type: "dart", player, attack_die: attack, defence_die: defence };
}

/** The dart's result; a poisoned hero holding an antidote may use it at once (ruling H9), before any round's
 *  poison: while the engine waits for that choice, Next keeps the antidote. */
function dartText(view, s, dart) {
  const hit = heroOf(s, dart.player);
  const cure = hit && hit.poisoned && !hit.out && hit.cards.antidote;
  const harm = !dart.pierced ? "no harm" : hit && !hit.poisoned ? "pierced, poisoned, cured" : "pierced, poisoned";
  return [h("strong", {}, "Poisoned dart: "), who(view, dart.player), ` ${dart.attack_total} vs ${dart.defence_total}: `,
    h("strong", {}, harm), ".",
    cure ? button("Use antidote", { cls: "primary hr-antidote", id: "hr-antidote", dataset: { antidote: dart.player },
      "aria-label": `${dart.player} uses the antidote`, onTap: async () => {
        const result = await send({ type: "use", player: dart.player, item: "antidote" });
        if (result.ok) toast(`${dart.player} used the antidote: no longer poisoned.`);
      } }) : null,
    cure && s.antidote_choice ? h("small", { class: "muted", id: "hr-antidote-or" },
      " now, or Next: keep the antidote and stay poisoned") : null].filter(Boolean);
}

// ---- the fight ----------------------------------------------------------------------------------------------------

function ownedWeapons(hero) {
  return WEAPONS.filter((w) => hero.equipment[w] && hero.weapons_allowed.includes(w));
}

function bestWeapon(s, hero) {
  const owned = ownedWeapons(hero);
  return owned.sort((a, b) => weaponAttack(s, b) - weaponAttack(s, a))[0] || null;
}

/** The weapon `player` takes into the fight: the one picked, else the best one owned (ruling H5: for the whole fight). */
function weaponOf(s, player) {
  if (!(player in local.weapons)) local.weapons[player] = bestWeapon(s, heroOf(s, player));
  return local.weapons[player];
}

/** A fighter's weapons, after `head`: the mover's name, or another hero's button that takes them out again. */
function weaponRow(view, s, player, head) {
  const chosen = weaponOf(s, player);
  const owned = ownedWeapons(heroOf(s, player));
  return h("div", { class: "hr-row hr-weapons", dataset: { weaponsOf: player } }, head,
    ...[null, ...owned].map((w) => button(w
      ? [h("span", { class: "hr-item" }, SHORT[w]), h("small", {}, `+${weaponAttack(s, w)}`)] : "None", {
      cls: "hr-weapon", dataset: { weapon: w || "none", for: player }, "aria-pressed": String(chosen === w),
      "aria-label": `${player}: ${w ? SHORT[w] : "no weapon"}`,
      onTap: () => { local.weapons[player] = w; game.render(); } })),
    owned.length ? null : h("small", { class: "muted" }, "owns no weapon"));
}

function renderFightSetup(view, s) {
  const hero = mover(s);
  const [why, rule] = whyNot(s, hero);
  // an enemy's numbers at 13 px on two lines (three for the Dragon's), each number beside its label
  const enemies = s.enemies.map((e) => button([h("span", { class: "hr-item" }, e.name),
    h("small", {}, `att\u00a0${e.attacks.join("/")}\u00a0· def\u00a0${e.defence}\u00a0· ♥${e.lives}\u00a0· `
      + (e.treasure ? `treasure\u00a0${e.treasure}` : "no\u00a0treasure"))], {
    cls: "hr-enemy", dataset: { enemy: e.id }, "aria-pressed": String(local.enemy === e.id),
    onTap: () => { local.enemy = e.id; game.render(); } }));
  const others = standingOthers(s, hero);
  local.group = local.group.filter((n) => others.some((x) => x.player === n));
  const fighters = hero ? [hero.player, ...local.group] : [];
  // a line for the mover's weapons and one for each hero who fights too, their name's button beside their weapons (a
  // tap on it takes them out again), two lines side by side where they fit; the buttons of the other heroes standing,
  // to fight too ("+ Ben"), together in the last place: four heroes at 800x480, each on a line of their own, took the
  // start below the screen's foot
  const join = (x) => {
    const joined = local.group.includes(x.player);
    return button([joined ? "" : "+ ", who(view, x.player)], {
      cls: "hr-join", dataset: { join: x.player }, "aria-pressed": String(joined),
      "aria-label": `${x.player} fights too`, style: { "--c": colourOf(view, x.player) },
      onTap: () => {
        local.group = joined ? local.group.filter((n) => n !== x.player) : [...local.group, x.player];
        game.render();
      } });
  };
  const waiting = others.filter((x) => !local.group.includes(x.player));
  const lines = hero ? [
    weaponRow(view, s, hero.player,
      h("span", { class: "hr-row-label" }, others.length ? who(view, hero.player) : "Weapon")),
    ...others.filter((x) => local.group.includes(x.player)).map((x) => weaponRow(view, s, x.player, join(x))),
    waiting.length ? h("div", { class: "hr-row hr-joins", id: "hr-joins" }, ...waiting.map(join)) : null,
  ] : [];
  // a victory's treasure shared by the group (ruling H13): what is left over goes to the hero the table names
  const keeper = fighters.includes(local.keeper) ? local.keeper : hero?.player;
  const enemy = s.enemies.find((e) => e.id === local.enemy);
  const start = button(enemy ? `Fight the ${enemy.name}` : "Pick the enemy", {
    cls: "primary hr-start", id: "hr-start", reason: why || (enemy ? null : "Pick the enemy on the card first."),
    rule: why ? rule : null,
    onTap: () => send({ type: "fight", players: fighters, enemy: local.enemy,
                        weapons: fighters.map((p) => weaponOf(s, p)),
                        remainder_to: fighters.length > 1 ? keeper : undefined }) });
  const spoils = enemy?.treasure && fighters.length > 1 ? split(enemy.treasure, fighters.length) : null;
  return [h("div", { class: "hr-enemies", id: "hr-enemies" }, ...enemies),
    h("div", { class: "hr-fighters" }, ...lines),
    h("div", { class: "hr-arm-start" },
      spoils ? h("small", { class: "muted", id: "hr-spoils" },
        `victory: ${enemy.treasure} treasure, ${spoils.each} each`) : null,
      spoils?.rest ? button([`${spoils.rest} left over to `, who(view, keeper)], {
        cls: "hr-keeper", id: "hr-keeper",
        "aria-label": `The ${spoils.rest} left over goes to ${keeper}: tap to change`,
        onTap: () => { local.keeper = fighters[(fighters.indexOf(keeper) + 1) % fighters.length]; game.render(); } })
        : null,
      start)];
}

const STEP = {
  heroes: (f) => ["The heroes attack: ", whoList(game.view, f.members.filter((m) => m.can_attack).map((m) => m.player))],
  enemy: (f) => [`The ${f.name} ${verb(f, "attacks", "attack")}`],
  simultaneous: (f) => [`Both strike at once: the heroes and the ${f.name}`],
};

const DRAGON_ATTACKS = ["claw", "claw", "teeth"];

/** Whom each of the enemy's attacks strikes in its next charge, by attack (ruling H16: chosen at the table; the
 *  Dragon's three attacks each at a hero of their own, ruling H6), from the page's choice, else the first hero
 *  standing. */
function aims(f) {
  const chosen = f.enemy_attacks.map((_, i) => (f.standing.includes(local.targets[i]) ? local.targets[i] : f.standing[0]));
  return f.enemy === "dragon" ? chosen : chosen.map(() => chosen[0]);
}

/** The Dragon's attacks the table leaves out of its next charge (ruling H6: the game's manager decides how many, claws
 *  or teeth), by number: none unless the table taps one out, and for that charge only. */
const leftOut = (f) => (f.enemy === "dragon" && local.leftOut?.at === f.exchange_count ? local.leftOut.attacks : []);

/** The attacks the enemy makes in its next charge, by number: all of them but those the table left out. */
const attacksMade = (f) => f.enemy_attacks.map((_, i) => i).filter((i) => !leftOut(f).includes(i));

/** Whom each attack the enemy makes in its next charge strikes, in order. */
const targetsOf = (f) => attacksMade(f).map((i) => aims(f)[i]);

/** The enemy's charge in the strike the page sends: whom each attack strikes and, where the table left out some of the
 *  Dragon's, which attacks it makes. */
function chargeOf(f) {
  const made = attacksMade(f);
  return { targets: targetsOf(f), ...(made.length < f.enemy_attacks.length ? { attacks: made } : {}) };
}

function attackLabel(f, i) {
  if (f.enemy === "dragon") return `${DRAGON_ATTACKS[i]} ${f.enemy_attacks[i]}`;
  return f.enemy_attacks.length > 1 ? `attack ${i + 1}` : "";
}

/** Whether the table picks the enemy's next charge now: it strikes next and more than one hero stands, or it is the
 *  Dragon, whose attacks the table may leave out against a hero alone too. */
const choosingTargets = (f) => Boolean(f.dice_needed.enemy_dice) && (f.standing.length > 1 || f.enemy === "dragon");

/** Beside a hero of the fight: the buttons that make them the enemy's target (the Dragon: one per attack; a tap on one
 *  ticked leaves that attack out of the charge, a tap on it again makes it, at least one made). */
function targetButtons(view, f, player) {
  if (!choosingTargets(f) || !f.standing.includes(player)) return [];
  const targets = aims(f);
  const made = attacksMade(f);
  const attacks = f.enemy === "dragon" ? f.enemy_attacks.map((_, i) => i) : [null];
  return attacks.map((i) => {
    const on = targets[i ?? 0] === player && (i == null || made.includes(i));
    return button(i == null ? (on ? "✓ attacked" : "attack") : `${on ? "✓ " : ""}${attackLabel(f, i)}`, {
      cls: "hr-target", dataset: { target: player, attack: i ?? "all" }, "aria-pressed": String(on),
      "aria-label": i == null ? `The ${f.name} ${verb(f, "attacks", "attack")} ${player}`
        : `The ${f.possessive} ${attackLabel(f, i)} attacks ${player}${on ? ": tap to leave it out" : ""}`,
      style: { "--c": colourOf(view, player) },
      onTap: () => {
        if (i != null && on) {
          if (made.length === 1) { toast(`The ${f.name} attacks once at least in a charge.`, "info", "H6"); return; }
          local.leftOut = { at: f.exchange_count, attacks: [...leftOut(f), i] };
        } else {
          local.targets = i == null ? targets.map(() => player) : targets.map((t, k) => (k === i ? player : t));
          if (i != null) local.leftOut = { at: f.exchange_count, attacks: leftOut(f).filter((k) => k !== i) };
        }
        game.render();
      } });
  });
}

/** One six-sided die entered by the table: a tap on its face, 1 to 6 and nothing else; null when cancelled. */
function askDie(label) {
  return dialog((close) => [
    h("p", { class: "label" }, label),
    h("div", { class: "keypad", id: "die-keys" }, ...[1, 2, 3, 4, 5, 6].map((n) =>
      button(String(n), { cls: "key", dataset: { die: n }, "aria-label": `${n} on the die`, onTap: () => close(n) }))),
    h("div", { class: "row" }, button("Cancel", { cls: "ghost", onTap: () => close(null) })),
  ], { cls: "keypad-panel die-panel" });
}

/** The skunk (ruling H11). Before initiative its dice decide: won, the heroes leave at once; lost, the enemy strikes
 *  once first. The table's dice by keypad, or rolled by the companion, as for "Roll" and "Enter dice…". */
async function skunkEvent(f, player) {
  const event = { type: "use", player, item: "skunk" };
  if (f.next !== "initiative") return event;
  const how = await dialog((close) => [
    h("p", { class: "big" }, `${player}'s skunk: the initiative decides`),
    h("p", { class: "muted" }, `Won, the heroes leave at once; lost, the ${f.name} ${verb(f, "strikes", "strike")} `
      + "once, then they leave."),
    h("div", { class: "row" }, button("Enter dice…", { id: "hr-skunk-dice", onTap: () => close("dice") }),
      button("Roll", { cls: "primary", id: "hr-skunk-roll", onTap: () => close("roll") })),
    h("div", { class: "row" }, button("Cancel", { cls: "ghost", onTap: () => close(null) })),
  ]);
  if (how !== "dice") return how ? event : null;
  const heroDie = await askDie("Initiative: the heroes' die");
  const enemyDie = heroDie && await askDie(`Initiative: the ${f.possessive} die`);
  return enemyDie ? { ...event, hero_die: heroDie, enemy_die: enemyDie } : null;
}

/** Ruling H8: a Rust Worm's hit that does damage ruins one iron item of the hero it strikes, chosen at the table:
 *  asked before its strike where that hero owns more than one ({ruin}, or {} with none to choose, null when
 *  cancelled). */
async function ruinChoice(s, f) {
  const iron = ironAtStake(s, f);
  if (!iron) return {};
  const ruin = await pick(`If the ${f.name} hurts ${targetsOf(f)[0]}, which iron item rusts?`,
    iron.map((id) => [id, SHORT[id], { dataset: { ruin: id } }]));
  return ruin ? { ruin } : null;
}

/** The iron items the Rust Worm's next strike may ruin, where the hero it strikes owns two or more; else null. */
function ironAtStake(s, f) {
  if (!s.enemies.find((e) => e.id === f.enemy)?.rust || !f.dice_needed.enemy_dice) return null;
  const iron = heroOf(s, targetsOf(f)[0])?.iron || [];
  return iron.length > 1 ? iron : null;
}

/** The dice of the next step by keypad, one at a time, named for the table; null when cancelled. */
async function enterDice(s) {
  const f = s.fight;
  const need = f.dice_needed;
  const event = { type: f.next === "initiative" ? "initiative" : "strike" };
  if (f.next === "initiative") {
    const hero = await askDie("Initiative: the heroes' die");
    if (hero == null) return null;
    const enemy = await askDie(`Initiative: the ${f.possessive} die`);
    if (enemy == null) return null;
    return { ...event, hero_die: hero, enemy_die: enemy };
  }
  if (need.hero_dice) {
    const attackers = f.members.filter((m) => m.can_attack && f.standing.includes(m.player)).map((m) => m.player);
    event.hero_dice = [];
    for (const p of attackers.slice(0, need.hero_dice)) {
      const d = await askDie(`${p}'s attack die`);
      if (d == null) return null;
      event.hero_dice.push(d);
    }
    const d = await askDie(`The ${f.possessive} defence die`);
    if (d == null) return null;
    event.enemy_defence_die = d;
  }
  if (need.enemy_dice) {
    const ruin = await ruinChoice(s, f);
    if (ruin == null) return null;
    Object.assign(event, ruin);
    const { targets, attacks } = chargeOf(f);
    const made = attacksMade(f);
    event.enemy_dice = []; event.defence_dice = []; event.targets = targets;
    if (attacks) event.attacks = attacks;
    const oneDie = need.enemy_dice < f.enemy_attacks.length; // ruling H6: one die for the whole charge
    for (let i = 0; i < (oneDie ? 1 : made.length); i++) {
      const what = oneDie ? "one die for the charge" : attackLabel(f, made[i]);
      const n = what ? ` (${what})` : "";
      const a = await askDie(`The ${f.possessive} attack die${n}${oneDie ? "" : ` at ${targets[i]}`}`);
      if (a == null) return null;
      const guard = oneDie ? [...new Set(targets)].join(" and ") : targets[i];
      const d = await askDie(`${guard}'s defence die${n}`);
      if (d == null) return null;
      event.enemy_dice.push(a); event.defence_dice.push(d);
    }
  }
  return event;
}

function attackersOf(f, strike) {
  const members = f.members.map((m) => m.player);
  return strike.attack.map((part) => part.label).filter((label) => members.includes(label)).join(" + ") || "Heroes";
}

function exchangeList(f) {
  const recent = [...f.exchanges].reverse().slice(0, 3);
  return h("ol", { class: "hr-exchanges", id: "hr-exchanges" }, ...recent.map((x) => h("li", { dataset: { number: x.number } },
    h("span", { class: "hr-x-no" }, `#${x.number}`),
    ...x.strikes.map((st) => h("span", { class: `hr-strike ${st.side}${st.damage ? " hit" : ""}` },
      h("b", {}, st.side === "enemy" ? `${f.name} → ${st.target}` : `${attackersOf(f, st)} → ${f.name}`), " ",
      h("span", { class: "sum" }, st.sum), st.ruined ? ` (${SHORT[st.ruined]} ruined)` : "")))));
}

/** A fight ended by hand, with why: the event, or nothing when the fight goes on. */
async function endFight() {
  const reason = await dialog((close) => [
    h("p", { class: "big" }, "End this fight by hand?"),
    h("p", { class: "muted" }, "The card turns face down and nothing is paid (logged like a number set by hand)."),
    h("div", { class: "row" }, ...END_REASONS.map((r) =>
      button(r, { dataset: { why: r }, onTap: () => close(r) }))),
    h("div", { class: "row" }, button("Keep fighting", { cls: "ghost", onTap: () => close(null) })),
  ]);
  return reason ? { type: "end_fight", reason } : null;
}

function renderFightRunning(view, s) {
  const f = s.fight;
  const step = f.next === "initiative"
    ? ["Initiative: one die for the heroes, one for the ", f.name]
    : f.skunk_pending ? [`The skunk${f.initiative ? ` (initiative ${f.initiative[0]} against ${f.initiative[1]})` : ""}: `
      + `the ${f.name} ${verb(f, "strikes", "strike")} once, then the heroes leave`] : STEP[f.strikes_next](f);
  const extras = [];
  for (const m of f.members) {
    if (m.may_skunk) {
      extras.push(button(["Skunk ", who(view, m.player)], { cls: "hr-skunk", dataset: { skunk: m.player },
        onTap: () => send(null, () => skunkEvent(f, m.player)) }));
    }
    if (m.may_cloak) {
      extras.push(button(["Cloak ", who(view, m.player)], { cls: "hr-cloak", dataset: { cloak: m.player },
        onTap: () => send({ type: "use", player: m.player, item: "cloak" }) }));
    }
  }
  return [
    h("div", { class: "hr-foe", id: "hr-foe" },
      h("strong", { class: "hr-foe-name" }, f.name),
      h("span", { class: "hr-foe-lives", id: "hr-enemy-lives", dataset: { lives: f.enemy_lives } },
        `♥ ${f.enemy_lives}/${f.enemy_max_lives}`),
      h("small", {}, ` attack ${f.enemy_attacks.join("/")} · defence ${f.enemy_defence} · treasure ${f.treasure}`),
      h("span", { class: "hr-foe-bar", "aria-hidden": "true" },
        h("span", { style: { width: `${Math.min(100, (100 * f.enemy_lives) / f.enemy_max_lives)}%` } }))),
    h("div", { class: `hr-members${choosingTargets(f) ? " choosing" : ""}` }, ...f.members.map((m) => h("div", {
      class: `hr-member${m.in_fight ? "" : " gone"}`, dataset: { member: m.player, lives: m.lives } },
      h("span", { class: "hr-member-who" }, who(view, m.player), heroOf(s, m.player) ? pips(heroOf(s, m.player)) : null,
        ` ♥ ${m.lives} · ${m.weapon ? SHORT[m.weapon] : "no weapon"}`,
        m.in_fight && !m.can_attack ? h("small", { class: "hr-warn" }, " no attack") : null),
      ...targetButtons(view, f, m.player)))),
    // the exchange's step and its buttons stay at the screen's foot over a long list of heroes and their targets
    h("div", { class: "hr-fight-bar" },
      h("p", { class: "hr-step", id: "hr-step" }, ...step.flat(),
        choosingTargets(f) ? h("small", { class: "muted" }, f.enemy !== "dragon" ? " · tap whom it strikes"
          : f.standing.length > 1 ? " · tap whom each attack strikes, a ✓ to leave it out"
            : " · tap a ✓ to leave that attack out") : null),
      h("div", { class: "hr-row fight-buttons" },
        button("Roll", { cls: "primary hr-roll", id: "hr-roll", onTap: () => {
          const strike = f.next === "initiative" ? { type: "initiative" }
            : { type: "strike", ...(f.dice_needed.enemy_dice ? chargeOf(f) : {}) };
          return ironAtStake(s, f) ? send(null, async () => { const ruin = await ruinChoice(s, f); return ruin && {
            ...strike, ...ruin }; }) : send(strike);
        } }),
        button("Enter dice…", { id: "hr-dice", onTap: () => send(null, () => enterDice(game.view.state)) }),
        ...extras,
        button("End the fight…", { cls: "ghost", id: "hr-end-fight", onTap: () => send(null, endFight) }))),
    f.exchanges.length ? exchangeList(f) : null];
}

function renderFight(view, s) {
  $("hr-fight").replaceChildren(...(s.fight ? renderFightRunning(view, s) : renderFightSetup(view, s)).filter(Boolean));
}

function renderLast(view, s, detail = "parts") {
  const box = $("hr-last");
  const f = s.last_fight;
  // what happened last, the last fight, dart or treasure (the companion keeps one, until a later move), shown
  // whichever tab is open (a dart ends the move)
  box.hidden = (!f && !s.last_treasure && !s.last_dart) || Boolean(s.fight);
  if (box.hidden) return;
  if (s.last_dart) { box.replaceChildren(...dartText(view, s, s.last_dart)); return; }
  if (!f) { box.replaceChildren(...treasureText(view, s.last_treasure).flat()); return; }
  const heroes = f.members.map((m) => m.player);
  const paid = bySeat(view, f.shares);
  const sums = fightSums(f, detail);
  // a victory is the heroes still standing; who fell in it or left with the cloak is said apart
  const won = f.outcome === "won" && f.standing?.length ? f.standing : heroes;
  const gone = heroes.filter((p) => !won.includes(p))
    .flatMap((p, i) => [i ? ", " : "", who(view, p), heroOf(view.state, p)?.out ? " fell" : " left"]);
  box.replaceChildren(h("strong", {}, "Last fight: "), ...whoList(view, won), ` ${OUTCOME[f.outcome] || f.outcome} the ${f.name}`,
    ...(gone.length ? [" (", ...gone, ")"] : []),
    ...(paid.length ? [": ", ...paid.flatMap(([p, n], i) => [i ? ", " : "", who(view, p), ` +${n} treasure`])] : []),
    ...(sums && !f.left_over ? [h("small", { class: "sum" }, ` · ${sums}`)] : []), ".",
    ...(f.left_over ? keeperQuestion(view, f) : []));
}

/** The last exchange of a fight in words: every attack of it with its sums (the Harpies strike twice, the Dragon up to
 *  three times, ruling H6; both sides at once in a simultaneous exchange), the damage in all to a hero struck more
 *  than once, and, where the fight took more than that exchange, the lives each hero lost in the whole fight: the
 *  line agrees with the lives gone from the heroes' cards. A sum leaves out its parts of 0 (no armour, no shield),
 *  so that the line takes no more room on the screen than it must. */
function fightSums(f, detail = "parts") {
  const x = f.exchanges.at(-1);
  if (!x) return "";
  const said = [];
  // who struck whom, before each side's sums; a hero fighting alone, in an exchange one side struck, the line's start
  // says it already ("Ben escaped from the Harpies")
  const alone = f.members.length === 1;
  let by = alone && x.kind !== "simultaneous" ? "" : null;
  const damage = new Map(); // each hero the enemy struck: the damage in all, and how many attacks
  for (const st of x.strikes) {
    const side = by === "" ? "" : st.side === "enemy" ? `${f.name} → ${st.target}` : `${attackersOf(f, st)} → ${f.name}`;
    said.push(`${side === by ? "" : `${side}: `}${sumOf(st, detail)}${st.ruined ? ` (${SHORT[st.ruined]} ruined)` : ""}`);
    by = side;
    if (st.side === "enemy") {
      const [n, hits] = damage.get(st.target) || [0, 0];
      damage.set(st.target, [n + st.damage, hits + 1]);
    }
  }
  const inAll = [...damage].filter(([, [, hits]]) => hits > 1)
    .map(([p, [n]]) => `${n} damage ${alone ? "" : `to ${p} `}in all`);
  const lost = f.members.filter((m) => m.lives_lost);
  const whole = f.exchange_count > 1 || lost.some((m) => m.lives_lost !== damage.get(m.player)?.[0]);
  const fight = (whole || detail === "lost") && lost.length ? [`${f.exchange_count > 1 ? "in the whole fight " : ""}${
    lost.map((m, i) => `${m.player}${i ? "" : " lost"} ${plural(m.lives_lost, "life", "lives")}`).join(", ")}`] : [];
  if (detail === "lost") return fight.join("");
  return [`${f.exchange_count > 1 ? "the last exchange: " : ""}${said.join("; ")}`, ...inAll, ...fight].join(" · ");
}

/** One attack's sum in words, its parts of 0 left out: "15 + 2 = 17 vs 11 + 4 = 15: 2 damage"; where the screen has
 *  no room for that (`detail`, fitToScreen), its totals ("17 vs 15: 2 damage"), or its damage alone (where even that
 *  has none, the fight's line tells only the lives each hero lost in it). */
function sumOf(st, detail = "parts") {
  const parts = (list) => list.filter((part, i) => part.value || i === 0).map((part) => part.value).join(" + ");
  if (detail === "damage") return `${st.damage} damage`;
  if (detail === "totals") return `${st.attack_total} vs ${st.defence_total}: ${st.damage} damage`;
  return `${parts(st.attack)} = ${st.attack_total} vs ${parts(st.defence)} = ${st.defence_total}: ${st.damage} damage`;
}

/** The page fitted to a screen where the heroes' cards stand beside the round (the Pi's 800x480 one): the log of
 *  numbers set by hand shows its newest lines that fit beside the cards (none, deep in a game of four: the whole log
 *  is in the menu, "Numbers set by hand…"), and the last fight's line tells as much of each attack's sum as fits above
 *  the round (all its parts, its totals, its damage, or only the lives lost), never taking the page below the
 *  screen's foot where less would not. A phone's page, one column, scrolls all the same. */
function fitToScreen(view, s) {
  const aside = $("hr-heroes").closest(".scores");
  const round = $("round");
  if (!aside || aside.getBoundingClientRect().right > round.getBoundingClientRect().left) return;
  const longer = (a, b) => a.getBoundingClientRect().bottom >= b.getBoundingClientRect().bottom;
  const lines = [...document.querySelectorAll("#hr-overrides > li")];
  while (lines.length && pastTheFoot() > 0 && longer(aside, round)) lines.pop().remove();
  if (!lines.length) $("hr-log").hidden = true;
  for (const detail of ["totals", "damage", "lost"]) {
    if ($("hr-last").hidden || pastTheFoot() <= 0 || !longer(round, aside)) break;
    renderLast(view, s, detail);
  }
}

/** Ruling H13: the hero named to keep what the treasure leaves over no longer shares it: the table names another. */
function keeperQuestion(view, f) {
  const gone = heroOf(view.state, f.keeper_named)?.out ? "was defeated" : "left the fight";
  return [h("span", { class: "hr-left-over", id: "hr-left-over" },
    ` ${f.keeper_named} ${gone}: who keeps the ${f.left_over} left over? `),
  ...bySeat(view, f.shares).map(([p]) => button([who(view, p), ` +${f.left_over}`], {
    cls: "hr-keep", dataset: { keep: p }, "aria-label": `${p} keeps the ${f.left_over} left over`,
    style: { "--c": colourOf(view, p) }, onTap: () => send({ type: "remainder", player: p }) }))];
}

// ---- numbers set by hand ------------------------------------------------------------------------------------------

function fieldsOf(s, hero) {
  const items = [...WEAPONS, "shield", "leather", "chain_mail", "food", "torch", "darren_back", "skunk", "antidote",
    "potion", "opening_spell", "cloak"];
  const count = (id) => hero.equipment[id] || hero.cards[id] || 0;
  return [
    ["gold", "Gold", hero.gold, 0, 9999], ["treasure", "Treasure", hero.treasure, 0, 9999],
    ["lives", "Lives", hero.lives, 0, hero.max_lives], ["max_lives", "Lives at most", hero.max_lives, 1, 40],
    ["red", "Red lives", hero.red, 0, hero.max_lives - 1], ["attack", "Attack", hero.attack, 0, 30],
    ["defence", "Defence", hero.defence, 0, 30], ["waiting", "Rounds to wait", hero.waiting, 0, 9],
    ["poisoned", "Poisoned", hero.poisoned ? 1 : 0, 0, 1],
    ...items.map((id) => [id, SHORT[id], count(id), 0, 9]),
  ];
}

/** A field's value as the field list shows it: poisoned or not is a yes or a no. */
const shownValue = (field, value) => (field === "poisoned" ? (value ? "yes" : "no") : String(value));

/** Poisoned or not, by a yes or a no (ruling H9): 1 or 0 for the override, or null when cancelled. */
async function askPoisoned(player, now) {
  const answer = await pick(`${player}: poisoned?`, [
    ["yes", `Yes, poisoned${now ? " (as now)" : ""}`, { dataset: { poisoned: "yes" } }],
    ["no", `No, not poisoned${now ? "" : " (as now)"}`, { dataset: { poisoned: "no" } }]]);
  return answer == null ? null : Number(answer === "yes");
}

function pick(title, choices, cancel = "Cancel") {
  return dialog((close) => [
    h("p", { class: "big" }, title),
    h("div", { class: "hr-picks" }, ...choices.map(([value, content, props = {}]) =>
      button(content, { ...props, onTap: () => close(value) }))),
    h("div", { class: "row" }, button(cancel, { cls: "ghost", onTap: () => close(null) })),
  ], { cls: "hr-pick" });
}

/** Why a number or the stock was changed by hand: the reason, or null for Back (the step before, as typed). */
const why = (title, reasons) => pick(title, reasons.map((r) => [r, r, { dataset: { why: r } }]), "← Back");

/** A number set by hand (a hero's, or the enemy's lives), with why: the override event, or nothing when cancelled. */
async function setNumber(player = null) {
  const view = game.view;
  const s = view.state;
  if (!s || s.finished || view.read_only) return;
  let target = player;
  if (!target) {
    const choices = s.heroes.map((x) => [x.player, who(view, x.player), { dataset: { pick: x.player },
                                                                         style: { "--c": colourOf(view, x.player) } }]);
    if (s.fight) choices.push(["@enemy", `The ${s.fight.name}`, { dataset: { pick: "@enemy" } }]);
    target = await pick("Whose number?", choices);
    if (!target) return;
  }
  let field; let label; let value; let min; let max;
  if (target === "@enemy") {
    [field, label, value, min, max] = ["enemy_lives", `The ${s.fight.possessive} lives`, s.fight.enemy_lives, 1, 99];
  } else {
    const hero = heroOf(s, target);
    const fields = fieldsOf(s, hero);
    field = await pick([who(view, target), ": which number?"], fields.map(([id, name, now]) =>
      [id, [h("span", {}, name), h("small", { class: "muted" }, ` ${shownValue(id, now)}`)], { dataset: { field: id } }]));
    if (!field) return;
    const found = fields.find((f) => f[0] === field);
    [label, value, min, max] = [`${target}: ${found[1]}`, found[2], found[3], found[4]];
  }
  let number = value;
  let reason = null;
  while (!reason) { // Back at "Why?" returns to the keypad with the number typed (or to the yes or no)
    number = field === "poisoned" ? await askPoisoned(target, value) : await keypad(label, { value: number, min, max });
    if (number == null) return;
    const change = field === "poisoned" ? `${target}: ${number ? "poisoned" : "not poisoned"}`
      : `${label}: ${value} → ${number}`;
    reason = await why(`${change}. Why?`, REASONS);
  }
  const event = { type: "override", field, value: number, reason };
  if (target !== "@enemy") event.player = target;
  return event;
}

// ---- the page -----------------------------------------------------------------------------------------------------

function noWinner(view) {
  if (!view.finished || !view.state?.no_winner) return;
  $("winners").replaceChildren(h("span", { class: "label" }, "No winner"),
    h("span", { class: "hr-fallen" }, "Every hero fell without the sceptre"));
}

function render(view, g) {
  game = g;
  const s = view.state;
  if (!s) return;
  document.body.dataset.phase = s.phase;
  document.body.dataset.game = view.game;
  renderHeroes(view, s);
  fitHeroes();
  if (s.finished) { queueMicrotask(() => noWinner(view)); return; } // the kit's final screen
  renderTabs(view, s);
  renderLast(view, s);
  if (local.pane === "city") renderCity(view, s);
  if (local.pane === "castle") renderCastle(view, s);
  if (local.pane === "fight") renderFight(view, s);
  if (local.pane === "bank") renderBank(view, s);
  fitToScreen(view, s);
}

/** How the game was won, on the final screen (H17); a game every hero fell in says so by its winners' line. */
function howWon(view) {
  const finder = view.state?.finished && view.state.heroes.find((hero) => hero.sceptre);
  return finder ? `${finder.player} found the royal sceptre (+50), which ended the game. Treasure and gold count, `
    + "and the most win." : "";
}

game = startGame({ render, phrase, why: howWon });
addEventListener("resize", () => render(game.view, game)); // a phone turned: fitted to the screen as it is now
$("hr-set").addEventListener("click", () => { $("menu").hidden = true; game.ask(setNumber); });
$("hr-log-open").addEventListener("click", () => { $("menu").hidden = true; showLog(); });
