// <gpucalc-calculator>: the calculator in someone else's page (see EMBED.md).
//   <script src="https://YOUR-HOST/gpucalc/embed.js" defer></script>
//   <gpucalc-calculator scenario='{"model":"llama-3.1-8b","gpu":"h100-sxm-80gb",
//     "training":{"tokens":2e12,"seq_len":8192},"target":{"days":30}}' lang="zh"></gpucalc-calculator>
// It adds an iframe of this folder's index.html?embed=1 and follows its height.
// The page inside runs on its own origin: the host page shares nothing with it.
(function () {
  "use strict";
  var script = document.currentScript;
  var base = new URL(".", script && script.src ? script.src : location.href);

  function base64url(text) {
    var bytes = new TextEncoder().encode(text);
    var bin = "";
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  class GpucalcCalculator extends HTMLElement {
    connectedCallback() {
      if (this.frame) {
        window.addEventListener("message", this.onMessage);
        return;
      }
      var url = new URL("./", base);
      url.searchParams.set("embed", "1");
      var lang = this.getAttribute("lang");
      if (lang === "zh" || lang === "en") url.searchParams.set("lang", lang);
      var theme = this.getAttribute("theme");
      if (theme === "dark" || theme === "light") url.searchParams.set("theme", theme);
      var scenario = this.getAttribute("scenario");
      if (scenario) url.hash = "s=" + base64url(scenario);

      var frame = document.createElement("iframe");
      frame.src = url.href;
      frame.title = this.getAttribute("title") || "gpucalc — LLM training GPU calculator";
      frame.loading = "lazy";
      frame.referrerPolicy = "no-referrer";
      frame.style.border = "0";
      frame.style.width = "100%";
      frame.style.display = "block";
      frame.style.height = (parseInt(this.getAttribute("height"), 10) || 560) + "px";
      this.frame = frame;
      var root = this.attachShadow ? this.attachShadow({ mode: "open" }) : this;
      root.appendChild(frame);

      var origin = base.origin;
      this.onMessage = function (event) {
        var data = event.data;
        if (event.source !== frame.contentWindow || event.origin !== origin) return;
        if (!data || data.type !== "gpucalc:height" || typeof data.height !== "number" || !isFinite(data.height)) return;
        frame.style.height = Math.round(Math.min(Math.max(data.height, 200), 5000)) + "px";
      };
      window.addEventListener("message", this.onMessage);
    }

    disconnectedCallback() {
      if (this.onMessage) window.removeEventListener("message", this.onMessage);
    }
  }

  if (!customElements.get("gpucalc-calculator")) customElements.define("gpucalc-calculator", GpucalcCalculator);
})();
