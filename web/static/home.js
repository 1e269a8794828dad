// Home page: pick a game, seat the players by tap, set options, start.
import { api, h, toast } from "./kiosk.js";

const games = JSON.parse(document.getElementById("games-data").textContent);
const seats = [];
let game = null;
const options = {};

const startBtn = document.getElementById("start");
const seatsEl = document.getElementById("seats");
const pool = document.getElementById("player-pool");

function refresh() {
  seatsEl.replaceChildren(...seats.map((name, i) =>
    h("li", { dataset: { seat: i + 1 } }, h("b", {}, `${i + 1}`), name, i === 0 ? h("small", {}, "starts") : null)));
  for (const chip of pool.querySelectorAll("[data-player]")) {
    chip.setAttribute("aria-pressed", seats.includes(chip.dataset.player) ? "true" : "false");
  }
  const ok = game && seats.length >= game.min_players && seats.length <= game.max_players;
  startBtn.disabled = !ok;
  startBtn.textContent = !game ? "Choose a game"
    : ok ? `Start ${game.name}` : `${game.name}: seat ${game.min_players} to ${game.max_players} players`;
}

function toggleSeat(name) {
  const i = seats.indexOf(name);
  if (i >= 0) seats.splice(i, 1);
  else if (game && seats.length >= game.max_players) toast(`${game.name} seats at most ${game.max_players}.`, "error");
  else seats.push(name);
  refresh();
}

function addChip(name) {
  const chip = h("button", { class: "btn chip", dataset: { player: name }, "aria-pressed": "false",
                             onclick: () => toggleSeat(name) }, name);
  pool.insertBefore(chip, document.getElementById("add-player"));
  return chip;
}

for (const chip of pool.querySelectorAll("[data-player]")) {
  chip.addEventListener("click", () => toggleSeat(chip.dataset.player));
}

function renderOptions() {
  const box = document.getElementById("options");
  box.replaceChildren();
  if (!game) return;
  for (const opt of game.options) {
    if (!(opt.id in options)) options[opt.id] = structuredClone(opt.default);
    if (opt.kind === "int") {
      const value = h("output", { class: "value", id: `opt-${opt.id}` }, options[opt.id]);
      const step = (d) => () => {
        const next = options[opt.id] + d;
        if (next < opt.minimum || next > opt.maximum) {
          toast(`${opt.name}: from ${opt.minimum} to ${opt.maximum}.`, "error");
          return;
        }
        options[opt.id] = next;
        value.textContent = next;
      };
      box.append(h("div", { class: "option" }, h("span", { class: "label" }, opt.name),
        h("button", { class: "btn", "aria-label": `less ${opt.name}`, onclick: step(-1) }, "−"), value,
        h("button", { class: "btn", "aria-label": `more ${opt.name}`, onclick: step(1) }, "+"),
        h("small", {}, opt.help)));
    } else if (opt.kind === "bool") {
      const btn = h("button", { class: "btn choice", "aria-pressed": String(options[opt.id]) }, opt.name);
      btn.addEventListener("click", () => {
        options[opt.id] = !options[opt.id];
        btn.setAttribute("aria-pressed", String(options[opt.id]));
      });
      box.append(h("div", { class: "option" }, btn, h("small", {}, opt.help)));
    } else if (opt.kind === "names") {
      const row = h("div", { class: "option names" }, h("span", { class: "label" }, opt.name));
      options[opt.id].forEach((name, i) => {
        const btn = h("button", { class: "btn chip" }, name);
        btn.addEventListener("click", async () => {
          const typed = await ask(`${opt.name} ${i + 1}`, options[opt.id][i]);
          if (typed) { options[opt.id][i] = typed; btn.textContent = typed; }
        });
        row.append(btn);
      });
      box.append(row);
    }
  }
}

for (const btn of document.querySelectorAll("#game-choice [data-game]")) {
  btn.addEventListener("click", () => {
    game = games.find((g) => g.id === btn.dataset.game);
    for (const other of document.querySelectorAll("#game-choice [data-game]")) {
      other.setAttribute("aria-pressed", other === btn ? "true" : "false");
    }
    for (const key of Object.keys(options)) delete options[key];
    while (seats.length > game.max_players) seats.pop();
    renderOptions();
    refresh();
  });
}

// A small on-screen keyboard, for the Pi's touchscreen; a tablet's own keyboard works too.
const keyboard = document.getElementById("keyboard");
const kbInput = document.getElementById("kb-input");
const keys = document.getElementById("kb-keys");
for (const row of ["QWERTYUIOP", "ASDFGHJKL", "ZXCVBNM"]) {
  keys.append(h("div", { class: "keyrow" }, [...row].map((ch) =>
    h("button", { class: "btn key", onclick: () => { kbInput.value = (kbInput.value + (kbInput.value ? ch.toLowerCase() : ch)).slice(0, 24); } }, ch))));
}
keys.append(h("div", { class: "keyrow" },
  h("button", { class: "btn key wide", onclick: () => { kbInput.value += " "; } }, "space"),
  h("button", { class: "btn key", "aria-label": "delete", onclick: () => { kbInput.value = kbInput.value.slice(0, -1); } }, "⌫")));

function ask(label, value = "") {
  document.getElementById("kb-label").textContent = label;
  kbInput.value = value;
  keyboard.hidden = false;
  return new Promise((resolve) => {
    const done = (result) => {
      keyboard.hidden = true;
      okBtn.removeEventListener("click", ok);
      cancelBtn.removeEventListener("click", cancel);
      resolve(result);
    };
    const ok = () => {
      const name = kbInput.value.trim().replace(/\s+/g, " ");
      if (!name) { toast("Type a name first.", "error"); return; }
      done(name);
    };
    const cancel = () => done(null);
    const okBtn = document.getElementById("kb-ok");
    const cancelBtn = document.getElementById("kb-cancel");
    okBtn.addEventListener("click", ok);
    cancelBtn.addEventListener("click", cancel);
  });
}

document.getElementById("add-player").addEventListener("click", async () => {
  const name = await ask("New player");
  if (!name) return;
  const existing = pool.querySelector(`[data-player="${CSS.escape(name)}"]`);
  if (!existing) {
    const saved = await api("/api/players", { name });
    if (!saved.ok) return;
    addChip(name);
  }
  if (!seats.includes(name)) toggleSeat(name);
});

startBtn.addEventListener("click", async () => {
  startBtn.disabled = true;
  const result = await api("/api/sessions", { game: game.id, players: seats, options });
  if (result.ok) location.href = `/play/${result.data.id}`;
  else refresh();
});

refresh();
