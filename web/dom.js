// DOM helpers. Text only ever goes in as text nodes / textContent, never as HTML.

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(node, attrs) {
  if (!attrs) return node;
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.setAttribute("class", value);
    else if (key === "text") node.textContent = String(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
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
