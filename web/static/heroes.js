// The hero cards page (Dračí hrad, ruling H2): each of the six cards edited by tap and keypad, saved at once.
import { api, button, h, keypad, toast, whenUntouched } from "./kit.js";

let doc = JSON.parse(document.getElementById("hero-cards-data").textContent);

const NUMBERS = [["attack", "Attack"], ["defence", "Defence"], ["lives", "Lives"], ["red", "Red"]];
const WEAPON_NAMES = { two_hand_sword: "Two-hand sword", axe: "Axe", bow: "Bow" };
const short = (hero) => doc.names[hero].split(" ")[0];

/** The bounds a number may take on this card: the red threshold stays below the lives (ruling H2). */
function bounds(card, key) {
  const { minimum, maximum } = doc.limits[key];
  if (key === "red") return [minimum, Math.min(maximum, card.lives - 1)];
  if (key === "lives") return [Math.max(minimum, card.red + 1), maximum];
  return [minimum, maximum];
}

async function save(hero, change, said) {
  const result = await api(`/api/hero-cards/${hero}`, change, "PUT");
  if (!result.ok) { // the kit showed the companion's reason; nothing was changed: show the cards as stored
    const fresh = await fetch("/api/hero-cards").then((r) => (r.ok ? r.json() : null)).catch(() => null);
    if (fresh) { doc = fresh; whenUntouched(draw); }
    return;
  }
  doc = result.data;
  whenUntouched(draw);
  toast(`${short(hero)}'s card saved: ${said}. New games take it.`);
}

async function editNumber(hero, key, label) {
  const card = doc.cards[hero];
  const [min, max] = bounds(card, key);
  if (min > max) {
    toast(key === "red" ? `${short(hero)} has ${card.lives} lives: raise them first; the red threshold stays below.`
      : `Lower the red threshold first: the lives stay above it.`, "error", "H2");
    return;
  }
  const typed = await keypad(`${short(hero)}: ${label}`, { value: card[key], min, max });
  if (typed == null || typed === card[key]) return;
  await save(hero, { [key]: typed }, `${label.toLowerCase()} ${typed}`);
}

function toggleWeapon(hero, weapon) {
  const weapons = doc.cards[hero].weapons;
  const has = weapons.includes(weapon);
  const next = has ? weapons.filter((w) => w !== weapon) : [...weapons, weapon];
  save(hero, { weapons: next }, `${WEAPON_NAMES[weapon].toLowerCase()} ${has ? "not allowed" : "allowed"}`);
}

function heroCard(hero) {
  const card = doc.cards[hero];
  const edited = doc.edited.includes(hero);
  const rulebook = doc.defaults[hero];
  const same = JSON.stringify(card) === JSON.stringify(rulebook);
  return h("article", { class: "panel hero-card", dataset: { hero } },
    h("header", {}, h("strong", {}, doc.names[hero]),
      h("small", { class: "muted", dataset: { edited: String(edited) } }, edited ? " saved" : " rulebook values")),
    h("div", { class: "hero-numbers" }, ...NUMBERS.map(([key, label]) =>
      button([h("small", {}, label), h("b", {}, String(card[key]))], {
        cls: `hero-number${key === "red" ? " red" : ""}`, dataset: { field: key },
        "aria-label": `${short(hero)} ${label}: ${card[key]}; tap to change`,
        onTap: () => editNumber(hero, key, label),
      }))),
    h("div", { class: "hero-toggles" },
      ...doc.weapons.map((w) => button(WEAPON_NAMES[w], {
        cls: "hero-toggle", dataset: { weapon: w }, "aria-pressed": String(card.weapons.includes(w)),
        onTap: () => toggleWeapon(hero, w),
      })),
      button("Magic", {
        cls: "hero-toggle", dataset: { magic: "" }, "aria-pressed": String(card.magic),
        onTap: () => save(hero, { magic: !card.magic }, card.magic ? "no magic objects" : "magic objects allowed"),
      })),
    button("Rulebook values", {
      cls: "ghost hero-reset", dataset: { reset: hero },
      reason: same ? "This card already has the rulebook's values." : null,
      onTap: () => save(hero, rulebook, "the rulebook's values"),
    }));
}

function draw() {
  document.getElementById("hero-cards").replaceChildren(...doc.order.map(heroCard)); // the rulebook's order
}

draw();
document.body.dataset.ready = "yes";
