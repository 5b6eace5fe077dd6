// The game list: a page per viewer file (block), its rows loaded from the block's script
// (games/NNNN-MMMM.js calls reportBlock) when the page shows it, so the report holds one entry
// per block, not per game.  A filter searches the blocks in order, loading each, and shows the
// matches as they are found.  Every text goes in through textContent, never as HTML (engine
// names are untrusted).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("game-data").textContent);
  var PAGE = 100;
  var blocks = data.blocks.map(function (b) {  // [first, last, games]
    var pad = function (n) { return String(n).padStart(4, "0"); };
    return {first: b[0], last: b[1], count: b[2], path: "games/" + pad(b[0]) + "-" + pad(b[1]), rows: null,
            waiting: []};
  });
  var byFirst = {};
  blocks.forEach(function (b) { byFirst[b.first] = b; });
  var body = document.querySelector("#games tbody");
  var filter = document.getElementById("filter");
  var prev = document.getElementById("prev");
  var next = document.getElementById("next");
  var label = document.getElementById("page");
  var page = 0;          // the block shown, or the page of matches
  var words = [];
  var matches = [];
  var searched = 0;      // blocks searched for the current filter
  var search = 0;        // the current search (a newer filter abandons an older one)

  window.reportBlock = function (d) {
    var b = byFirst[d.first];
    if (!b || b.rows) { return; }
    var s = d.strings;
    b.rows = d.games.map(function (g, k) {
      // [number, players, gods, result, termination, turns, offset]
      return {number: g[0], players: s[g[1]], gods: s[g[2]], result: s[g[3]], termination: s[g[4]],
              turns: g[5], href: b.path + ".html#game=" + (k + 1), key: null};
    });
  };

  function load(b, then) {
    if (b.rows) { then(); return; }
    b.waiting.push(then);
    if (b.waiting.length > 1) { return; }
    var script = document.createElement("script");
    var done = function () {
      if (!b.rows) { b.rows = []; b.missing = true; }
      var waiting = b.waiting; b.waiting = [];
      waiting.forEach(function (f) { f(); });
    };
    script.onload = done;
    script.onerror = done;
    script.src = b.path + ".js";
    document.head.appendChild(script);
  }

  function cell(row, text, left) {
    var td = document.createElement("td");
    td.textContent = text;
    if (left) { td.className = "text"; }
    row.appendChild(td);
    return td;
  }

  function show(rows) {
    var frag = document.createDocumentFragment();
    rows.forEach(function (g) {
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
      frag.appendChild(tr);
    });
    body.replaceChildren(frag);
  }

  function render() {
    if (words.length) {
      var pages = Math.max(1, Math.ceil(matches.length / PAGE));
      page = Math.min(page, pages - 1);
      show(matches.slice(page * PAGE, page * PAGE + PAGE));
      var state = searched < blocks.length ? " (searching: " + searched + " of " + blocks.length + " files)" : "";
      label.textContent = (matches.length ? "page " + (page + 1) + " of " + pages + " · " + matches.length +
        " matching games" : "no game matches") + state;
      prev.disabled = page === 0;
      next.disabled = page >= pages - 1;
      return;
    }
    if (!blocks.length) {
      show([]);
      label.textContent = "no games yet";
      prev.disabled = next.disabled = true;
      return;
    }
    page = Math.max(0, Math.min(page, blocks.length - 1));
    var b = blocks[page];
    var shown = page;
    load(b, function () {
      if (words.length || page !== shown) { return; }
      show(b.rows);
      label.textContent = "games " + b.first + "-" + b.last + " · page " + (page + 1) + " of " + blocks.length +
        " · " + data.played + " games" + (b.missing ? " (" + b.path + ".js is missing)" : "");
      window.reportShown = performance.now();
    });
    prev.disabled = page === 0;
    next.disabled = page >= blocks.length - 1;
  }

  function matchesWords(g) {
    if (g.key === null) {
      g.key = [g.number, g.players, g.gods, g.result, g.termination].join(" ").toLowerCase();
    }
    return words.every(function (w) { return g.key.indexOf(w) >= 0; });
  }

  function searchFrom(k, id) {
    if (id !== search) { return; }
    if (k >= blocks.length) { searched = k; render(); return; }
    load(blocks[k], function () {
      if (id !== search) { return; }
      blocks[k].rows.forEach(function (g) { if (matchesWords(g)) { matches.push(g); } });
      searched = k + 1;
      if (searched === blocks.length || searched % 20 === 0) { render(); }
      searchFrom(k + 1, id);
    });
  }

  filter.addEventListener("input", function () {
    words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    search += 1;
    matches = [];
    searched = 0;
    page = 0;
    render();
    if (words.length) { searchFrom(0, search); }
  });
  prev.addEventListener("click", function () { page -= 1; render(); });
  next.addEventListener("click", function () { page += 1; render(); });
  render();
  window.reportReady = performance.now();
})();
