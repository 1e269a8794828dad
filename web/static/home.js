// Home page: pick a game, seat the players by tap (each with a colour), set the options, start.
import {
  DOUBLE_TAP_MS, NOT_COUNTED, PALETTE, SYMBOLS, api, button, confirm, dialog, explain, h, icon, keyboard, keypad,
  pickColour, toast, whenUntouched, wire,
} from "./kit.js";

let games = JSON.parse(document.getElementById("games-data").textContent);
let players = JSON.parse(document.getElementById("players-data").textContent);
/** Where an "object" option is kept and edited, by game and option (e.g. Dračí hrad's hero cards): {href, note}. */
const optionPages = JSON.parse(document.getElementById("option-pages-data").textContent);
const seats = []; // [{name, colour}] in seat order
let game = null;
const options = {};
const picks = {}; // a "symbols" option chosen per seat: option id -> {player name: choice}
let seatDrawers = []; // options drawn per seat, redrawn whenever the seats change

const $ = (id) => document.getElementById(id);
const startBtn = $("start");
const symbolName = (id) => SYMBOLS.find((s) => s.id === id)?.name || id;

// ---- colours on the cards ---------------------------------------------------------------------------------

function colourCards(root) {
  for (const el of root.querySelectorAll("[data-colour]")) {
    const colour = el.dataset.colour || PALETTE[Number(el.dataset.seat || 0) % PALETTE.length].colour;
    el.style.setProperty("--c", colour);
  }
}
colourCards(document);

// ---- players and seats --------------------------------------------------------------------------------------

const remembered = (name) => players.find((p) => p.name === name)?.colour || null;

/** How far apart two "#rrggbb" colours look (the "redmean" weighting of their red, green and blue). */
function colourDistance(a, b) {
  const [r1, g1, b1] = [1, 3, 5].map((i) => parseInt(a.slice(i, i + 2), 16));
  const [r2, g2, b2] = [1, 3, 5].map((i) => parseInt(b.slice(i, i + 2), 16));
  const r = (r1 + r2) / 2;
  return Math.sqrt((2 + r / 256) * (r1 - r2) ** 2 + 4 * (g1 - g2) ** 2 + (2 + (255 - r) / 256) * (b1 - b2) ** 2);
}

/** Colours nearer than this to one at the table are told apart across it only with care: the palette's sky blue
 *  and blue (87), orange and vermilion (122); any other two of it lie 134 or more apart. */
const NEAR_COLOUR = 125;

/** `name`'s own colour when no other seat has it, else a free one: first one no other known player calls
 * their own (a newcomer seated first does not take a regular's colour, who would then lose it at Start), and,
 * where one is left, none near a colour seated or a regular's own. */
function freeColour(name) {
  const upper = (colour) => (colour || "").toUpperCase();
  const taken = seats.filter((s) => s.name !== name).map((s) => upper(s.colour));
  const own = remembered(name);
  if (own && !taken.includes(upper(own))) return own;
  const others = players.filter((p) => p.name !== name).map((p) => upper(p.colour));
  const free = PALETTE.map((p) => p.colour).filter((c) => !taken.includes(c));
  const apart = (from) => (c) => from.every((t) => !/^#[0-9A-F]{6}$/.test(t) || colourDistance(c, t) >= NEAR_COLOUR);
  const unowned = free.filter((c) => !others.includes(c));
  return unowned.find(apart([...taken, ...others])) || unowned.find(apart(taken)) || unowned[0]
    || free.find(apart(taken)) || free[0] || PALETTE[0].colour;
}

function renderPool() {
  const pool = $("player-pool");
  pool.replaceChildren(...players.map((p) => {
    const seated = seats.some((s) => s.name === p.name);
    return button([h("span", { class: "dot", style: { "--c": p.colour || "transparent" } }), p.name], {
      cls: "chip", dataset: { player: p.name }, "aria-pressed": String(seated), onTap: () => toggleSeat(p.name),
    });
  }), button("+ New player", { cls: "chip add", id: "add-player", onTap: addPlayer }));
}

function renderSeats() {
  $("seats").replaceChildren(...seats.map((seat, i) =>
    h("li", { dataset: { seat: i + 1, player: seat.name }, style: { "--c": seat.colour } },
      h("b", {}, `${i + 1}`),
      button(h("span", { class: "swatch" }), { cls: "colour", "aria-label": `Colour for ${seat.name}`,
                                               "data-colour": seat.colour, onTap: () => chooseColour(seat) }),
      h("span", { class: "seat-name" }, seat.name), i === 0 && !game?.starter_at_table ? h("small", {}, "starts") : null)));
  $("seat-hint").textContent = `tap in seat order, clockwise; ${game?.starter_at_table
    ? "who starts is chosen at the table once the game begins" : "the first starts"}`;
}

function refresh() {
  renderPool();
  renderSeats();
  for (const draw of seatDrawers) draw();
  const count = seats.length;
  const ok = game && count >= game.min_players && count <= game.max_players;
  startBtn.textContent = !game ? "Choose a game" : `Start ${game.name}`;
  explain(startBtn, !game ? "Choose a game first."
    : ok ? null : `${game.name}: seat ${game.min_players} to ${game.max_players} players.`);
  followBelow();
}

/** Seat `name`, or unseat a seated player; the caller redraws. */
function seatOrUnseat(name) {
  const i = seats.findIndex((s) => s.name === name);
  if (i >= 0) seats.splice(i, 1);
  else if (game && seats.length >= game.max_players) toast(`${game.name} seats at most ${game.max_players}.`, "error");
  else seats.push({ name, colour: freeColour(name) });
}

function toggleSeat(name) {
  seatOrUnseat(name);
  refresh();
}

async function rememberColour(name, colour) {
  const saved = await api(`/api/players/${encodeURIComponent(name)}`, { colour });
  if (saved.ok && saved.data?.players) players = saved.data.players;
  return saved.ok;
}

async function chooseColour(seat) {
  const taken = seats.filter((s) => s !== seat).map((s) => s.colour);
  const colour = await pickColour(`${seat.name}'s colour`, seat.colour, taken);
  if (!colour) return;
  const other = seats.find((s) => s !== seat && s.colour === colour);
  if (other) other.colour = seat.colour; // two players never share a colour: they swap
  seat.colour = colour;
  refresh();
  await rememberColour(seat.name, colour);
  whenUntouched(refresh); // the answer comes while the next tap may be under way
}

async function addPlayer() {
  const name = await keyboard("New player");
  if (!name) return;
  const known = players.find((p) => p.name.toLowerCase() === name.toLowerCase());
  if (!known) {
    const saved = await api("/api/players", { name });
    if (!saved.ok) return;
    players = (saved.data.players || []).map((p) => (typeof p === "string" ? { name: p, colour: null } : p));
  }
  const seatName = known ? known.name : name;
  if (seats.some((s) => s.name === seatName)) toast(`${seatName} is already at the table.`);
  else seatOrUnseat(seatName);
  whenUntouched(refresh); // the answer comes while the next tap may be under way
}

// ---- options ----------------------------------------------------------------------------------------------

function intOption(opt) {
  const value = button(String(options[opt.id]), { cls: "value", id: `opt-${opt.id}`, "aria-label": `${opt.name}: type a number` });
  const set = (next) => {
    if (next < opt.minimum || next > opt.maximum) {
      toast(`${opt.name}: from ${opt.minimum} to ${opt.maximum}.`, "error");
      return;
    }
    options[opt.id] = next;
    value.textContent = String(next);
  };
  value.addEventListener("click", async () => {
    const typed = await keypad(opt.name, { value: options[opt.id], min: opt.minimum, max: opt.maximum });
    if (typed != null) set(typed);
  });
  return h("div", { class: "option" }, h("span", { class: "label" }, opt.name),
    button("−", { "aria-label": `less ${opt.name}`, onTap: () => set(options[opt.id] - 1) }), value,
    button("+", { "aria-label": `more ${opt.name}`, onTap: () => set(options[opt.id] + 1) }),
    h("small", {}, opt.help));
}

/** An on/off option: its name, and "On" or "Off" under it in words, not by its colour alone. */
function boolOption(opt) {
  const state = h("small", { class: "switch-state" });
  const btn = button([h("span", {}, opt.name), state], { cls: "choice" });
  const show = () => {
    btn.setAttribute("aria-pressed", String(options[opt.id]));
    state.textContent = options[opt.id] ? "On" : "Off";
  };
  btn.addEventListener("click", () => {
    options[opt.id] = !options[opt.id];
    show();
  });
  show();
  return h("div", { class: "option" }, btn, h("small", {}, opt.help));
}

function namesOption(opt) {
  const row = h("div", { class: "option names" }, h("span", { class: "label" }, opt.name));
  options[opt.id].forEach((name, i) => {
    const btn = button(name, { cls: "chip", onTap: async () => {
      const typed = await keyboard(`${opt.name} ${i + 1}`, options[opt.id][i]);
      if (typed) { options[opt.id][i] = typed; btn.textContent = typed; }
    } });
    row.append(btn);
  });
  return row;
}

/** Gates with a symbol and a name each (ruling D2): chosen by tap, the name defaults to the symbol's. */
function gatesOption(symbolsOpt, namesOpt) {
  const symbols = options[symbolsOpt.id];
  const names = options[namesOpt.id];
  const isDefault = (k) => names[k] === symbolName(symbols[k]) || /^Gate \d+$/.test(names[k]);
  names.forEach((_, k) => { if (/^Gate \d+$/.test(names[k])) names[k] = symbolName(symbols[k]); });

  const choose = (i, symbol) => {
    const j = symbols.indexOf(symbol);
    const old = symbols[i];
    if (j >= 0 && j !== i) { // a symbol marks one gate only: the two gates swap
      if (isDefault(j)) names[j] = symbolName(old);
      symbols[j] = old;
    }
    if (isDefault(i)) names[i] = symbolName(symbol);
    symbols[i] = symbol;
  };
  const box = h("div", { class: "option gates" });
  const draw = () => box.replaceChildren(h("span", { class: "label" }, "Gates", h("small", {}, " tap to choose")),
    h("div", { class: "gate-pad", id: "gate-options" }, ...symbols.map((symbol, i) =>
      button([icon(symbol), h("span", { class: "gname" }, names[i])], {
        cls: "gate", dataset: { gateOption: i + 1 }, "aria-label": `Gate ${i + 1}: ${names[i]}`,
        onTap: () => editGate(i),
      }))));
  const editGate = (i) => dialog((close) => [
    h("p", { class: "big" }, `Gate ${i + 1}`, h("small", { class: "muted" }, " left to right as the active player sees the castle")),
    h("div", { class: "symbols", id: "symbol-choice" }, ...SYMBOLS.map((s) =>
      button([icon(s.id), h("span", { class: "gname" }, s.name)], {
        cls: `gate${symbols[i] === s.id ? " current" : ""}`, dataset: { symbol: s.id },
        onTap: () => { choose(i, s.id); draw(); close(); },
      }))),
    h("div", { class: "row" },
      button(`Rename “${names[i]}”…`, { id: "rename-gate", onTap: async () => {
        close();
        const typed = await keyboard(`Name of gate ${i + 1}`, names[i]);
        if (typed) { names[i] = typed; draw(); }
      } }),
      button("Done", { cls: "primary", onTap: () => close() })),
  ]);
  draw();
  return box;
}

const choiceName = (opt, id) => opt.labels?.[id] || id[0].toUpperCase() + id.slice(1).replace(/_/g, " ");

/** A "symbols" option without a fixed length: one choice per seat, no choice twice. A seated player keeps the
 *  choice they were given by tap; the others take the first free ones in the option's order. */
function seatChoices(opt) {
  const chosen = picks[opt.id] || (picks[opt.id] = {});
  const used = [];
  const kept = seats.map((s) => {
    const c = chosen[s.name];
    if (c && opt.choices.includes(c) && !used.includes(c)) { used.push(c); return c; }
    return null;
  });
  return kept.map((c) => {
    if (c) return c;
    const free = opt.choices.find((x) => !used.includes(x));
    used.push(free);
    return free;
  });
}

/** "symbols": each slot (a seat, or one of `length` places) taps open the choices; a choice already taken
 *  elsewhere swaps with this slot's, so no choice is ever held twice. */
function symbolsOption(opt) {
  const perSeat = opt.length == null;
  const values = () => (perSeat ? seatChoices(opt) : options[opt.id]);
  const choose = (i, choice) => {
    const now = values();
    const j = now.indexOf(choice);
    if (perSeat) {
      const chosen = picks[opt.id];
      if (j >= 0 && j !== i) chosen[seats[j].name] = now[i];
      chosen[seats[i].name] = choice;
    } else {
      if (j >= 0 && j !== i) options[opt.id][j] = now[i];
      options[opt.id][i] = choice;
    }
  };
  const box = h("div", { class: "option hero-line", id: `opt-${opt.id}` });
  const pick = (i) => dialog((close) => {
    const now = values();
    const slot = perSeat ? seats[i].name : `${opt.name} ${i + 1}`;
    return [
      h("p", { class: "big" }, perSeat ? `${slot} plays` : slot),
      h("div", { class: "hero-choice", id: "symbol-choice" }, ...opt.choices.map((c) => {
        const holder = now.indexOf(c);
        const note = holder >= 0 && holder !== i ? (perSeat ? ` (now ${seats[holder].name})` : ` (now ${holder + 1})`) : "";
        return button([choiceName(opt, c), note ? h("small", { class: "muted" }, note) : null], {
          cls: `hero-choice-btn${now[i] === c ? " current" : ""}`, dataset: { choice: c },
          onTap: () => { choose(i, c); draw(); close(); },
        });
      })),
      h("div", { class: "row" }, button("Cancel", { cls: "ghost", onTap: () => close() })),
    ];
  });
  const draw = () => {
    const now = values();
    const slots = perSeat ? seats.map((s) => s.name) : now.map((_, i) => `${i + 1}`);
    box.replaceChildren(h("span", { class: "label" }, opt.name, h("small", {}, " tap to choose")),
      slots.length ? h("div", { class: "hero-seats" }, ...slots.map((slot, i) =>
        button([h("small", {}, slot), h("span", {}, choiceName(opt, now[i]))], {
          cls: "hero-seat", dataset: { seatOption: i + 1, choice: now[i] },
          style: perSeat ? { "--c": seats[i].colour } : {},
          "aria-label": `${slot}: ${choiceName(opt, now[i])}; tap to choose`, onTap: () => pick(i),
        }))) : h("small", {}, "Seat the players first: each gets one."));
  };
  if (perSeat) seatDrawers.push(draw);
  draw();
  return box;
}

/** "object": a value kept elsewhere (e.g. the hero cards): a line saying so, with the page that edits it. */
function objectOption(opt) {
  const page = optionPages[game.id]?.[opt.id];
  const name = opt.name.toLowerCase();
  return h("div", { class: "option", id: `opt-${opt.id}` }, h("span", { class: "label" }, opt.name),
    page?.note ? h("span", { class: "notice" }, page.note)
      : h("span", {}, page ? `The stored ${name} are used. ` : "The usual values are used."),
    page ? h("a", { class: "btn", href: page.href, id: `edit-${opt.id}` }, page.note ? `Copy the ${name}` : `Edit the ${name}`)
      : null);
}

/** What a new game is started with: per-seat choices as the seats stand; "object" options left to the
 *  companion, which fills in the stored value (so the last game's copy never overrides a later edit). */
function chosenOptions() {
  const out = {};
  for (const opt of game.options) {
    if (opt.kind === "object") continue;
    out[opt.id] = opt.kind === "symbols" && opt.length == null ? seatChoices(opt) : options[opt.id];
  }
  return out;
}

function renderOptions() {
  const box = $("options");
  box.replaceChildren();
  seatDrawers = [];
  if (!game) return;
  for (const opt of game.options) {
    if (!(opt.id in options)) options[opt.id] = structuredClone(game.last_options?.[opt.id] ?? opt.default);
  }
  const symbolsOpt = game.options.find((o) => o.id === "gate_symbols");
  const namesOpt = game.options.find((o) => o.id === "gate_names");
  for (const opt of game.options) {
    if (symbolsOpt && namesOpt && (opt === symbolsOpt || opt === namesOpt)) {
      if (opt === symbolsOpt) box.append(gatesOption(symbolsOpt, namesOpt));
    } else if (opt.kind === "int") box.append(intOption(opt));
    else if (opt.kind === "bool") box.append(boolOption(opt));
    else if (opt.kind === "names") box.append(namesOption(opt));
    else if (opt.kind === "symbols") box.append(symbolsOption(opt));
    else if (opt.kind === "object") box.append(objectOption(opt));
  }
}

function chooseGame(id) {
  game = games.find((g) => g.id === id);
  for (const other of document.querySelectorAll("#game-choice [data-game]")) {
    other.setAttribute("aria-pressed", other.dataset.game === id ? "true" : "false");
  }
  for (const key of Object.keys(options)) delete options[key];
  while (seats.length > game.max_players) seats.pop();
  renderOptions();
  refresh();
}

for (const btn of document.querySelectorAll("#game-choice [data-game]")) {
  btn.addEventListener("click", async () => { await ready; chooseGame(btn.dataset.game); });
}

// ---- what lies below, on the way to Start ---------------------------------------------------------------------
// Start comes after the options, so that a family sees each of them before it. While Start lies below the screen, the
// bar at the screen's foot says how many options lie below (under the bar or past it), and a tap on it brings the first
// of the form's parts not yet seen whole to the top of the screen: the heroes by seat, the hero cards' note, then Start.

const belowBar = $("below-bar");
const belowBtn = $("more-below");
let belowTapped = { at: -Infinity, box: null }; // when the bar was tapped, and where it lay

let belowWords = "";

function followBelow() {
  const below = Boolean(game) && startBtn.getBoundingClientRect().bottom > innerHeight + 0.5;
  if (belowBar.hidden === below) belowBar.hidden = !below; // written only when it changes: this runs as the page scrolls
  if (!below) return;
  const foot = belowBar.getBoundingClientRect().top;
  const count = [...$("options").children].filter((el) => el.getBoundingClientRect().bottom > foot + 0.5).length;
  const words = count ? `${count} option${count > 1 ? "s" : ""} below, then Start` : "Start is below";
  if (words !== belowWords) belowBtn.replaceChildren(h("span", { "aria-hidden": "true" }, "↓"), words);
  belowWords = words;
}

wire(belowBtn, () => {
  belowTapped = { at: performance.now(), box: belowBtn.getBoundingClientRect() };
  const top = document.querySelector("header.bar")?.getBoundingClientRect().bottom ?? 0;
  const foot = belowBar.getBoundingClientRect().top;
  const parts = [...$("new-game").querySelectorAll(":scope > :not(#options, #below-bar), #options > *")];
  const cut = parts.find((el) => el.getBoundingClientRect().bottom > foot + 0.5);
  // a part taller than the screen, its top already at the top: the screen's worth below it
  if (!cut || cut.getBoundingClientRect().top <= top + 8) scrollBy(0, foot - top - 24);
  else cut.scrollIntoView({ block: cut.contains(startBtn) ? "nearest" : "start" });
  followBelow();
});
addEventListener("scroll", followBelow, { passive: true });
addEventListener("resize", followBelow);
new ResizeObserver(followBelow).observe(document.body); // the form or the games above it grown or shrunk

wire(startBtn, async () => {
  const { at, box } = belowTapped, now = startBtn.getBoundingClientRect();
  const underFinger = box && now.top < box.bottom && now.bottom > box.top && now.left < box.right && now.right > box.left;
  if (underFinger && performance.now() < at + DOUBLE_TAP_MS) { // Start come to lie where the bar was: a double tap
    toast(NOT_COUNTED);
    return;
  }
  explain(startBtn, "Starting…");
  // colours chosen here, or given by seat, are remembered with the names before the game starts
  await Promise.all(seats.filter((s) => s.colour !== remembered(s.name)).map((s) => rememberColour(s.name, s.colour)));
  const result = await api("/api/sessions", { game: game.id, players: seats.map((s) => s.name), options: chosenOptions() });
  if (result.ok) {
    game = null;  // started: the form is not kept (pagehide)
    location.href = `/play/${result.data.id}`;
  } else refresh();
});

// The last options of each game (gate names and symbols are remembered this way) and the players' colours.
async function catchUp() {
  const [gamesNow, playersNow] = await Promise.all([api("/api/games"), api("/api/players")]);
  if (gamesNow.ok) games = gamesNow.data.games;
  if (playersNow.ok) players = playersNow.data.players.map((p) => (typeof p === "string" ? { name: p, colour: null } : p));
  refresh();
}

// "Carry on": "Put a game away…", and "N more unfinished games" (the older unfinished games, shown in place or put
// back behind the button).
function wireRunning(section, open = false) {
  const away = section?.querySelector("#put-away");
  if (away) wire(away, putAway);
  const more = section?.querySelector("#more-running");
  if (!more) return;
  const show = (shown) => {
    section.querySelectorAll("[data-more]").forEach((card) => { card.hidden = !shown; });
    more.setAttribute("aria-expanded", String(shown));
    more.textContent = shown ? "Show fewer" : more.dataset.moreLabel;
  };
  wire(more, () => show(more.getAttribute("aria-expanded") !== "true"));
  show(open);
}
wireRunning($("running"));

// ---- putting an unfinished game away (abandoned: looked at, not carried on) -------------------------------------

/** A "Carry on" card in words: the game, the players, its round and when it began. */
function cardWords(card) {
  const names = [...card.querySelectorAll(".card-players li")].map((li) => li.childNodes[1]?.textContent.trim());
  return { game: card.querySelector("strong").textContent.trim(), players: names.join(", "),
           when: [card.querySelector(".card-round")?.textContent, card.querySelector(".card-when")?.textContent]
             .filter(Boolean).join(" · ") };
}

async function putAway() {
  const unfinished = [...document.querySelectorAll("#running .card[data-session]:not(.set-aside)")]
    .map((card) => ({ id: card.dataset.session, ...cardWords(card) }));
  const chosen = await dialog((close) => [
    h("p", { class: "big" }, "Put which game away?"),
    h("p", { class: "muted" }, "It is kept as abandoned: it can be looked at, not carried on."),
    h("div", { class: "put-away-list" }, ...unfinished.map((one) =>
      button([h("strong", {}, `${one.game}: ${one.players}`), h("small", {}, one.when)],
        { dataset: { putAway: one.id }, onTap: () => close(one) }))),
    h("div", { class: "row" }, button("Cancel", { cls: "ghost", onTap: () => close(null) })),
  ]);
  if (!chosen) return;
  const { id, ...words } = chosen;
  if (!(await confirm(`Put ${words.game} of ${words.players} away?`, "Put it away", "Keep it", words.when))) return;
  const result = await api(`/api/sessions/${id}/abandon`, {});  // a game finished meanwhile: the refusal says so
  if (!result.ok) return;
  toast(`${words.game} of ${words.players} was put away.`);
  followRunning();
}

// ---- the new game being set up, kept while the page is left for a moment ---------------------------------------
// The hero cards page (its note's "Copy the hero cards"), Devices or Camera, and Back: the game, the seats and the
// options chosen are there again on return, for a while.

const DRAFT = "dragon-table-new-game";
const DRAFT_KEPT_MS = 30 * 60 * 1000;

addEventListener("pagehide", () => {
  try {
    if (!game) sessionStorage.removeItem(DRAFT);
    else sessionStorage.setItem(DRAFT, JSON.stringify({ at: Date.now(), game: game.id, seats, options, picks }));
  } catch { /* no storage (a private window): the form starts afresh */ }
});

function restoreDraft() {
  let draft = null;
  try { draft = JSON.parse(sessionStorage.getItem(DRAFT) || "null"); } catch { return; }
  if (!draft || Date.now() - draft.at > DRAFT_KEPT_MS || !games.some((g) => g.id === draft.game)) return;
  chooseGame(draft.game);
  seats.splice(0, seats.length, ...draft.seats.slice(0, game.max_players));
  Object.assign(options, draft.options);
  Object.assign(picks, draft.picks);
  renderOptions();
  refresh();
}

// a game's page sends Home here once it abandoned the game: said once (not again on a reload), and only of a game
// that was abandoned
const abandoned = new URLSearchParams(location.search).get("abandoned");
if (abandoned) {
  history.replaceState(history.state, "", location.pathname);
  api(`/api/sessions/${encodeURIComponent(abandoned)}`, undefined, "GET", { quiet: true }).then(({ data }) => {
    if (data?.status === "abandoned") toast(`Game ${data.id} was abandoned.`);
  });
}
refresh();
const ready = catchUp().then(restoreDraft);

// ---- games started or ended on another device ---------------------------------------------------------------
// The home page has no stream: every few seconds it asks for itself again and, when the running games differ (a
// tablet started one, or one ended), shows the fresh "Carry on" cards, so the kiosk shows the game to join.

const RUNNING_EVERY_MS = 3000;
const runningIds = (root) => [...(root?.querySelectorAll("[data-session]") || [])].map((a) => a.dataset.session).join();

async function followRunning() {
  if (document.hidden) return;
  let html;
  try {
    const response = await fetch("/", { cache: "no-store" });
    if (!response.ok) return;
    html = await response.text();
  } catch { return; } // not reachable now: asked again later
  const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("running");
  if (runningIds(fresh) === runningIds($("running"))) return;
  whenUntouched(() => {
    const shown = $("running");
    if (!fresh) { shown?.remove(); return; }
    const section = document.importNode(fresh, true);
    colourCards(section);
    wireRunning(section, shown?.querySelector("#more-running")?.getAttribute("aria-expanded") === "true");
    if (shown) shown.replaceWith(section);
    else $("new-game").before(section);
  });
}
setInterval(followRunning, RUNNING_EVERY_MS);
document.addEventListener("visibilitychange", followRunning);
