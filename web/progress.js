// Progress and stale results, for every card the core fills:
//  - a card whose numbers are not for the current inputs (class "stale", set by app.js
//    and compare.js) says so in words at its top, not only by fading;
//  - work that runs longer than PROGRESS_MS shows a progress bar on the cards it
//    will update (data-busy), and the note says they are being updated.
// The work is what the engine's channels report (engine.js onActivity): the answer
// (evaluate, and with it the curve and top layouts when it brings them), the curve and
// top layouts (search), the accelerator comparison.
import { el } from "./dom.js";
import { t } from "./i18n.js";

export const PROGRESS_MS = 200;

const CARDS = {
  "gpucalc-evaluate": ["answer"],
  "gpucalc-search": ["curve-card", "top-card"],
  "gpucalc-compare": ["compare-card"],
};
// An answer that brings the curve and top layouts (engine.js evaluate withExplore).
const WITH_EXPLORE = ["answer", "curve-card", "top-card"];
const ALL = Object.values(CARDS).flat();

const working = new Map(); // channel -> {since (ms), cards} while working
const timers = new Map();

function busyCards() {
  const now = performance.now();
  const ids = new Set();
  for (const { since, cards } of working.values()) if (now - since >= PROGRESS_MS) for (const id of cards) ids.add(id);
  return ids;
}

// The note of one card: present while the card is stale, worded by whether it is updating.
function updateNote(node, busy) {
  let note = node.querySelector(":scope > .stale-note");
  const stale = node.classList.contains("stale");
  if (!stale && !busy) {
    note?.remove();
    return;
  }
  if (!note) {
    note = el("p", { class: "stale-note", role: "status" });
    node.prepend(note);
  }
  const key = stale ? (busy ? "stale_updating" : "stale_previous") : "progress_working";
  if (note.dataset.key !== key) {
    note.dataset.key = key;
    note.textContent = t(key);
  }
}

function refresh() {
  const busy = busyCards();
  for (const id of ALL) {
    const node = document.getElementById(id);
    if (!node) continue;
    node.toggleAttribute("data-busy", busy.has(id));
    updateNote(node, busy.has(id));
  }
}

function onActivity(name, isWorking, withExplore = false) {
  clearTimeout(timers.get(name));
  if (isWorking) {
    const cards = withExplore ? WITH_EXPLORE : (CARDS[name] ?? []);
    working.set(name, { since: working.get(name)?.since ?? performance.now(), cards });
    timers.set(name, setTimeout(refresh, PROGRESS_MS));
  } else working.delete(name);
  refresh();
}

// Call once the cards exist; `engine` is the page's Engine.
export function wireProgress(engine) {
  engine.onActivity = onActivity;
  const observer = new MutationObserver(refresh);
  for (const id of ALL) {
    const node = document.getElementById(id);
    if (node) observer.observe(node, { attributes: true, attributeFilter: ["class"] });
  }
  refresh();
}

// After a change of language: the notes' words.
export function translateProgress() {
  for (const note of document.querySelectorAll(".stale-note")) {
    delete note.dataset.key;
  }
  refresh();
}
