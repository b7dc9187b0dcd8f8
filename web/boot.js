// Runs before first paint (a classic script in <head>): theme and embed mode, so
// the page never flashes the wrong colours or the full layout inside an embed.
(function () {
  var root = document.documentElement;
  var params = new URLSearchParams(location.search);
  var theme = params.get("theme");
  if (theme !== "light" && theme !== "dark") {
    try {
      theme = localStorage.getItem("gpucalc.theme");
    } catch (e) {
      theme = null;
    }
  }
  if (theme === "light" || theme === "dark") root.setAttribute("data-theme", theme);
  if (params.get("embed") === "1") root.setAttribute("data-embed", "");
})();
