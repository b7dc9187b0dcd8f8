// The two embed snippets of EMBED.md for the current scenario: the iframe (works
// everywhere) and the <gpucalc-calculator> element of embed.js (follows its height).
// Attribute values are escaped, so any scenario text stays inside its attribute.

const attr = (text) => String(text).replace(/&/g, "&amp;").replace(/'/g, "&#39;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

// iframeSrc: the page's URL with ?embed=1 and the scenario; base: the folder the page
// (and embed.js) is served from; lang: "en" or "zh".
export function iframeSnippet(iframeSrc) {
  return `<iframe src="${attr(iframeSrc)}" title="gpucalc" width="100%" height="560" loading="lazy" style="border:0;max-width:760px"></iframe>`;
}

export function elementSnippet(base, scenario, lang) {
  const script = new URL("embed.js", base).href;
  return `<script src="${attr(script)}" defer></script>\n<gpucalc-calculator lang="${attr(lang)}" scenario='${attr(JSON.stringify(scenario))}'></gpucalc-calculator>`;
}
