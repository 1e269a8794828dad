// The page kit every game page is built on: calls to the companion with plain messages, the live stream,
// the header (round, Undo/Redo, live), the score board, the final screen, dialogs, the keypad and keyboard.
//
// Adding a game's page: templates/games/<game-id>.html extends game.html and fills its blocks (round, side,
// beside_scores, menu); static/games/<game-id>.js calls startGame({ render, phrase }) and draws only its own
// part of the round from the view. Numbers come from keypad(), names from keyboard(), never text fields;
// a button that cannot be used now gets a reason (button(..., { reason }) or explain()) instead of `disabled`.
// The game's view is redrawn as news comes, but never under a finger: a page that redraws on its own (an
// answer, a poll) passes its redraw to whenUntouched(), which holds it until the tap in progress is done.

/** Player colours: Okabe-Ito's colour-blind-safe set, lightened for a dark table, plus a few. */
export const PALETTE = [
  ["#E69F00", "orange"], ["#56B4E9", "sky blue"], ["#00B386", "green"], ["#F0E442", "yellow"],
  ["#4C8DFF", "blue"], ["#E4630D", "vermilion"], ["#E088BD", "pink"], ["#F2F2F2", "white"],
  ["#A98BFF", "lavender"], ["#C9A26B", "sand"],
].map(([colour, name]) => ({ colour, name }));

/** The gate symbols (icon ids in symbols.svg) and the names they give a gate by default. */
export const SYMBOLS = ["sun", "moon", "star", "crown", "key", "flame", "gem", "tree", "bell", "cup", "shield", "drop"]
  .map((id) => ({ id, name: id[0].toUpperCase() + id.slice(1) }));

const SPRITE = "/static/symbols.svg";

/** Make an element from a tag, properties and children. `style` takes an object of CSS properties. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") for (const [p, v] of Object.entries(value)) el.style.setProperty(p, v);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, "");
    else if (value !== false && value != null) el.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child != null && child !== false) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** The sprites asked for, by their address. A symbol of a sprite in another file is asked for again, and drawn anew
 *  when it comes, at every redraw that draws it (the browser revalidates the file each time): the page asks once and
 *  keeps the symbols, each under its sprite's address and its own id ("static-symbols-svg-sun"). */
const spritesAsked = new Set();

/** The page's reference to symbol `id` of `sprite`, its symbols asked for the first time (drawn once they come; asked
 *  again at the next icon where they did not come). */
function symbolRef(sprite, id) {
  const prefix = `${sprite.replace(/^\W+/, "").replace(/\W+/g, "-")}-`;
  if (!spritesAsked.has(sprite)) {
    spritesAsked.add(sprite);
    fetch(sprite).then((response) => {
      if (!response.ok) throw new Error(`${sprite}: ${response.status}`);
      return response.text();
    }).then((text) => {
      let sheet = document.getElementById("sprites");
      if (!sheet) {
        sheet = document.createElementNS(SVG_NS, "svg");
        sheet.id = "sprites";
        sheet.setAttribute("aria-hidden", "true");
        document.body.append(sheet);
      }
      for (const symbol of new DOMParser().parseFromString(text, "image/svg+xml").querySelectorAll("symbol")) {
        symbol.id = prefix + symbol.id;
        sheet.append(document.importNode(symbol, true));
      }
    }).catch(() => spritesAsked.delete(sprite));
  }
  return `#${prefix}${id}`;
}

/** A symbol from a vendored sprite: the gate symbols unless a game names its own ``sprite``. */
export function icon(id, cls = "icon", sprite = SPRITE) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", cls);
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS(SVG_NS, "use");
  use.setAttribute("href", symbolRef(sprite, id));
  svg.append(use);
  return svg;
}

// ---- messages -----------------------------------------------------------------------------------------

let toastTimer = null;
let toastsShown = 0; // messages shown so far: a tap's answer takes down only a message shown before the tap

/** Show a short message at the bottom; `rule` adds the ruling's id as a small tag after the sentence. An error is
 *  announced at once (role alert, assertive), any other message politely (role status). A screen reader announces
 *  words put into a live region, not a region appearing with them: a hidden toast stays in the page's accessibility
 *  tree, empty (kiosk.css, ``hideToast``). */
export function toast(message, kind = "info", rule = null) {
  const el = document.getElementById("toast");
  const error = kind === "error";
  toastsShown += 1;
  el.setAttribute("role", error ? "alert" : "status");
  el.setAttribute("aria-live", error ? "assertive" : "polite");
  el.dataset.kind = kind;
  el.hidden = false;
  el.replaceChildren(message, ...(rule ? [h("span", { class: "rule-tag" }, `rule ${rule}`)] : []));
  clearTimeout(toastTimer);
  toastTimer = setTimeout(hideToast, error ? 6000 : 3500);
}

/** Take the message down, and its words with it: the next message is words put into an empty region. */
function hideToast() {
  const el = document.getElementById("toast");
  el.hidden = true;
  el.replaceChildren();
}

/** Take the message down: what it said no longer stands (a tap the game took since), or it would cover what a person
 *  is asked to look at now. */
export function clearToast() {
  clearTimeout(toastTimer);
  hideToast();
}

/** The width (px) of `el`'s words as the screen lays them out, on their widest line: more than `el`'s own where a
 *  word reaches past it (cut short with an ellipsis), by a fraction of a pixel too. */
export function wordsWidth(el) {
  const text = document.createRange();
  text.selectNodeContents(el);
  return text.getBoundingClientRect().width;
}

/** The smallest size (px) a long name takes in the turn line before it is cut short with an ellipsis. */
const NAME_MIN_PX = 20;

/** The smallest size (px) of a long name's words on lines of their own, where a line is too narrow for one of them at
 *  the name's own size: read across the table (kiosk.css: text is 13 px at least). */
const WORD_MIN_PX = 13;

/** The size (px) of the widest word of `el`'s text as the screen lays it out now: across the line, or along it where the
 *  text stands on end (`upright` false: its height). A word ends at a space, or after a hyphen of the text's own, where
 *  its line may break. */
export function widestWord(el, { upright = true } = {}) {
  let widest = 0;
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    for (const word of text.textContent.matchAll(/[^ -]+-?/g)) {
      const range = document.createRange();
      range.setStart(text, word.index);
      range.setEnd(text, word.index + word[0].length);
      const box = range.getBoundingClientRect();
      widest = Math.max(widest, upright ? box.width : box.height);
    }
  }
  return widest;
}

/** The name whose turn it is on one line (kiosk.css: never wrapped): a size smaller for a long name where it would
 *  not fit ("Zdeňka Nováková-Dvořákov" on the 800x480 screen), down to NAME_MIN_PX, so that the game below stays on
 *  a small screen; where even that is too wide (a narrow column), the name at its own size, on lines broken between
 *  its words only, and a size smaller again where its widest word would not fit a line ("Bartholomäus" in Drachen
 *  Wurf's column), down to WORD_MIN_PX. Set on the turn line itself, never on the name: the live region's words stay
 *  as they were, announced once, and say the whole name. Run on every drawing of a game's page, once the round and
 *  the final screen are drawn: a round shown again (an undo from the final screen) is fitted as it is shown. */
export function fitTurnName() {
  const turn = document.getElementById("turn");
  const name = turn?.querySelector(".turn-name");
  turn?.classList.remove("name-fitted", "name-wraps", "name-breaks");
  if (!name || !name.clientWidth) return;
  const room = turn.getBoundingClientRect().width - 1; // the line's, a pixel to spare
  const own = parseFloat(getComputedStyle(name).fontSize);
  /** The name a size smaller until `measure` of it fits the line, down to `least`; true when it fits. */
  const shrink = (measure, least) => {
    for (let size = own, tries = 0; tries < 8 && measure(name) > room && size > least; tries++) {
      const scaled = Math.floor((10 * size * room) / measure(name)) / 10; // the width goes with the size
      size = Math.max(least, Math.min(size - 0.5, scaled));
      turn.style.setProperty("--name-size", `${size}px`);
      turn.classList.add("name-fitted");
    }
    return measure(name) <= room;
  };
  if (shrink(wordsWidth, NAME_MIN_PX)) return;
  // on lines of its own size, broken between its words only: each word whole on its line, a size smaller where one
  // is wider than the line; a single word wider than the line even so (a column narrower than any screen's) is broken
  turn.classList.remove("name-fitted");
  turn.classList.add("name-wraps");
  if (!shrink(widestWord, WORD_MIN_PX)) turn.classList.add("name-breaks");
}

/** How far (px) the page reaches below the screen's foot (none when it fits). */
export const pastTheFoot = () => document.documentElement.scrollHeight - document.documentElement.clientHeight;

/** A page closed up to the screen: of `ways` (each a list of classes on `el`, the game's grid, that kiosk.css closes up
 *  by), the first with which the page reaches no further than the screen's foot is taken; where none does, the one that
 *  comes nearest (`closest`), else none. `each` runs once a way is taken (what fits the room it leaves: the turn's
 *  name); `past` says how far the page reaches past where it must end (px; the screen's foot by default). The caller takes its classes off first and tries only where the page reaches below the foot. Returns the
 *  classes taken. */
export function closeUp(el, ways, { each = null, closest = false, past = pastTheFoot } = {}) {
  const all = [...new Set(ways.flat())];
  const take = (way) => { el.classList.remove(...all); el.classList.add(...way); each?.(); return past(); };
  let best = { way: [], past: Infinity };
  for (const way of ways) {
    const reach = take(way);
    if (reach <= 0) return way;
    if (reach < best.past) best = { way, past: reach };
  }
  const taken = closest ? best.way : [];
  take(taken);
  return taken;
}

/** Set the text of `el` (a live region, or a part of one) only when it says something else: a screen reader
 *  announces a live region's text each time it is set, the same words again too. Returns whether it changed. */
export function setText(el, text) {
  if (!el || el.textContent === text) return false;
  el.textContent = text;
  return true;
}

/** Put `children` into `el` (a live region) only when they show something else than it does now (their markup):
 *  a redraw that changes nothing announces nothing. Returns whether it changed. */
export function replaceIfChanged(el, ...children) {
  if (!el) return false;
  const next = h("div", {}, ...children);
  if (next.innerHTML === el.innerHTML) return false;
  el.replaceChildren(...next.childNodes);
  return true;
}

/** A count with its noun: "1 card", "3 cards", plural(2, "die", "dice"). */
export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The server's message as a sentence: first letter capital, a full stop, no trailing "(rule D5)". */
export function sentence(text) {
  const clean = String(text || "").replace(/\s*\(rule [^)]*\)\s*$/i, "").trim();
  if (!clean) return "";
  const cap = clean[0].toUpperCase() + clean.slice(1);
  return /[.!?]$/.test(cap) ? cap : `${cap}.`;
}

/** How long a request waits for the companion's answer before the page says there is none (a stalled network). */
const ANSWER_MS = 10000;

function plainError(status, data) {
  if (status === 0 && data?.timedOut) {
    return "No answer from the companion: check this device's Wi-Fi. If the tap arrived, this screen shows it as " +
      "soon as the companion answers again.";
  }
  if (status === 0) return "The companion cannot be reached: check this device's Wi-Fi and that the Pi is on. " +
    "Nothing was changed.";
  // a stale write; any other refusal of the game as it stands (already finished, read-only) says what it is
  if (status === 409 && data?.error?.code === "stale") {
    return "Not counted: someone changed the game a moment ago. This screen shows it now: tap again if still needed.";
  }
  if (status === 429) return "Too many taps at once: wait a moment, then tap again.";
  if (status === 413) return "That was too much to send at once; nothing was changed.";
  return sentence(data?.error?.message) || `The companion answered ${status}; nothing was changed.`;
}

/** GET or POST JSON. Resolves to {ok, status, data}; shows a plain message for errors (but those whose code is one
 *  of `quiet`, or every one when `quiet` is true: the caller answers them itself), never throws. */
export async function api(path, body = undefined, method = body === undefined ? "GET" : "POST", { quiet = [] } = {}) {
  let status = 0;
  let data = null;
  try {
    const response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(ANSWER_MS),
    });
    try {
      data = await response.json();
    } catch (error) {
      if (error?.name === "TimeoutError") throw error; // the answer stalled halfway: no answer
      data = null;
    }
    status = response.status;
    if (response.ok) return { ok: true, status, data };
  } catch (error) { // not reachable, or no answer in time: status 0
    if (error?.name === "TimeoutError") data = { timedOut: true };
  }
  // a device no longer paired: its pairing strip offers to pair again (pairing.js)
  if (data?.error?.code === "pairing_required") window.dispatchEvent(new Event("pairing-required"));
  if (quiet !== true && !quiet.includes(data?.error?.code)) {
    toast(plainError(status, data), status === 409 && data?.session ? "info" : "error", data?.rule || null);
  }
  return { ok: false, status, data };
}

// ---- buttons that explain themselves -----------------------------------------------------------------

/** Look disabled and say why when tapped (aria-disabled, still tappable), with the ruling's id `rule` as the
 *  message's tag, not in its words; `reason` may also be a [reason, rule] pair; `null` enables it again. */
export function explain(button, reason, rule = null) {
  if (Array.isArray(reason)) [reason, rule] = reason;
  if (reason) {
    button.setAttribute("aria-disabled", "true");
    button.dataset.reason = reason;
  } else {
    button.removeAttribute("aria-disabled");
    delete button.dataset.reason;
  }
  if (reason && rule) button.dataset.rule = rule;
  else delete button.dataset.rule;
  return button;
}

/** The id of the button whose tap is being handled, while its handler runs up to its first wait: a page redrawn
 *  between the two halves of a double tap gives the second a new button, and maybe a new event ("Next" for the
 *  next player), but the same id. `taps` counts every tap on a button: two taps with another between are no
 *  double tap. */
let tappedId = null;
let taps = 0;

/** The tap on a button being handled (while its handler runs up to its first wait) and the one before it: its
 *  button, where (`x`, `y`; none from a key), when, the `taps` then, and when the page showed what it did
 *  (`answered`: at once for a tap that sent nothing, Infinity while its write is under way). */
let tapNow = null;
let tapBefore = null;
const drawnAfter = new WeakMap(); // each button: the `taps` when it was drawn (drawn after that tap began)
const SAME_SPOT_PX = 24;
let settling = 0; // taps or answers still within DOUBLE_TAP_MS: the body's data-settling says so (for a test)

/** The page shows what a tap did (`tap`, if any, learns when): for DOUBLE_TAP_MS a tap may be its second half. */
function answered(tap = null) {
  const at = performance.now();
  if (tap) tap.answered = at;
  settling += 1;
  document.body.dataset.settling = "yes";
  setTimeout(() => { if (--settling === 0) delete document.body.dataset.settling; }, DOUBLE_TAP_MS);
  return at;
}

/** A double tap whose first half redrew the page lands its second half on whatever button now stands under the
 *  finger: End turn, then a tile of the next player's grid; Went out…, then a player in the list it opens. A tap
 *  on another button, drawn since the tap before, at that tap's spot, with no tap between, while that tap is under
 *  way or within DOUBLE_TAP_MS of what it did being shown, is that second half. */
function secondHalf(tap, before) {
  return Boolean(before) && tap.x !== null && before.x !== null && tap.taps === before.taps + 1
    && tap.el !== before.el && !(tap.el.id && tap.el.id === before.el.id) && drawnAfter.get(tap.el) >= before.taps
    && Math.hypot(tap.x - before.x, tap.y - before.y) <= SAME_SPOT_PX && tap.at < before.answered + DOUBLE_TAP_MS;
}

/** A button that runs `onTap`, or, while `reason` is set, shows the reason instead (with `rule`: ``explain``). */
export function button(content, { onTap, reason = null, rule = null, cls = "", ...props } = {}) {
  const el = h("button", { type: "button", class: `btn ${cls}`.trim(), ...props }, content);
  drawnAfter.set(el, taps);
  return explain(wire(el, onTap), reason, rule);
}

/** Wire an existing button (from a template) the same way. */
export function wire(el, onTap) {
  el.addEventListener("click", (event) => {
    taps += 1;
    if (el.getAttribute("aria-disabled") === "true") {
      event.preventDefault();
      toast(el.dataset.reason, "info", el.dataset.rule || null);
      return;
    }
    const at = performance.now(), finger = event.detail > 0; // a key's click has no spot
    const tap = { el, x: finger ? event.clientX : null, y: finger ? event.clientY : null, at, taps, answered: at };
    tapNow = tap;
    tappedId = el.id || null;
    try { onTap?.(event); } finally {
      tappedId = null;
      tapBefore = tap;
      tapNow = null;
      if (tap.answered === at) answered(); // drawn at once (nothing sent, or a tap that counts)
    }
  });
  return el;
}

// ---- dialogs ------------------------------------------------------------------------------------------

// The phone's Back closes the dialog on top, as it would an app's, instead of leaving the game. One history step
// stands for the dialogs: pushed as the first opens, and kept when they close (taking it back then could cancel a
// navigation that follows at once); a Back on it with no dialog open goes on back, as the person meant.
const openDialogs = []; // their close functions, the top one last
let backEntry = history.state?.dialog === true; // this page stands on its dialogs' step

window.addEventListener("popstate", () => {
  if (!backEntry) return;
  backEntry = false;
  if (openDialogs.length) openDialogs.at(-1)(null);
  else history.back();
});

function dialogOpened(close) {
  openDialogs.push(close);
  if (!backEntry) {
    history.pushState({ dialog: true }, "");
    backEntry = true;
  }
}

function dialogClosed(close) {
  openDialogs.splice(openDialogs.indexOf(close), 1);
  if (openDialogs.length) dialogOpened(openDialogs.pop()); // the one below is on top now: Back closes it next
}

/** A mode of the page that is no dialog (cards being tapped in, corners on a frozen picture): the phone's Back
 *  cancels it first, as it closes a dialog, instead of leaving the page with the work. Back calls `cancel()`; the
 *  function returned says the mode ended otherwise (idempotent). */
export function backCancels(cancel) {
  let open = true;
  const end = () => {
    if (!open) return false;
    open = false;
    dialogClosed(close);
    return true;
  };
  const close = () => { if (end()) cancel(); };
  dialogOpened(close);
  return end;
}

// A modal (a dialog, the game page's More menu) holds the keyboard's focus while it is open: focus moves into it as
// it opens, Tab and Shift+Tab go round its controls only, Escape closes the one on top, and focus goes back to the
// control that opened it as it closes (or, where that control was redrawn meanwhile, to its like).
const modals = []; // the open modals, the top one last: { el, close, back }
let byKey = false; // the last input was a key (not a finger or mouse): focus may go to a text field, which then
                   // raises no phone keyboard under a finger

addEventListener("keydown", () => { byKey = true; }, true);
addEventListener("pointerdown", () => { byKey = false; }, true);

const FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]:not([tabindex='-1'])";

/** The controls of `el` a Tab reaches, in order. */
function focusables(el) {
  return [...el.querySelectorAll(FOCUSABLE)].filter((c) => !c.disabled && !c.closest("[inert]")
    && c.checkVisibility({ visibilityProperty: true }) && c.tabIndex >= 0);
}

/** A selector for a control like `el` where the page redraws it (its id, or its first data attribute). */
function likeOf(el) {
  if (!(el instanceof Element) || el === document.body) return null;
  if (el.id) return `#${CSS.escape(el.id)}`;
  const data = [...el.attributes].find((a) => a.name.startsWith("data-") && a.name !== "data-reason");
  return data ? `${el.localName}[${data.name}="${CSS.escape(data.value)}"]` : null;
}

/** Focus `el`; whether it took it. */
function focusOn(el) {
  if (!el?.isConnected) return false;
  el.focus({ preventScroll: !byKey });
  return document.activeElement === el;
}

/** `el` opens as a modal (closed by `close`): focus goes into it, to its first text field when a key opened it,
 *  else to its primary control (one that can be used), else to its first control. */
function modalOpened(el, close) {
  const opener = document.activeElement;
  const under = modals.find((m) => m.el.contains(opener)); // opened from another modal: back there, then its opener
  const back = [[opener, likeOf(opener)], ...(under ? under.back : [])];
  modals.push({ el, close, back });
  const controls = focusables(el);
  const text = controls.find((c) => c.matches("input, textarea"));
  const primary = controls.find((c) => c.matches(".primary") && c.getAttribute("aria-disabled") !== "true");
  const first = (byKey && text) || primary || controls.find((c) => !c.matches("input, textarea")) || controls[0];
  if (!focusOn(first)) { el.tabIndex = -1; focusOn(el); }
}

/** `el`, a modal, closed: focus goes back where it came from, unless it went on to something else meanwhile. */
function modalClosed(el) {
  const at = modals.findIndex((m) => m.el === el);
  if (at < 0) return;
  const [{ back }] = modals.splice(at, 1);
  const now = document.activeElement;
  if (now && now !== document.body && now.isConnected && !el.contains(now)) return; // another modal took it
  for (const [opener, like] of back) {
    if (focusOn(opener) || (like && focusOn(document.querySelector(like)))) return;
  }
}

document.addEventListener("keydown", (event) => {
  const top = modals.at(-1);
  if (!top || event.defaultPrevented) return;
  if (event.key === "Escape") {
    event.preventDefault();
    top.close();
  } else if (event.key === "Tab") {
    const controls = focusables(top.el);
    if (!controls.length) { event.preventDefault(); return; }
    const at = controls.indexOf(document.activeElement);
    const next = event.shiftKey ? (at <= 0 ? controls.at(-1) : null) : (at < 0 || at === controls.length - 1 ? controls[0] : null);
    if (next) { event.preventDefault(); next.focus(); }
  }
});

let titles = 0;

// A question news can answer: two devices show the same game, one asks "Reveal: 2 missed?", and the other reveals the
// token (or records a marble) meanwhile. A dialog opened with `moot` is asked again on each new view the game page
// draws: where the question no longer stands it closes by itself and the page says why; where it still does, it
// stays open and its answer is sent against that view (game.ask), not refused as stale.
const questions = new Set(); // the open dialogs with `moot`: { moot, close, asked }
let asking = null; // the game.ask in progress: { since }, the seq its answer is sent against

/** Each open dialog's question (`moot`) against the game as the page now draws it (`view`): one that no longer
 *  stands closes, as if cancelled, and its reason is shown; one that stands is answered against this view. */
function recheck(view) {
  for (const question of [...questions]) {
    const why = question.moot(view);
    if (why) {
      question.close(null);
      toast(why);
    } else if (question.asked) question.asked.since = view.seq;
  }
}

/** A modal panel over the page; resolves with what `build(close)` passes to close(). It is named by its title (its
 *  first ``.big``, ``.label``, label or heading), or by `label`. On a game page, `moot(view)` says, for each new view
 *  drawn while the dialog is open, why its question no longer stands (it then closes, resolving null, and the page
 *  says so), or nothing while it still stands; it judges the whole question asked so far (game.ask). */
export function dialog(build, { cls = "", label = null, moot = null } = {}) {
  return new Promise((resolve) => {
    const overlay = h("div", { class: "overlay", role: "dialog", "aria-modal": "true" });
    const question = moot ? { moot, close: null, asked: asking } : null;
    const close = (value = null) => {
      if (!overlay.isConnected) return;
      questions.delete(question);
      overlay.remove();
      dialogClosed(close);
      modalClosed(overlay);
      resolve(value);
    };
    const panel = h("div", { class: `panel dialog ${cls}`.trim() }, build(close));
    overlay.append(panel);
    const title = panel.querySelector(".big, .label, label, h2, h3");
    if (label) overlay.setAttribute("aria-label", label);
    else if (title) {
      title.id ||= `dialog-title-${++titles}`;
      overlay.setAttribute("aria-labelledby", title.id);
    }
    overlay.addEventListener("click", (event) => { if (event.target === overlay) close(null); });
    (document.getElementById("overlays") || document.body).append(overlay);
    if (question) questions.add(Object.assign(question, { close }));
    dialogOpened(close);
    modalOpened(overlay, close);
  });
}

/** The game page's More menu (game.html #menu), a modal as a dialog is, open while it is not hidden (a page's script
 *  may hide it). */
const menu = document.getElementById("menu");
if (menu) {
  new MutationObserver(() => {
    const open = modals.some((m) => m.el === menu);
    if (!menu.hidden && !open) modalOpened(menu, () => { menu.hidden = true; });
    else if (menu.hidden && open) modalClosed(menu);
  }).observe(menu, { attributes: true, attributeFilter: ["hidden"] });
}

/** Ask yes or no; resolves true for yes (null where `moot`, as for `dialog`, closed it). */
export function confirm(question, yes, no = "Cancel", detail = "", { moot = null } = {}) {
  return dialog((close) => [
    h("p", { class: "big" }, question),
    detail ? h("p", { class: "muted" }, detail) : null,
    h("div", { class: "row" },
      button(no, { cls: "ghost", onTap: () => close(false), "data-answer": "no" }),
      button(yes, { cls: "primary", onTap: () => close(true), "data-answer": "yes" })),
  ], { moot });
}

/** The numbers confirmed on keypads since the last write (`game.send`), by each keypad's label; kept as `unsent`
 *  when that write did not reach the companion, for the same keypads to show them again (a tap on OK lost nothing). */
let confirmed = new Map();
let unsent = new Map();
const UNSENT_KEPT_MS = 120000;

/** A number by keypad, checked on the page: resolves to a whole number in [min, max] or null. */
export function keypad(label, { value = null, min = 0, max = 999 } = {}) {
  const kept = unsent.get(label);
  if (kept && performance.now() - kept.at < UNSENT_KEPT_MS) value = kept.value;
  unsent.delete(label);
  return dialog((close) => {
    let typed = value == null ? "" : String(value);
    let fresh = true; // the first key replaces the shown value
    const display = h("output", { class: "keypad-value", id: "keypad-value" }, typed || "–");
    const show = () => { display.textContent = typed || "–"; };
    const key = (k) => button(k, { cls: "key", onTap: () => {
      typed = (fresh ? "" : typed) + k;
      fresh = false;
      if (typed.length > 4) typed = typed.slice(0, 4);
      typed = String(Number(typed));
      show();
    } });
    const ok = () => {
      const n = Number(typed);
      if (typed === "" || !Number.isInteger(n)) { toast(`${label}: type a number.`, "error"); return; }
      if (n < min || n > max) {
        toast(`${label}: from ${min} to ${max}.`, "error");
        fresh = true; // the next key starts a new number, as after the value shown at first
        return;
      }
      confirmed.set(label, { value: n, at: performance.now() });
      close(n);
    };
    return [
      h("p", { class: "label" }, label, h("small", { class: "muted" }, ` ${min} to ${max}`)),
      display,
      h("div", { class: "keypad", id: "keypad-keys" }, ..."123456789".split("").map(key),
        button("⌫", { cls: "key", "aria-label": "delete", onTap: () => { typed = typed.slice(0, -1); fresh = false; show(); } }),
        key("0"),
        button("OK", { cls: "key primary", id: "keypad-ok", onTap: ok })),
      h("div", { class: "row" }, button("Cancel", { cls: "ghost", onTap: () => close(null) })),
    ];
  }, { cls: "keypad-panel" });
}

// Each layer in rows, drawn as rows at any width: the keys scale down to keep a QWERTZ row one row on a phone.
const LETTERS = ["qwertzuiop", "asdfghjkl", "yxcvbnm"].map((row) => [...row]);
const DIGITS = [[..."1234567890"]];
const ACCENTS = ["äöüßéèáà", "íóúýčřšž", "ěůňťďñçł"].map((row) => [...row]);

function upper(ch) {
  const up = ch.toUpperCase();
  return up.length === 1 ? up : ch; // ß has no single capital
}

/** A name by on-screen keyboard (capitals, digits, accents of German and Czech names); a device's own
 *  keyboard types into the same field. Resolves to the tidied name, or null for Cancel. */
export function keyboard(label, value = "", { maxLength = 24 } = {}) {
  return dialog((close) => {
    const input = h("input", { id: "kb-input", maxlength: maxLength, autocomplete: "off", spellcheck: "false",
                               autocapitalize: "words", value, "aria-label": label });
    const keys = h("div", { class: "keys", id: "kb-keys" });
    let layer = "letters";
    let shift = value === "";
    const tooLong = `A name is at most ${maxLength} letters.`;
    const type = (text) => {
      if (input.value.length >= maxLength) toast(tooLong);
      input.value = (input.value + text).slice(0, maxLength);
      shift = text === " " || text === "-";
      draw();
    };
    const layers = { letters: LETTERS, digits: DIGITS, accents: ACCENTS };
    const shiftKey = button("⇧", { cls: "key ctl", "aria-label": "capital", onTap: () => { shift = !shift; draw(); } });
    const digitsKey = button("123", { cls: "key ctl", "aria-label": "digits",
                                      onTap: () => { layer = layer === "digits" ? "letters" : "digits"; draw(); } });
    const accentKey = button("áč", { cls: "key ctl", "aria-label": "accents",
                                     onTap: () => { layer = layer === "accents" ? "letters" : "accents"; draw(); } });
    function draw() {
      keys.replaceChildren(...layers[layer].map((row) => h("div", { class: "key-row" }, ...row.map((ch) => {
        const shown = shift ? upper(ch) : ch;
        return button(shown, { cls: "key", onTap: () => type(shown) });
      }))));
      shiftKey.setAttribute("aria-pressed", String(shift));
      digitsKey.textContent = layer === "digits" ? "abc" : "123";
      accentKey.textContent = layer === "accents" ? "abc" : shift ? "ÁČ" : "áč";
    }
    draw();
    const ok = () => {
      const name = input.value.trim().replace(/\s+/g, " ");
      if (!name) { toast("Type a name first.", "error"); return; }
      close(name);
    };
    input.addEventListener("keydown", (event) => { if (event.key === "Enter") ok(); });
    input.addEventListener("beforeinput", (event) => { // a device's own keyboard
      if (event.inputType.startsWith("insert") && input.value.length >= maxLength) toast(tooLong);
    });
    input.addEventListener("input", () => { shift = input.value === "" || /[ -]$/.test(input.value); draw(); });
    return [
      h("label", { for: "kb-input", id: "kb-label" }, label),
      input,
      keys,
      h("div", { class: "keys controls" }, shiftKey, digitsKey, accentKey,
        button("-", { cls: "key", "aria-label": "hyphen", onTap: () => type("-") }),
        button("'", { cls: "key", "aria-label": "apostrophe", onTap: () => type("'") }),
        button("space", { cls: "key space", onTap: () => type(" ") }),
        button("⌫", { cls: "key ctl", "aria-label": "delete", onTap: () => {
          input.value = input.value.slice(0, -1);
          shift = input.value === "";
          draw();
        } })),
      h("div", { class: "row" },
        button("Cancel", { cls: "ghost", id: "kb-cancel", onTap: () => close(null) }),
        button("OK", { cls: "primary", id: "kb-ok", onTap: ok })),
    ];
  }, { cls: "keyboard" });
}

/** Pick a colour from the palette by tap; `taken` colours are marked. Resolves to "#rrggbb" or null. */
export function pickColour(title, current, taken = []) {
  return dialog((close) => [
    h("p", { class: "big" }, title),
    h("div", { class: "palette", id: "palette" }, ...PALETTE.map(({ colour, name }) =>
      button(h("span", { class: "swatch", style: { "--c": colour } }), {
        cls: `colour${colour === current ? " current" : ""}${taken.includes(colour) ? " taken" : ""}`,
        "aria-label": name, "data-colour": colour, onTap: () => close(colour),
      }))),
    h("div", { class: "row" }, button("Cancel", { cls: "ghost", onTap: () => close(null) })),
  ]);
}

// ---- the live stream ------------------------------------------------------------------------------------

/** How many of the stream's `alive` intervals may pass unheard before the page takes its network for stalled, and
 *  how long at the least (a busy Pi, or a server that says alive more often, never passes for a stalled network). */
const UNHEARD_INTERVALS = 2;
const UNHEARD_MS_AT_LEAST = 10000;

/**
 * Follow a session live: handlers for the `session`, `sensors`, `marble` and `camera` messages. A network that
 * stalls (Wi-Fi gone quiet, the connection still open) is noticed as well as one that drops: the server says
 * `alive` every so often, and a page that hears nothing for a few of those says it is reconnecting and connects
 * again, catching up from the session's opening message.
 */
export function follow(sessionId, handlers) {
  let source = null;
  let heard = performance.now();
  let every = 0; // the server's `alive` interval (ms), once heard: its stream opens with one, at once
  const live = (yes) => {
    document.body.dataset.live = yes ? "yes" : "no";
    const el = document.getElementById("live");
    if (el) el.textContent = yes ? "live" : "reconnecting…";
  };
  const connect = () => {
    heard = performance.now();
    source = new EventSource(`/api/sessions/${sessionId}/stream`);
    for (const name of ["session", "sensors", "marble", "camera"]) {
      const handler = handlers[name];
      source.addEventListener(name, (e) => {
        heard = performance.now();
        handler?.(JSON.parse(e.data));
      });
    }
    source.addEventListener("alive", (e) => {
      heard = performance.now();
      every = 1000 * JSON.parse(e.data).every;
    });
    // the stream's last word to a device the kiosk revoked: its pairing strip offers to pair again (pairing.js)
    source.addEventListener("pairing", () => window.dispatchEvent(new Event("pairing-required")));
    source.addEventListener("open", () => live(true));
    source.addEventListener("error", () => live(false));
  };
  connect();
  setInterval(() => {
    if (performance.now() - heard < Math.max(UNHEARD_INTERVALS * every, UNHEARD_MS_AT_LEAST)) return;
    live(false);
    source.close();
    connect();
  }, 1000);
}

// ---- no redraw under a finger ---------------------------------------------------------------------------------

const pressing = new Set(); // pointers down on the page
const owed = new Set(); // the redraws held back until they are lifted, in the order they came

/**
 * Run `redraw` now, or, while a finger (or mouse button) is down, once its tap is done. A redraw swaps the
 * buttons for new ones; a button swapped between press and release never gets its click, and the tap is lost.
 */
export function whenUntouched(redraw) {
  if (pressing.size) {
    owed.delete(redraw); // the same redraw owed twice runs once, in its latest place
    owed.add(redraw);
  } else {
    redraw();
  }
}

function payOwed() {
  const redraws = [...owed];
  owed.clear();
  redraws.forEach((redraw) => redraw());
}

function lifted(event) {
  pressing.delete(event.pointerId);
  if (pressing.size || !owed.size) return;
  // The tap's click follows the release: redraw after it, or soon if no click comes (a drag, a scroll).
  const timer = setTimeout(done, 300);
  function done() {
    clearTimeout(timer);
    document.removeEventListener("click", afterClick);
    if (!pressing.size) payOwed(); // else the next release pays it
  }
  function afterClick() { setTimeout(done, 0); }
  document.addEventListener("click", afterClick, { once: true });
}

document.addEventListener("pointerdown", (event) => pressing.add(event.pointerId), true);
document.addEventListener("pointerup", lifted, true);
document.addEventListener("pointercancel", lifted, true);
const letGo = () => { pressing.clear(); payOwed(); }; // a press whose release this page will never see
window.addEventListener("blur", letGo);
document.addEventListener("visibilitychange", () => { if (document.hidden) letGo(); });

// ---- a scroll into view stops below the sticky header ----------------------------------------------------

/** The header's height as measured, one row or wrapped to two on a narrow screen, as the root's scroll-padding
 *  (``--bar-height`` in kiosk.css, whose estimate by breakpoint stands until it is measured). */
const bar = document.querySelector("header.bar");
if (bar && "ResizeObserver" in window) {
  new ResizeObserver(() => document.documentElement.style.setProperty("--bar-height", `${bar.offsetHeight}px`))
    .observe(bar);
}

// ---- the screen stays awake during a running game -------------------------------------------------------

let wakeWanted = false;
let wakeLock = null;

async function acquireWakeLock() {
  if (!wakeWanted || !("wakeLock" in navigator) || document.visibilityState !== "visible") return;
  if (wakeLock && !wakeLock.released) return;
  try { wakeLock = await navigator.wakeLock.request("screen"); } catch { wakeLock = null; }
}

/** Keep the screen on (true) or let it sleep (false); re-acquired whenever the page is shown again. */
export function keepAwake(wanted) {
  wakeWanted = wanted;
  if (wanted) acquireWakeLock();
  else if (wakeLock) { wakeLock.release().catch(() => {}); wakeLock = null; }
}
document.addEventListener("visibilitychange", acquireWakeLock);

// ---- players and colours --------------------------------------------------------------------------------

/** A player's colour in this session (view.colours), else one by seat. */
export function colourOf(view, name) {
  const given = view.colours?.[name];
  if (given) return given;
  const seat = Math.max(0, view.players.indexOf(name));
  return PALETTE[seat % PALETTE.length].colour;
}

/** The grounds a player's name is drawn on: a panel (kiosk.css --panel, and the darker tiles on it), and the raised
 *  ones, lighter (a button, a hero's or player's card or row while active: #2b4d3f the lightest). */
const PANEL = [0x18, 0x30, 0x28];
const RAISED = [0x2b, 0x4d, 0x3f];
const luminance = (rgb) => rgb.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
  .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
const contrast = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const tints = new Map();

/** A player's colour as text on `ground`: the colour itself where it reads there (WCAG's 4.5:1, with a little to
 *  spare), else the least tint of it towards white that does, so that the name keeps its hue. */
export function textColour(colour, ground = RAISED) {
  const key = `${colour} ${ground}`;
  if (!tints.has(key)) {
    const rgb = /^#[0-9a-f]{6}$/i.test(colour) ? [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16)) : null;
    let text = colour;
    for (let t = 0; rgb && t <= 1; t += 0.01) {
      const mixed = rgb.map((v) => Math.round(v + (255 - v) * t));
      if (contrast(mixed, ground) >= 4.6) {
        text = t ? `#${mixed.map((v) => v.toString(16).padStart(2, "0")).join("")}` : colour;
        break;
      }
    }
    tints.set(key, text);
  }
  return tints.get(key);
}

/** The style of what shows a player in their colour: the colour (`--c`, for edges and rings), and the colour of their
 *  name on a panel (`--cp`) and on a raised ground (`--ct`; kiosk.css says which is where). */
export function playerStyle(view, name) {
  const colour = colourOf(view, name);
  return { "--c": colour, "--cp": textColour(colour, PANEL), "--ct": textColour(colour, RAISED) };
}

/** The class of a player's name: `cls`, and `long` for a name of 10 letters or more, which kiosk.css shows a size
 *  smaller where names stand in a narrow column (the score board, a list of heroes or guesses): so "Bartholomäus" is
 *  read whole there at 800x480. */
const nameClass = (name, cls) => ([...name].length >= 10 ? `${cls} long` : cls);

/** A player's name in their colour. */
export function who(view, name, cls = "who") {
  return h("span", { class: nameClass(name, cls), style: playerStyle(view, name) }, name);
}

/** The [player, value] pairs of an object keyed by player, in seat order (JSON objects come with sorted keys). */
export function bySeat(view, byPlayer) {
  return view.players.filter((p) => Object.hasOwn(byPlayer, p)).map((p) => [p, byPlayer[p]]);
}

/** Players named in their colours, as a sentence says them: "Ada", "Ada and Ben", "Ada, Ben and Cleo". */
export function whoList(view, list) {
  const out = [];
  list.forEach((p, i) => { if (i) out.push(i === list.length - 1 ? " and " : ", "); out.push(who(view, p)); });
  return out;
}

/** The same in plain text: "Ada, Ben and Cleo". */
export const andList = (list) => list.length > 1 ? `${list.slice(0, -1).join(", ")} and ${list.at(-1)}` : list.join("");

// ---- a game page ------------------------------------------------------------------------------------------

const $ = (id) => document.getElementById(id);

function roundLabel(view) {
  if (view.status === "abandoned") return "abandoned";
  if (view.status === "set_aside") return "set aside";
  if (view.finished) return "finished";
  if (view.round == null) return "";
  const total = view.state?.total_rounds;
  return total ? `${view.round}/${total}` : `${view.round}`;
}

function readOnlyText(view) {
  if (view.status === "set_aside") {
    return ["This game is set aside and can only be looked at.", view.reason ? ` ${sentence(view.reason)}` : ""];
  }
  if (view.status === "abandoned") return ["This game was abandoned; it can be looked at, not changed."];
  return null;
}

/** The scores last drawn (by player), to say which changed. */
let scoresShown = null;

/** The score board; a page's `mark(view, player)`, if any, stands before each name: the key to how the page draws
 *  that player elsewhere (Drachensachen's chart: the shape ending the player's line), so that the board is a legend
 *  with names and nothing is told by colour alone. */
function renderScoreBoard(view, page) {
  const list = $("scoreboard");
  if (!list) return;
  const turn = view.turn ?? view.state?.active ?? null;
  list.replaceChildren(...view.players.map((p) =>
    h("li", { class: p === turn ? "active" : "", dataset: { player: p }, style: playerStyle(view, p) },
      page.mark?.(view, p) ?? null,
      h("span", { class: nameClass(p, "name") }, p),
      h("span", { class: "score", dataset: { score: view.scores[p] ?? 0 } }, view.scores[p] ?? 0))));
  announceScores(view);
}

/** Say the scores that changed, once, politely and in a few words ("Ada 2, Ben 1"), in the score board's live region
 *  (game.html #score-news): not the whole board, and nothing for a redraw that changed no score. */
function announceScores(view) {
  const now = Object.fromEntries(view.players.map((p) => [p, view.scores?.[p] ?? 0]));
  const before = scoresShown;
  scoresShown = now;
  if (!before) return; // the board as the page opened: nothing changed
  const changed = view.players.filter((p) => before[p] !== now[p]);
  if (changed.length) setText($("score-news"), changed.map((p) => `${p} ${now[p]}`).join(", "));
}

/** The final screen: the winners and why (`page.why(view)`, a sentence: how this game is won), the totals best
 *  first (the fewest first where the fewest win: the state's `lower_wins`), and the round table. */
function renderFinal(view, game, page) {
  const final = $("final");
  if (!final) return;
  const over = view.finished && view.status !== "abandoned" && view.status !== "set_aside";
  final.hidden = !over;
  $("play").hidden = over;
  if (!over) return;
  const winners = view.winners || [];
  $("winners").replaceChildren(h("span", { class: "label" }, winners.length > 1 ? "Winners" : "Winner"),
    ...winners.map((w) => who(view, w, "who winner")));
  const why = $("final-why");
  why.textContent = page.why?.(view) || "";
  why.hidden = !why.textContent;
  const best = view.state?.lower_wins ? -1 : 1;
  const ranked = [...view.players].sort((a, b) => best * ((view.scores[b] ?? 0) - (view.scores[a] ?? 0)));
  $("totals").replaceChildren(...ranked.map((p) =>
    h("li", { dataset: { player: p }, style: { "--c": colourOf(view, p) } },
      page.mark?.(view, p) ?? null, h("span", { class: "name" }, p), h("span", { class: "score" }, view.scores[p] ?? 0),
      page.standing?.(view, p) ?? null)));
  const rows = view.breakdown || [];
  const table = $("breakdown");
  table.parentElement.hidden = rows.length === 0;
  table.replaceChildren(
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, view.breakdown_heading),
      ...view.players.map((p) => h("th", { scope: "col", style: playerStyle(view, p) }, h("span", { class: "pname" }, p))))),
    h("tbody", {}, ...rows.map((r) => h("tr", {}, h("th", { scope: "row" }, r.label || `Round ${r.round}`),
      ...view.players.map((p) => h("td", {}, r.points?.[p] ?? 0))))),
    h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, "Total"),
      ...view.players.map((p) => h("td", {}, view.scores[p] ?? 0)))));
  fitBreakdown(table);
  explain($("final-undo"), view.can_undo ? null : "Nothing to undo.");
  game.finalShown = true;
}

/** Why "Abandon this game?" is asked no more: another device abandoned the game, set it aside, or ended it. */
function abandonMoot(view) {
  if (view.status === "abandoned") return "Answered on another device: this game was abandoned.";
  if (view.status === "set_aside") return "This game was set aside meanwhile: it can only be looked at.";
  if (view.finished) return "This game ended meanwhile and keeps its result: there is nothing to abandon.";
  return null;
}

/** The final screen fitted to the screen as it is. The results table takes its narrow form (`tight`, kiosk.css) where
 *  its columns do not fit its box side by side: the players' names stand on end over their columns, as tall as the
 *  longest word among them (`--name-room`, up to 120 px: a single word longer still is drawn smaller rather than cut),
 *  each broken between its words only. Its box learns the height of its rows (`--row`, where a round's label takes two
 *  lines), of its header row (`--head`), of its Total row (`--foot`) and the screen's height below its top (`--room`),
 *  so that its Total row is on the screen. Beside the table the final screen closes up (`close`: the winners a size
 *  smaller, the totals closer) where the totals would reach below the screen's foot, or the table would show fewer
 *  than two rounds whole (six or seven players, two long-named winners on the 800x480 screen). */
function fitBreakdown(table) {
  const box = table.parentElement, totals = $("totals"), final = $("final");
  const margin = 8;  // px under the box, to the screen's edge (main's padding, kiosk.css)
  const names = [...table.querySelectorAll("thead .pname")];
  const rows = [...table.tBodies[0].rows];
  const lay = () => {
    table.classList.remove("tight");
    table.style.removeProperty("--name-room");
    for (const name of names) name.style.removeProperty("font-size");
    table.classList.toggle("tight", box.scrollWidth > box.clientWidth + 0.5);
    if (table.classList.contains("tight") && names.length) {
      const lengths = names.map((name) => widestWord(name, { upright: false })); // standing on end
      const room = Math.min(120, Math.ceil(Math.max(...lengths)) + 1);
      table.style.setProperty("--name-room", `${room}px`);
      names.forEach((name, i) => {
        if (lengths[i] <= room) return;
        const size = parseFloat(getComputedStyle(name).fontSize);
        name.style.fontSize = `${Math.floor((10 * size * room) / lengths[i]) / 10}px`;
      });
    }
    // every round's row as high as the highest (kiosk.css: whole rows scroll by), a label on two lines whole: the
    // first row's too (every label on two lines, in a narrow table), where the rows' height is their labels' own
    box.style.removeProperty("--row");
    const set = rows[0]?.getBoundingClientRect().height ?? 0;
    box.style.setProperty("--row", "auto");
    const natural = Math.max(0, ...rows.map((row) => row.getBoundingClientRect().height));
    if (natural > set - 0.5) box.style.setProperty("--row", `${Math.ceil(natural)}px`);
    else box.style.removeProperty("--row");
    box.style.setProperty("--head", `${table.tHead.getBoundingClientRect().height}px`);
    box.style.setProperty("--foot", `${table.tFoot.getBoundingClientRect().height}px`);
    box.style.setProperty("--room", `${innerHeight - (box.getBoundingClientRect().top + scrollY) - margin}px`);
  };
  final.classList.remove("close");
  lay();
  if (box.getBoundingClientRect().left < totals.getBoundingClientRect().right) return; // one column: the page scrolls
  const row = rows[0]?.getBoundingClientRect().height || 1;
  const rest = box.clientHeight - table.tHead.getBoundingClientRect().height - table.tFoot.getBoundingClientRect().height;
  // the rounds shown whole: where more wait below, "more below" stands over one of them
  const shown = box.scrollHeight > box.clientHeight + 1 ? Math.floor((rest + 0.5) / row) - 1 : rows.length;
  if (totals.getBoundingClientRect().bottom + scrollY > innerHeight - margin || shown < Math.min(rows.length, 2)) {
    final.classList.add("close");
    lay();
  }
}

/** How soon after a tap's answer was shown the same tap again is taken for a double tap's second half: sooner
 *  than anyone reads a changed screen and decides to tap again. */
export const DOUBLE_TAP_MS = 600;

/** Said where a tap is taken for the second half of the tap before: a button just come under the finger. */
export const NOT_COUNTED = "Not counted: it came with the tap before, as if a double tap. Tap it again if you meant it.";

/**
 * Run a game page. `page.render(view, game)` draws the game's own part; `page.phrase(view)` says what the
 * player whose turn it is does ("rolls the marbles"); optional `page.why(view)` says on the final screen how the
 * game was won ("The fewest coins lost win"); optional `page.mark(view, player)` a key shown before each name on
 * the score board and the final totals (renderScoreBoard); optional `page.standing(view, player)` what the final
 * totals show with each player's total, beside it (Drachen Wurf: the player's hoard); optional `page.fit()` fits the
 * page to the screen once all of it is drawn, the final screen too, on every drawing and resize (it fits the turn's
 * name, `fitTurnName`, in the room it leaves); optional `sensors`, `marble`, `camera` handlers receive the live sensor
 * messages. Returns the game: { view, send(event), ask(dialog), step(kind),
 * render }.
 */
export function startGame(page) {
  // This page's taps go one after another, each against the game as the one before left it: quick taps all count,
  // while a tap on a game another device (or a page that missed the stream) changed meanwhile is refused as stale.
  let queue = Promise.resolve();
  let writing = 0; // this page's writes sent or waiting their turn
  const inTurn = (write) => {
    writing += 1;
    const result = queue.then(write).finally(() => { writing -= 1; });
    queue = result.catch(() => {});
    return result;
  };
  // A double tap sends the same tap twice, the second before anyone could see what the first did: "Next turn" would
  // pass two turns, "Undo" undo two steps. The same tap again right after itself (no tap between), while it is under
  // way or within DOUBLE_TAP_MS of its answer, is not sent; a tap that counts (two marbles into one gate, two 4s
  // played) is sent as ever.
  let last = { key: null, at: -Infinity, taps: 0 }; // the last send's key, when its answer came, the taps then
  const own = new Set(); // the seqs this page's own writes led to
  // a write in its turn; the tap that sent it (if any) learns when its answer was shown
  const sent = (finger, write) => {
    if (finger) finger.answered = Infinity;
    return inTurn(write).finally(() => answered(finger));
  };
  const once = (key, write) => {
    const finger = tapNow;
    const again = key === last.key && taps <= last.taps + 1 && performance.now() < last.at + DOUBLE_TAP_MS;
    if (again || (finger && secondHalf(finger, tapBefore))) {
      last.taps = taps; // a third tap is the same double tap's
      // a button just drawn under the finger: said, so that a quick tap meant for it is tapped again
      if (!again) toast(NOT_COUNTED);
      return Promise.resolve({ ok: false, status: 0, data: null, doubled: true });
    }
    const tap = { key, at: Infinity, taps };
    last = tap;
    return sent(finger, write).finally(() => { tap.at = performance.now(); });
  };
  const game = {
    view: JSON.parse($("session-data").textContent),
    finalShown: false,
    /** Send one event against the seq this page saw (or the event's own `expected_seq`): two devices tapping
     * "Next turn" together move the turn once, the second is told the game changed and shown it. `counts`: each
     * tap of it counts, however quick (a counting pad); otherwise a double tap counts once. `since`: the seq the
     * person saw (a dialog's, when it opened): sent against it, or the seq this page's own writes led on to. */
    send(event, { counts = false, since = null } = {}) {
      const shown = toastsShown;
      const write = async () => {
        let seen = since ?? game.view.seq;
        while (own.has(seen + 1)) seen += 1; // this page's own taps changed nothing the person did not see
        const result = await api(`/api/sessions/${game.view.id}/events`, { expected_seq: seen, ...event });
        // a refusal or a reason shown before this tap no longer stands; one shown since (a tap while this one was
        // under way) still does
        if (result.ok && toastsShown === shown) clearToast();
        unsent = result.status === 0 ? confirmed : new Map(); // not reached: their keypads show the numbers again
        confirmed = new Map();
        return settle(result);
      };
      // a counting tap is sent every time; what it drew may stand under a double tap's second half all the same
      return counts ? sent(tapNow, write) : once(tappedId ? `#${tappedId}` : JSON.stringify(event), write);
    },
    /** Ask with a dialog (`ask` resolves with an event, or nothing when cancelled), then send it against the game
     * as it was when the dialog opened: a change another device made meanwhile has it refused as stale, never
     * applied to a game the person did not see. A dialog whose question is asked again on news (its `moot`) is
     * answered against the game as it last found its question standing. */
    async ask(ask) {
      const asked = { since: game.view.seq };
      const before = asking;
      asking = asked;
      let event;
      try { event = await ask(); } finally { asking = before; }
      return event ? game.send(event, { since: asked.since }) : null;
    },
    /** Undo or redo, always against the seq seen; announces what changed. A double tap undoes one step. */
    step(kind) {
      return once(kind, async () => {
        const result = await api(`/api/sessions/${game.view.id}/${kind}`, { expected_seq: game.view.seq });
        if (result.ok) {
          const text = result.data.change?.text;
          const verb = kind === "undo" ? "Undid" : "Redid";
          toast(text ? `${verb}: ${text}` : `${verb} the last step.`);
        }
        return settle(result);
      });
    },
    show,
    render: () => draw(),
  };

  function settle(result) {
    if (result.ok) {
      own.add(result.data.seq);
      show(result.data);
    } else if (result.status === 409 && result.data?.session) show(result.data.session);
    return result;
  }

  function show(next) {
    if (next.id !== game.view.id || next.seq < game.view.seq) return; // an older message arriving late
    // The same view again (a tap's answer and its echo on the stream): nothing to redraw.
    if (next.seq === game.view.seq && JSON.stringify(next) === JSON.stringify(game.view)) return;
    // an undo or redo made on another device says here too what it changed (the tapping page says it itself)
    if (next.change?.text && next.seq > game.view.seq) {
      toast(`${next.change.action === "redo" ? "Redid" : "Undid"}: ${next.change.text}`);
    }
    game.view = next;
    document.body.dataset.seq = String(next.seq); // seen, drawn at once or after the tap in progress
    whenUntouched(draw);
  }

  function draw() {
    const view = game.view;
    document.body.dataset.status = view.status || (view.finished ? "finished" : "running");
    $("round-label").textContent = roundLabel(view);
    const readOnly = view.read_only ?? view.finished;
    const noWrites = view.status === "abandoned" || view.status === "set_aside";
    explain($("undo"), noWrites ? "This game can only be looked at." : view.can_undo ? null : "Nothing to undo yet.");
    explain($("redo"), noWrites ? "This game can only be looked at." : view.can_redo ? null : "Nothing to redo.");
    const notice = readOnlyText(view);
    $("readonly").hidden = !notice;
    if (notice) $("readonly-text").textContent = notice.join("");
    $("play").inert = Boolean(readOnly);
    const abandon = $("abandon");
    // a finished game keeps its result: nothing to abandon (its last step can still be undone)
    if (abandon) abandon.hidden = Boolean(readOnly || view.finished);
    renderScoreBoard(view, page);
    const turn = $("turn");
    const active = view.turn ?? view.state?.active ?? null;
    if (turn) { // a live region: redrawn only when what it says changes, so that it is announced once
      replaceIfChanged(turn, ...(active && !readOnly
        ? [who(view, active, "who turn-name"), h("span", { class: "phrase" }, page.phrase?.(view) || "")] : []));
    }
    keepAwake(document.body.dataset.status === "running");
    page.render(view, game);
    renderFinal(view, game, page);
    fitToScreen(); // in the room the page's drawing left, the round shown again after an undo too
    recheck(view); // a question open in a dialog, asked again of the game as drawn now
  }

  wire($("undo"), () => game.step("undo"));
  wire($("redo"), () => game.step("redo"));
  wire($("final-undo"), () => game.step("undo"));
  wire($("again"), async () => {
    explain($("again"), "Starting…");  // a second tap while the first starts the game starts no second one
    const view = game.view;
    // The same options, but those kept elsewhere (kind "object", e.g. the hero cards: the only options whose
    // values are JSON objects) come fresh from where they are kept, as on the home page.
    const options = Object.fromEntries(Object.entries(view.options)
      .filter(([, value]) => value === null || typeof value !== "object" || Array.isArray(value)));
    // `again`: when another device already started the next game from this one, this page joins it
    const result = await api("/api/sessions", { game: view.game, players: view.players, options, again: view.id });
    if (result.ok) location.href = `/play/${result.data.id}`;
    else explain($("again"), null);
  });
  wire($("menu-button"), () => { $("menu").hidden = false; });
  wire($("menu-close"), () => { $("menu").hidden = true; });
  $("menu").addEventListener("click", (event) => { if (event.target === $("menu")) $("menu").hidden = true; });
  const abandon = $("abandon");
  if (abandon) {
    wire(abandon, async () => {
      $("menu").hidden = true;
      const sure = await confirm(`Abandon this game of ${game.view.game_name}?`, "Abandon the game", "Keep playing",
        "It is kept as abandoned and cannot be carried on.", { moot: abandonMoot });
      if (!sure) return;
      const result = await api(`/api/sessions/${game.view.id}/abandon`, { expected_seq: game.view.seq });
      if (result.ok) location.href = "/?abandoned=" + game.view.id;
      else settle(result);
    });
  }
  draw();
  /** The page fitted to the screen as it is, once the kit has drawn it all: the page's own fitting (`page.fit`), which
   *  fits the turn's name in the room it leaves, else the turn's name alone. */
  function fitToScreen() { (page.fit ?? fitTurnName)(); }
  addEventListener("resize", () => { // a phone turned, a window made narrower
    if (!$("final").hidden) fitBreakdown($("breakdown"));
    fitToScreen();
  });
  document.body.dataset.seq = String(game.view.seq);
  // a change from elsewhere (another device, the camera) redraws the page: a tap after it answers what it shows,
  // never the second half of a double tap before it
  const heard = (next) => {
    if (!writing && next.seq > game.view.seq && !own.has(next.seq)) tapBefore = null;
    show(next);
  };
  follow(game.view.id, { session: heard, sensors: page.sensors, marble: page.marble, camera: page.camera });
  document.body.dataset.ready = "yes"; // every control is wired: tests (and people) may tap
  return game;
}

// ---- on every page ------------------------------------------------------------------------------------------

const simBadge = document.getElementById("sim-badge");
if (simBadge) {
  const pad = document.getElementById("sim-pad"); // a Diego page's virtual marbles, below the game on a small screen
  simBadge.addEventListener("click", () => dialog((close) => [
    h("p", { class: "big" }, "Simulation"),
    h("p", {}, simBadge.dataset.about), // what is simulated, said by the page (base.html)
    h("div", { class: "row" },
      pad ? button("Roll a marble ↓", { id: "sim-show-pad", onTap: () => {
        close();
        pad.scrollIntoView({ block: "center" });
      } }) : null,
      button("Got it", { cls: "primary", onTap: () => close() })),
  ]));
}
