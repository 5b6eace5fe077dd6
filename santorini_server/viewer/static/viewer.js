/* The game viewer: draws the positions the page carries and steps through them.
 *
 * A page with games (santorini replay --html, a tournament's games/ files, the daemon's page of
 * a finished game) carries them packed in its #viewer-data block: the script decodes it
 * (window.SantoriniInflate, inflate.js), unpacks it (unpack below) and starts.  The dashboard's
 * live game page (santorini_server/dashboard/static/dashboard/live.js) starts it on the game's
 * snapshot instead, through window.SantoriniViewer, then appends each turn as the referee rules
 * it: one drawing code for both.
 *
 * Every position, move arrow and build marker comes from the data, which Python wrote after
 * replaying the record through the rules core; unpacking copies the characters and squares
 * Python wrote and adds the differences it computed, and the drawing only places the shapes of
 * the SVG <defs> (santorini_server/viewer/svg.py) at the anchors of the geometry table (in the
 * data, or in #viewer-geometry on a live page), exactly as svg.py's board_svg does.  It never judges a rule.  The data
 * layout is described in santorini_server/viewer/model.py, the packed form in packed.py.
 */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var GEO_NODE = document.getElementById("viewer-geometry");
  var GEO = GEO_NODE ? JSON.parse(GEO_NODE.textContent) : null;
  var GAMES = [];
  var FILES = "abcde";
  var DOMES = "ABCD";
  var BUILD_LABEL = {block: "+", dome: "D", atlas: "D", double: "+2", pre: "P", place: ""};
  var state = {game: 0, k: 0, rotation: 0, topDown: false, timer: null};

  function $(id) { return document.getElementById(id); }
  function el(name, attrs, parent) {
    var node = document.createElementNS(SVG, name);
    for (var key in attrs) { node.setAttribute(key, attrs[key]); }
    if (parent) { parent.appendChild(node); }
    return node;
  }
  function html(name, text, parent, cls) {
    var node = document.createElement(name);
    if (text !== undefined && text !== null) { node.textContent = text; }
    if (cls) { node.className = cls; }
    if (parent) { parent.appendChild(node); }
    return node;
  }
  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }
  function squareName(sq) { return FILES[sq % 5] + (5 - Math.floor(sq / 5)); }
  function cells(board) {
    var out = [];
    for (var i = 0; i < 25; i++) {
      var c = board[i], d = DOMES.indexOf(c);
      out.push(d >= 0 ? {level: d, dome: true} : {level: +c, dome: false});
    }
    return out;
  }
  function workerGroups(p) {
    var bySquare = {};
    p.w.forEach(function (squares, g) { squares.forEach(function (sq) { bySquare[sq] = g; }); });
    return bySquare;
  }
  function squareAttrs(sq, cell, g, letter) {
    var a = {"data-square": squareName(sq), "data-height": cell.level, "data-dome": cell.dome ? 1 : 0,
             "data-worker": g === undefined ? 0 : 1};
    if (g !== undefined) { a["data-group"] = g + 1; a["data-letter"] = letter; }
    return a;
  }

  /* --- drawing: the same elements as svg.py's iso_square / top_square ------------------- */

  function drawIso(game, p) {
    var board = $("iso-board"), labels = $("iso-labels");
    clear(board); clear(labels);
    var cs = cells(p.b), groups = workerGroups(p), anchors = GEO.iso[state.rotation];
    GEO.order[state.rotation].forEach(function (sq) {
      var cell = cs[sq], g = groups[sq], xy = anchors[sq];
      var a = squareAttrs(sq, cell, g, g === undefined ? null : game.letters[g]);
      a["class"] = "sq";
      a.transform = "translate(" + xy[0] + " " + xy[1] + ")";
      var group = el("g", a, board);
      el("use", {href: "#v-tile"}, group);
      for (var k = 1; k <= cell.level; k++) { el("use", {href: "#v-b" + k}, group); }
      var z = -GEO.z[cell.level];
      if (cell.dome) {
        el("use", {href: "#v-dome", y: z}, group);
      } else if (g !== undefined) {
        el("use", {href: "#v-pawn", "class": "g" + (g + 1), y: z}, group);
        el("text", {"class": "wl", y: z - 23}, group).textContent = game.letters[g];
      }
    });
    GEO.labels[state.rotation].forEach(function (l) {
      el("text", {"class": "lab", x: l[1], y: l[2]}, labels).textContent = l[0];
    });
  }

  function drawTop(game, p) {
    drawTopInto($("top-board"), $("top-labels"), GEO.cell, game.letters, p);
  }

  /* The top-down squares of p into board, the file and rank labels into labels.  Given keys
   * (what the drawing in board shows, one short string a square, kept up to date here), only
   * the squares whose height, dome or worker changed are drawn again: a turn changes two to
   * four squares, and a live small board is redrawn on every turn of its game. */
  function drawTopInto(board, labels, size, letters, p, keys) {
    var half = size / 2, cs = cells(p.b), groups = workerGroups(p);
    var fresh = !keys || board.childNodes.length !== 25;
    if (fresh) {
      clear(board); clear(labels);
      for (var i = 0; i < 5; i++) {
        el("text", {"class": "lab", x: i * size + half, y: 5 * size + 12}, labels).textContent = FILES[i];
        el("text", {"class": "lab", x: -11, y: i * size + half}, labels).textContent = 5 - i;
      }
    }
    for (var sq = 0; sq < 25; sq++) {
      var cell = cs[sq], g = groups[sq];
      var key = cell.level + (cell.dome ? "D" : "") + (g === undefined ? "" : "g" + g);
      if (!fresh && keys[sq] === key) { continue; }
      if (keys) { keys[sq] = key; }
      var a = squareAttrs(sq, cell, g, g === undefined ? null : letters[g]);
      a["class"] = "cell";
      a.transform = "translate(" + (sq % 5) * size + " " + Math.floor(sq / 5) * size + ")";
      var group = el("g", a, null);
      el("rect", {"class": "td td" + cell.level, width: size, height: size}, group);
      el("text", {"class": "tdh", x: 3, y: 3}, group).textContent = cell.level;
      if (cell.dome) {
        el("circle", {"class": "tdd", cx: half, cy: half, r: size * 0.36}, group);
      } else if (g !== undefined) {
        el("circle", {"class": "tdw g" + (g + 1), cx: half, cy: half, r: size * 0.3}, group);
        el("text", {"class": "wl", x: half, y: half}, group).textContent = letters[g];
      }
      if (fresh) { board.appendChild(group); } else { board.replaceChild(group, board.childNodes[sq]); }
    }
  }

  /* A small top-down board (the dashboard's lists of live games): the helper's drawing in its
   * own <svg>, brought up to date in place (only the squares that changed) by calling it again
   * with the same element. */
  var MINI_KEYS = new WeakMap();
  function miniBoard(geometry, letters, p, svg) {
    if (!svg) {
      svg = el("svg", {"class": "vb mini", viewBox: geometry.topBox.join(" "), role: "img"});
      el("g", {"class": "mini-board"}, svg);
      el("g", {"class": "mini-labels"}, svg);
      MINI_KEYS.set(svg, []);
    }
    drawTopInto(svg.firstChild, svg.lastChild, geometry.cell, letters, p, MINI_KEYS.get(svg));
    return svg;
  }

  /* The current turn's marks: arrows for the moves (the mover's, and forced ones), rings for
   * the builds and placements.  Both ends of an arrow stand at the heights the positions give. */
  function drawMarks(game) {
    var iso = $("iso-marks"), top = $("top-marks");
    clear(iso); clear(top);
    if (state.k === 0) { return; }
    var turn = game.t[state.k - 1], a = turn.a;
    var before = cells(game.p[state.k - 1].b), after = cells(game.p[state.k].b);
    var anchors = GEO.iso[state.rotation], size = GEO.cell;
    function isoPoint(sq, cs, lift) { return [anchors[sq][0], anchors[sq][1] - GEO.z[cs[sq].level] - lift]; }
    function topPoint(sq) { return [(sq % 5 + 0.5) * size, (Math.floor(sq / 5) + 0.5) * size]; }
    (a.mv || []).forEach(function (m) {
      var p0 = isoPoint(m[0], before, 14), p1 = isoPoint(m[1], after, 14);
      var attrs = {"class": "mv " + m[2], "marker-end": "url(#v-arrow-" + m[2] + ")"};
      var q0 = topPoint(m[0]), q1 = topPoint(m[1]);
      el("line", Object.assign({x1: p0[0], y1: p0[1], x2: p1[0], y2: p1[1]}, attrs), iso);
      el("line", Object.assign({x1: q0[0], y1: q0[1], x2: q1[0], y2: q1[1]}, attrs), top);
    });
    if (turn.bm) {  /* the engine's best turn, faint, from the same position */
      (turn.bm.mv || []).forEach(function (m) {
        var p0 = isoPoint(m[0], before, 14), p1 = isoPoint(m[1], before, 14), q0 = topPoint(m[0]), q1 = topPoint(m[1]);
        var attrs = {"class": "mv best", "marker-end": "url(#v-arrow-move)", "data-best": squareName(m[0]) + "-" + squareName(m[1])};
        el("line", Object.assign({x1: p0[0], y1: p0[1], x2: p1[0], y2: p1[1]}, attrs), iso);
        el("line", Object.assign({x1: q0[0], y1: q0[1], x2: q1[0], y2: q1[1]}, attrs), top);
      });
      (turn.bm.place || []).forEach(function (sq) {
        var pt = isoPoint(sq, before, 0);
        el("ellipse", {"class": "mv best", cx: pt[0], cy: pt[1], rx: 22, ry: 11, "data-best": squareName(sq)}, iso);
      });
    }
    var rings = (a.bd || []).slice();
    (a.place || []).forEach(function (sq) { rings.push([sq, "place"]); });
    rings.forEach(function (b) {
      var sq = b[0], kind = b[1], pt = isoPoint(sq, after, 0), tp = topPoint(sq);
      if (after[sq].dome) { pt[1] -= 8; }
      el("ellipse", {"class": "bd " + kind, cx: pt[0], cy: pt[1], rx: 26, ry: 13, "data-build": kind,
                     "data-square": squareName(sq)}, iso);
      el("rect", {"class": "bd " + kind, x: tp[0] - size / 2 + 3, y: tp[1] - size / 2 + 3, width: size - 6,
                  height: size - 6, rx: 4}, top);
      var label = BUILD_LABEL[kind];
      if (label) {
        el("text", {"class": "bdl", x: pt[0] + 24, y: pt[1] - 10}, iso).textContent = label;
        el("text", {"class": "bdl", x: tp[0] + size / 2 - 9, y: tp[1] + size / 2 - 9}, top).textContent = label;
      }
    });
  }

  /* --- the panels beside the board --------------------------------------------------------- */

  function seatName(game, seat) {
    var s = game.seats[seat - 1];
    return "seat " + seat + " (" + s.player + ", " + s.god + ")";
  }

  function showSeats(game, p) {
    var list = $("seats");
    clear(list);
    game.seats.forEach(function (s, i) {
      var li = html("li", null, list);
      var chip = html("span", s.letter, li, "chip g" + s.group);
      chip.setAttribute("aria-hidden", "true");
      var text = "S" + (i + 1) + " " + s.god + " \u2014 " + s.player;
      if (s.team) { text += " (team " + s.team + ")"; }
      if (p.x >> i & 1) { li.className = "out"; text += " \u2014 eliminated"; }
      if (p.m === i + 1) { li.className += " tomove"; text += " \u2014 to move"; }
      if (p.up === i + 1) { text += " (Athena: may not move up)"; }
      li.appendChild(document.createTextNode(text));
    });
  }

  function status(game, p) {
    if (!p) { return "This record cannot be shown: its start is not a position."; }
    if (p.m === 0) { return "Game over: " + game.words; }
    var verb = p.pl ? " to place" : " to move";
    var text = "Round " + p.r + ": " + seatName(game, p.m) + verb;
    if (p.up) { text += ". Athena's power: seat " + p.up + " may not move up this turn"; }
    return text;
  }

  function msText(ms) { return ms === undefined ? null : (ms / 1000).toFixed(3) + " s"; }

  function showTelemetry(game) {
    var dl = $("telemetry");
    clear(dl);
    var rows;
    if (state.k === 0) {
      rows = [["Position", "start"]];
    } else {
      var t = game.t[state.k - 1];
      rows = [["Turn", t.l + " " + t.s], ["By", seatName(game, t.seat)], ["Time used", msText(t.ms)],
              ["Clock left", msText(t.clock)], ["Score", t.score], ["Depth", t.depth], ["Nodes", t.nodes]];
      if (t.win) { rows.push(["Wins", t.win]); }
      if (t.ev !== undefined) {
        rows.push(["Engine before", t.eb], ["Engine after", t.ea + " (" + t.ev + "% to win)"],
                  ["Best turn", t.best || t.s], ["Loss", t.loss + " points" + (t.mk ? " (" + t.mk + ")" : "")]);
      }
    }
    rows.forEach(function (r) {
      if (r[1] === undefined || r[1] === null) { return; }
      html("dt", r[0], dl);
      html("dd", String(r[1]), dl);
    });
  }

  var GLYPHS = {inaccuracy: "?!", mistake: "?", blunder: "??"};

  function turnButton(t, k, list) {
    var li = html("li", null, list), b = html("button", null, li);
    b.type = "button";
    b.dataset.k = k;
    html("span", t.l, b, "num");
    b.appendChild(document.createTextNode(t.s));
    if (t.mk) {
      var mark = html("span", GLYPHS[t.mk], b, "mk " + t.mk);
      mark.title = t.mk;
      b.dataset.mark = t.mk;
    }
    b.addEventListener("click", function () { go(k); });
  }

  function showTurns(game) {
    var list = $("turns");
    clear(list);
    game.t.forEach(function (t, i) { turnButton(t, i + 1, list); });
  }

  /* --- the analysis graph: each seat's win probability after its turns (SPEC.md section 18) --- */

  var SEAT_COLOURS = ["#0b63c5", "#c2410c", "#15803d", "#9333ea"];
  var GW = 600, GH = 130, GX = 30, GY = 8, GB = 14;

  function graphLines(game) {
    /* two seats: one line, seat 1's view; three or four: one line per seat, at its own turns */
    var lines = [], analysed = false, two = game.nseats === 2;
    for (var s = 0; s < (two ? 1 : game.nseats); s++) { lines.push([]); }
    game.t.forEach(function (t, i) {
      if (t.ev === undefined) { return; }
      analysed = true;
      if (two) { lines[0].push([i + 1, t.seat === 1 ? t.ev : 100 - t.ev, t]); }
      else { lines[t.seat - 1].push([i + 1, t.ev, t]); }
    });
    return analysed ? lines : null;
  }

  function drawGraph(game) {
    var box = $("graphbox"), svg = $("graph"), key = $("graphkey");
    var lines = graphLines(game);
    box.hidden = !lines;
    clear(svg);
    clear(key);
    if (!lines) { return; }
    var n = Math.max(game.t.length, 1);
    function x(k) { return GX + (GW - GX - 6) * k / n; }
    function y(v) { return GY + (GH - GY - GB) * (1 - v / 100); }
    el("line", {"class": "axis", x1: GX, y1: y(0), x2: GW - 6, y2: y(0)}, svg);
    el("line", {"class": "axis", x1: GX, y1: y(100), x2: GW - 6, y2: y(100)}, svg);
    el("line", {"class": "half", x1: GX, y1: y(50), x2: GW - 6, y2: y(50)}, svg);
    [[100, "100%"], [50, "50%"], [0, "0%"]].forEach(function (l) {
      var text = el("text", {x: GX - 3, y: y(l[0]) + 3, "text-anchor": "end", "font-size": 9, fill: "currentColor"}, svg);
      text.textContent = l[1];
    });
    el("line", {"class": "now", id: "graph-now", x1: x(state.k), y1: GY, x2: x(state.k), y2: GH - GB}, svg);
    lines.forEach(function (points, s) {
      var colour = SEAT_COLOURS[s];
      if (points.length > 1) {
        el("polyline", {"class": "line", stroke: colour, "data-seat": s + 1,
                        points: points.map(function (p) { return x(p[0]) + "," + y(p[1]); }).join(" ")}, svg);
      }
      points.forEach(function (p) {
        var t = p[2], c = el("circle", {"class": "pt" + (t.mk ? " " + t.mk : ""), cx: x(p[0]), cy: y(p[1]),
                                        r: t.mk ? 4.5 : 3, fill: colour, "data-k": p[0], "data-seat": s + 1}, svg);
        var title = el("title", {}, c);
        title.textContent = t.l + " " + t.s + ": " + t.ea + (t.mk ? " (" + t.mk + ")" : "");
        c.addEventListener("click", function () { go(p[0]); });
      });
      var label = html("span", null, key);
      label.style.color = colour;
      label.textContent = "\u25cf " + (game.nseats === 2 ? "seat 1 (" + game.seats[0].player + ") to win"
                                                       : "seat " + (s + 1) + " (" + game.seats[s].player + ")");
    });
  }

  function moveGraphCursor() {
    var now = $("graph-now"), game = GAMES[state.game];
    if (!now) { return; }
    var px = GX + (GW - GX - 6) * state.k / Math.max(game.t.length, 1);
    now.setAttribute("x1", px);
    now.setAttribute("x2", px);
  }

  function showTags(game) {
    var body = $("tags").tBodies[0];
    clear(body);
    game.tags.forEach(function (pair) {
      var tr = html("tr", null, body);
      html("td", pair[0], tr);
      html("td", pair[1], tr);
    });
  }

  function players(game) {
    var names = game.seats.map(function (s) { return s.player; });
    if (names.length === 4) { return names[0] + " & " + names[2] + " vs " + names[1] + " & " + names[3]; }
    return names.join(" vs ");
  }

  /* --- stepping ---------------------------------------------------------------------------- */

  function draw() {
    var game = GAMES[state.game], p = game.p[state.k];
    if (p) {
      drawIso(game, p);
      drawTop(game, p);
      drawMarks(game);
      showSeats(game, p);
    } else {  /* a record whose start is not a position: nothing to draw */
      ["iso-board", "iso-marks", "iso-labels", "top-board", "top-marks", "top-labels", "seats"].forEach(function (id) { clear($(id)); });
    }
    $("status").textContent = status(game, p);
    var note = [];
    if (state.k > 0) {
      var t = game.t[state.k - 1];
      note.push(t.l + " " + t.s + (t.a.txt ? ": " + t.a.txt : ""));
      (t.out || []).forEach(function (o) { note.push(o); });
    }
    $("note").textContent = note.join(". ");
    $("slider").value = state.k;
    $("slider").setAttribute("aria-valuetext", state.k === 0 ? "start" : "turn " + state.k);
    var buttons = $("turns").querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) {
      var current = +buttons[i].dataset.k === state.k;
      if (current) { buttons[i].setAttribute("aria-current", "step"); } else { buttons[i].removeAttribute("aria-current"); }
    }
    showTelemetry(game);
    moveGraphCursor();
    scrollTurns();
    document.body.dataset.turn = state.k;
    document.body.dataset.rotation = state.rotation;
  }

  /* Keep the current turn visible in the turn list (and only there: the page itself never jumps),
   * once per frame however many steps a key or the slider makes meanwhile. */
  var scrollPending = false;
  function scrollTurns() {
    if (scrollPending) { return; }
    scrollPending = true;
    requestAnimationFrame(function () {
      scrollPending = false;
      var list = $("turns"), cur = list.querySelector('[aria-current="step"]');
      if (!cur) { return; }
      var top = cur.offsetTop, bottom = top + cur.offsetHeight;
      if (top < list.scrollTop) { list.scrollTop = top; }
      else if (bottom > list.scrollTop + list.clientHeight) { list.scrollTop = bottom - list.clientHeight; }
    });
  }

  function last() { return Math.max(GAMES[state.game].p.length - 1, 0); }
  function go(k) {
    state.k = Math.min(Math.max(k, 0), last());
    if (state.k === last()) { stop(); }
    draw();
  }
  function stop() {
    if (state.timer !== null) { clearInterval(state.timer); state.timer = null; }
    $("play").setAttribute("aria-pressed", "false");
  }
  function play() {
    if (state.timer !== null) { stop(); return; }
    if (state.k === last()) { state.k = 0; draw(); }
    $("play").setAttribute("aria-pressed", "true");
    state.timer = setInterval(function () { go(state.k + 1); }, +$("speed").value);
  }

  function openGame(index, k) {
    stop();
    state.game = index;
    var game = GAMES[index];
    $("slider").max = last();
    showTurns(game);
    showTags(game);
    drawGraph(game);
    var problem = $("problem");
    problem.hidden = !game.problem;
    problem.textContent = game.problem ? "This record does not re-validate; shown up to its last valid turn. " + game.problem : "";
    $("result").textContent = game.result + " " + game.termination + ": " + game.words;
    $("summary").textContent = "Game " + (index + 1) + " of " + GAMES.length + ": " + players(game) + " \u2014 " +
      game.seats.map(function (s) { return s.god; }).join("/");
    var rows = document.querySelectorAll("#games tbody tr");
    for (var i = 0; i < rows.length; i++) { rows[i].setAttribute("aria-selected", String(i === index)); }
    state.k = Math.min(k || 0, last());
    draw();
  }

  function fromHash() {
    var m = /(?:^#|&)game=(\d+)/.exec(location.hash), t = /(?:^#|&)turn=(\d+)/.exec(location.hash);
    var index = m ? Math.min(Math.max(+m[1], 1), GAMES.length) - 1 : 0;
    openGame(index, t ? +t[1] : 0);
  }

  /* --- the list of games ------------------------------------------------------------------- */

  function buildPicker() {
    var body = document.querySelector("#games tbody");
    if (!body) { return; }
    GAMES.forEach(function (game, i) {
      var tr = html("tr", null, body);
      tr.tabIndex = 0;
      tr.dataset.index = i;
      [String(i + 1), players(game), game.seats.map(function (s) { return s.god; }).join("/"),
       game.result + " " + game.termination, String(game.t.length)].forEach(function (v) { html("td", v, tr); });
      tr.dataset.text = tr.textContent.toLowerCase();
      function pick() { location.hash = "game=" + (i + 1); }
      tr.addEventListener("click", pick);
      tr.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); } });
    });
    var filter = $("filter");
    filter.addEventListener("input", function () {
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
      var rows = body.rows;
      for (var i = 0; i < rows.length; i++) {
        var text = rows[i].dataset.text;
        var ok = words.every(function (w) { return text.indexOf(w) >= 0; });
        rows[i].hidden = !ok;
        shown += ok ? 1 : 0;
      }
      $("shown").textContent = shown + " of " + rows.length + " games shown";
    });
  }

  function rotate() {
    state.rotation = (state.rotation + 1) % 4;
    draw();
  }
  function toggleTop() {
    state.topDown = !state.topDown;
    $("topbox").hidden = !state.topDown;
    $("toggle-top").setAttribute("aria-pressed", String(state.topDown));
  }

  function bind() {
    $("first").addEventListener("click", function () { go(0); });
    $("prev").addEventListener("click", function () { go(state.k - 1); });
    $("next").addEventListener("click", function () { go(state.k + 1); });
    $("last").addEventListener("click", function () { go(last()); });
    $("play").addEventListener("click", play);
    $("speed").addEventListener("change", function () { if (state.timer !== null) { stop(); play(); } });
    $("slider").addEventListener("input", function () { go(+$("slider").value); });
    $("rotate").addEventListener("click", rotate);
    $("toggle-top").addEventListener("click", toggleTop);
    document.addEventListener("keydown", function (e) {
      var tag = e.target && e.target.tagName;
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) { return; }
      var keys = {
        ArrowRight: function () { go(state.k + 1); }, ArrowLeft: function () { go(state.k - 1); },
        Home: function () { go(0); }, End: function () { go(last()); }, " ": play,
        r: rotate, R: rotate, t: toggleTop, T: toggleTop
      };
      if (keys[e.key] && !(e.key === " " && tag === "BUTTON")) { e.preventDefault(); keys[e.key](); }
    });
    window.addEventListener("hashchange", fromHash);
  }

  function start() {
    bind();
    buildPicker();
    fromHash();
    if (window.performance && performance.mark) { performance.mark("viewer-drawn"); }
    document.body.dataset.ready = "1";
  }

  /* --- a game growing as it is played (the dashboard's live page) -------------------------- */

  /* Show ``game`` (model.py's layout, as the live snapshot carries it) at its last turn. */
  function openLive(game) {
    var first = GAMES.length === 0;
    GAMES = [game];
    if (first) { bind(); }
    openGame(0, game.p.length - 1);
    document.body.dataset.ready = "1";
  }

  /* One more turn: its entry and the position after it.  The view follows the game when it
   * showed the last position; a reader stepping back through the turns is left where he is. */
  function append(turn, position) {
    var game = GAMES[0], following = state.k === last();
    game.t.push(turn);
    game.p.push(position);
    $("slider").max = last();
    turnButton(turn, game.t.length, $("turns"));
    if (following) { state.k = last(); }
    draw();
  }

  /* The game is over: its result in words; the last position has nobody to move. */
  function finish(result, termination, words) {
    var game = GAMES[0], p = game.p[game.p.length - 1];
    game.result = result;
    game.termination = termination;
    game.words = words;
    if (p) { p.m = 0; }
    $("result").textContent = result + " " + termination + ": " + words;
    draw();
  }

  /* --- the packed games (santorini_server/viewer/packed.py: unpack_games does the same) ------- */

  var SQUARES = "abcdefghijklmnopqrstuvwxy";
  var KINDS = {m: "move", f: "forced", b: "block", d: "dome", a: "atlas", "2": "double", p: "pre"};
  var MOVE_RE = /^([a-e][1-5])-([a-e][1-5])\+([a-e][1-5])$/, PLACE_RE = /^([a-e][1-5]),([a-e][1-5])$/;
  var TURN_FIELDS = ["ms", "score", "depth", "nodes", "win", "out", "ev", "eb", "ea", "loss", "mk", "best", "bm"], DELTA_FIELDS = ["x", "r", "up", "pl"];

  function letter(c) { return SQUARES.indexOf(c); }
  function parseSquare(name) { return (5 - +name[1]) * 5 + FILES.indexOf(name[0]); }

  /* A turn's marks: its code, or for "" what its STN says on its face (packed.py's
   * plain_annotation: the packer wrote "" only where that is the rules core's annotation). */
  function marks(code, stn, board, txt) {
    var a, m, i;
    if (code === "") {
      if ((m = MOVE_RE.exec(stn))) {
        var b = parseSquare(m[3]);
        a = {mv: [[parseSquare(m[1]), parseSquare(m[2]), "move"]], bd: [[b, DOMES.indexOf(board[b]) >= 0 ? "dome" : "block"]]};
      } else if ((m = PLACE_RE.exec(stn))) {
        a = {place: [parseSquare(m[1]), parseSquare(m[2])]};
      } else {
        throw new Error("packed data: turn " + stn + " has no annotation");
      }
    } else if (code[0] === "@") {
      a = {place: code.slice(1).split("").map(letter)};
    } else {
      var parts = code.split("|"), mv = [], bd = [];
      for (i = 0; i < parts[0].length; i += 3) { mv.push([letter(parts[0][i]), letter(parts[0][i + 1]), KINDS[parts[0][i + 2]]]); }
      for (i = 0; i < parts[1].length; i += 2) { bd.push([letter(parts[1][i]), KINDS[parts[1][i + 1]]]); }
      a = {mv: mv, bd: bd};
    }
    a.txt = txt;
    return a;
  }

  /* The games of the packed form: each position is the one before it with the squares and the
   * worker groups that changed and the seat to move as written, and the other fields plus the
   * written differences; each clock its seat's previous one less the time used plus the written
   * code. */
  function unpack(data) {
    var cols = data.turns, i = 0;
    function col(name) { var c = cols[name]; return c === undefined ? null : c[i]; }
    return data.games.map(function (head) {
      var game = {};
      Object.keys(head).forEach(function (key) { if (key !== "p0" && key !== "n") { game[key] = head[key]; } });
      var p = head.p0 ? [head.p0] : [], t = [], clocks = {};
      for (var k = 0; k < head.n; k++, i++) {
        var before = p[p.length - 1], board = before.b.split(""), diff = col("b");
        for (var j = 0; j < diff.length; j += 2) { board[letter(diff[j])] = diff[j + 1]; }
        var after = {b: board.join(""), w: before.w.slice(), m: col("m")}, found, groups = /([0-9])([a-y]*)/g;
        while ((found = groups.exec(col("w")))) { after.w[+found[1]] = found[2].split("").map(letter); }
        DELTA_FIELDS.forEach(function (name) { after[name] = before[name] + col(name); });
        p.push(after);
        var seat = col("seat"), stn = col("s");
        var turn = {s: stn, l: col("l"), seat: seat, a: marks(col("a"), stn, after.b, col("txt"))};
        var code = col("c");
        if (code !== null) { clocks[seat] = (clocks[seat] || 0) - (col("ms") || 0) + code; turn.clock = clocks[seat]; }
        TURN_FIELDS.forEach(function (name) { var v = col(name); if (v !== null) { turn[name] = v; } });
        t.push(turn);
      }
      game.p = p;
      game.t = t;
      return game;
    });
  }

  /* The page's games: decoded, unpacked, then shown (a live page has no data block). */
  function load() {
    var node = document.getElementById("viewer-data");
    if (!node) { return; }
    window.SantoriniInflate(node.textContent).then(function (text) {
      var data = JSON.parse(text);
      GEO = data.geometry;
      GAMES = unpack(data);
      if (GAMES.length > 0) { start(); }
    }).catch(window.SantoriniInflateFailed);
  }

  window.SantoriniViewer = {
    openLive: openLive, append: append, finish: finish, miniBoard: miniBoard,
    games: function () { return GAMES; }, geometry: function () { return GEO; }
  };
  load();
})();
