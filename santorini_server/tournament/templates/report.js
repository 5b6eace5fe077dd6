// The game list: rows from the compact JSON above, a page at a time, filtered as you type.
// Every text goes in through textContent, never as HTML (engine names are untrusted).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("game-data").textContent);
  var s = data.strings;
  var PAGE = 50;
  var games = data.games.map(function (g) {
    // [number, players, gods, result, termination, turns, block file, index in the file]
    return {
      number: g[0], players: s[g[1]], gods: s[g[2]], result: s[g[3]], termination: s[g[4]],
      turns: g[5], href: s[g[6]] + "#game=" + g[7], key: null
    };
  });
  var shown = games;
  var page = 0;
  var body = document.querySelector("#games tbody");
  var filter = document.getElementById("filter");
  var prev = document.getElementById("prev");
  var next = document.getElementById("next");
  var label = document.getElementById("page");

  function cell(row, text, left) {
    var td = document.createElement("td");
    td.textContent = text;
    if (left) { td.className = "text"; }
    row.appendChild(td);
    return td;
  }

  function render() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    var rows = document.createDocumentFragment();
    shown.slice(page * PAGE, page * PAGE + PAGE).forEach(function (g) {
      var tr = document.createElement("tr");
      var link = document.createElement("a");
      link.href = g.href;
      link.textContent = String(g.number);
      link.setAttribute("aria-label", "view game " + g.number);
      cell(tr, "").appendChild(link);
      cell(tr, g.players, true);
      cell(tr, g.gods, true);
      cell(tr, g.result, true);
      cell(tr, g.termination, true);
      cell(tr, String(g.turns));
      rows.appendChild(tr);
    });
    body.replaceChildren(rows);
    label.textContent = shown.length ? "page " + (page + 1) + " of " + pages + " · " + shown.length + " games" : "no game matches";
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }

  function matches(g, words) {
    if (g.key === null) {
      g.key = [g.number, g.players, g.gods, g.result, g.termination].join(" ").toLowerCase();
    }
    return words.every(function (w) { return g.key.indexOf(w) >= 0; });
  }

  filter.addEventListener("input", function () {
    var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    shown = words.length ? games.filter(function (g) { return matches(g, words); }) : games;
    page = 0;
    render();
  });
  prev.addEventListener("click", function () { page -= 1; render(); });
  next.addEventListener("click", function () { page += 1; render(); });
  render();
  window.reportReady = performance.now();
})();
