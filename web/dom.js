// DOM helpers. Text only ever goes in as text nodes / textContent, never as HTML.

const SVG_NS = "http://www.w3.org/2000/svg";
// Nodes given an event listener by el() / svg(): patch() replaces them, never reuses them
// (their listener may hold the data they were made for).
const listened = new WeakSet();

function apply(node, attrs) {
  if (!attrs) return node;
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.setAttribute("class", value);
    else if (key === "text") node.textContent = String(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
      listened.add(node);
    }
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function el(tag, attrs, ...children) {
  return append(apply(document.createElement(tag), attrs), children);
}

export function svg(tag, attrs, ...children) {
  return append(apply(document.createElementNS(SVG_NS, tag), attrs), children);
}

export const $ = (id) => document.getElementById(id);

// Marks `node` as one patch() puts in whole, never morphs another node into (like a node
// with a listener): for a node its maker keeps track of and updates in place itself
// (charts.js curveChart).
export function whole(node) {
  listened.add(node);
  return node;
}

// node.textContent = text, when that changes it (an unchanged text is not laid out again).
export function setText(node, text) {
  const value = String(text);
  if (node.textContent !== value) node.textContent = value;
}

// A template like "{n} × {gpu} · {days} days" filled with nodes or strings.
export function fill(template, values) {
  const frag = document.createDocumentFragment();
  for (const part of template.split(/(\{\w+\})/)) {
    const m = /^\{(\w+)\}$/.exec(part);
    if (m && m[1] in values) {
      const v = values[m[1]];
      frag.append(v instanceof Node ? v : document.createTextNode(String(v)));
    } else if (part) {
      frag.append(document.createTextNode(part));
    }
  }
  return frag;
}

// Like node.replaceChildren(...children), but the nodes already there that match the new
// ones (same tag, in the same place) are kept and only their differing attributes and
// text change: re-rendering an answer that changed in a few numbers touches a few text
// nodes, so the browser restyles and lays out little. A <details> keeps the reader's
// open/closed state, as it would if it were not re-rendered.
export function patch(node, ...children) {
  const next = [];
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    if (!(child instanceof Node)) next.push(document.createTextNode(String(child)));
    else if (child.nodeType === Node.DOCUMENT_FRAGMENT_NODE) next.push(...child.childNodes);
    else next.push(child);
  }
  let cur = node.firstChild;
  for (const n of next) cur = patchOne(node, cur, n);
  removeFrom(cur);
  return node;
}

// Puts `n` where `cur` is (reusing `cur` when it matches); returns the node after it.
function patchOne(parent, cur, n) {
  if (!cur) {
    parent.append(n);
    return null;
  }
  const following = cur.nextSibling;
  if (cur === n) return following; // the node already there, updated in place by its maker
  if (cur.nodeType === n.nodeType && cur.nodeName === n.nodeName && !listened.has(cur) && !listened.has(n)) morph(cur, n);
  else parent.replaceChild(n, cur);
  return following;
}

function removeFrom(node) {
  while (node) {
    const following = node.nextSibling;
    node.remove();
    node = following;
  }
}

function morph(old, next) {
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.data !== next.data) old.data = next.data;
    return;
  }
  const want = next.attributes;
  for (let i = 0; i < want.length; i++) {
    const { name, value } = want[i];
    if (old.getAttribute(name) === value) continue;
    // Styles through the CSSOM, as they were made (the page's CSP refuses style attributes).
    if (name === "style") old.style.cssText = next.style.cssText;
    else old.setAttribute(name, value);
  }
  const have = old.attributes;
  if (have.length !== want.length) {
    for (let i = have.length - 1; i >= 0; i--) {
      const name = have[i].name;
      if (!next.hasAttribute(name) && !(name === "open" && old.localName === "details")) old.removeAttribute(name);
    }
  }
  let cur = old.firstChild;
  for (let n = next.firstChild; n; ) {
    const after = n.nextSibling; // before `n` moves into `old`
    cur = patchOne(old, cur, n);
    n = after;
  }
  removeFrom(cur);
}
