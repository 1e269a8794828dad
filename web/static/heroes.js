// The hero cards page (Dračí hrad, ruling H2): each of the six cards edited by tap and keypad, saved at once.
import { api, button, h, keypad, toast, whenUntouched } from "./kit.js";

let doc = JSON.parse(document.getElementById("hero-cards-data").textContent);

const NUMBERS = [["attack", "Attack"], ["defence", "Defence"], ["lives", "Lives"], ["red", "Red"]];
const WEAPON_NAMES = { two_hand_sword: "Two-hand sword", axe: "Axe", bow: "Bow" };
const short = (hero) => doc.names[hero].split(" ")[0];

/** The starting values the rulebook gives (a number, or a weapon the hero may use: the document's from_rulebook)
 *  are marked ★ while the card keeps them. Every other starting value is a placeholder to copy from the hero card. */
const STAR = "★";

/** Whether `field` of `hero`'s card shows the rulebook's value: named by the rulebook and not changed since. */
function fromRulebook(hero, field) {
  if (!(doc.from_rulebook[hero] || []).includes(field)) return false;
  const card = doc.cards[hero];
  const start = doc.defaults[hero];
  if (field in WEAPON_NAMES) return card.weapons.includes(field) === start.weapons.includes(field);
  return card[field] === start[field];
}

/** A control's label with the rulebook's mark, and the words a screen reader says for it. */
function sourced(hero, field, label) {
  const known = fromRulebook(hero, field);
  return { text: known ? `${label} ${STAR}` : label, said: known ? " (from the rulebook)" : "" };
}

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
  const start = doc.defaults[hero];
  const same = JSON.stringify(card) === JSON.stringify(start);
  const magic = sourced(hero, "magic", "Magic");
  return h("article", { class: "panel hero-card", dataset: { hero } },
    h("header", {}, h("strong", {}, doc.names[hero]),
      h("small", { class: "muted", dataset: { edited: String(edited) } },
        edited ? " saved" : " starting values: copy your card")),
    h("div", { class: "hero-numbers" }, ...NUMBERS.map(([key, label]) => {
      const { text, said } = sourced(hero, key, label);
      return button([h("small", {}, text), h("b", {}, String(card[key]))], {
        cls: `hero-number${key === "red" ? " red" : ""}`, dataset: { field: key, rulebook: String(Boolean(said)) },
        "aria-label": `${short(hero)} ${label}: ${card[key]}${said}; tap to change`,
        onTap: () => editNumber(hero, key, label),
      });
    })),
    h("div", { class: "hero-toggles" },
      ...doc.weapons.map((w) => {
        const { text, said } = sourced(hero, w, WEAPON_NAMES[w]);
        return button(text, {
          cls: "hero-toggle", dataset: { weapon: w, rulebook: String(Boolean(said)) },
          "aria-pressed": String(card.weapons.includes(w)), "aria-label": `${WEAPON_NAMES[w]}${said}`,
          onTap: () => toggleWeapon(hero, w),
        });
      }),
      button(magic.text, {
        cls: "hero-toggle", dataset: { magic: "", rulebook: String(Boolean(magic.said)) },
        "aria-pressed": String(card.magic), "aria-label": `Magic objects${magic.said}`,
        onTap: () => save(hero, { magic: !card.magic }, card.magic ? "no magic objects" : "magic objects allowed"),
      })),
    button("Starting values", {
      cls: "ghost hero-reset", dataset: { reset: hero },
      reason: same ? "This card already has the starting values." : null,
      onTap: () => save(hero, start, "the starting values"),
    }));
}

function draw() {
  document.getElementById("hero-cards").replaceChildren(...doc.order.map(heroCard)); // the rulebook's order
}

draw();
document.body.dataset.ready = "yes";
