/* The dashboard's live updates: one WebSocket per page (SPEC.md section 17.3).
 *
 * The page's <body data-live="TOPIC"> says what it follows: home, run:ID, bot:NAME or
 * game:RUN-NUMBER.  The socket reconnects by itself (0.5 s, doubling up to 10 s); every
 * connection starts with the topic's snapshot, and a turn whose seq is not the next one
 * (a message lost) closes the socket, so the reconnection's snapshot puts the page right.
 *
 * - A game page feeds the replay viewer's own code (window.SantoriniViewer, viewer.js) with
 *   the snapshot and then each turn, counts the clock of the seat to move down between turns,
 *   and reloads when the game is in the records, which turns it into the ordinary viewer.
 * - Home's <section id="live-games"> gets a small board per game being played.
 * - Pages with the ids runs, progress, standings, games (or any element with data-live-swap)
 *   re-fetch their own URL when a game of theirs ends or a run changes, and swap those
 *   elements' contents with the server's fresh rendering: the server stays the one renderer.
 * - A page holding an element marked data-pending (a run page sent while its standings were
 *   still being counted, SPEC.md section 17.1) re-fetches itself the same way, 0.5 s and then
 *   doubling up to 8 s, until the fresh rendering has no such element: a finished run, which
 *   has no live events, gets its standings too.
 *
 * Untrusted text (bot names, engine telemetry) only ever goes in through textContent.
 */
(function () {
  "use strict";
  var body = document.body, topic = body.dataset.live;
  if (!topic || body.dataset.state === "finished") { return; }
  var kind = topic.split(":")[0];
  var SWAP_IDS = ["runs", "progress", "standings", "games"];
  var socket = null, delay = 500, seq = null, closing = false;
  var clocks = null, toMove = 0, clockSince = 0, over = false, ticker = null;
  var geometry = null, boards = {}, seatNames = [];
  window.liveLatencies = [];  /* per turn: ms from the referee's ruling to this page's DOM update */

  function $(id) { return document.getElementById(id); }
  function status(text) { var s = $("live-status"); if (s) { s.textContent = text; } }
  function now() { return performance.timeOrigin + performance.now(); }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + "/ws?topic=" + encodeURIComponent(topic));
    socket.onopen = function () { delay = 500; };
    socket.onmessage = function (e) {  /* one event, or several queued together as an array */
      var data = JSON.parse(e.data);
      (Array.isArray(data) ? data : [data]).forEach(receive);
    };
    socket.onclose = function (e) {
      socket = null;
      if (closing) { return; }
      status("Reconnecting…" + (e.reason ? " (" + e.reason + ")" : ""));
      body.dataset.connected = "0";
      var wait = delay * (0.8 + 0.4 * Math.random());
      delay = Math.min(delay * 2, 10000);
      setTimeout(connect, wait);
    };
  }
  window.addEventListener("pagehide", function () { closing = true; if (socket) { socket.close(); } });

  function receive(ev) {
    if (ev.type === "snapshot") { body.dataset.connected = "1"; }
    if (kind === "game") { gameEvent(ev); } else { listEvent(ev); }
  }

  /* --- a game page ------------------------------------------------------------------------- */

  function gameEvent(ev) {
    if (ev.type === "snapshot") {
      var g = ev.game;
      if (!g) {  /* not live any more: recorded meanwhile (the server then shows the record) */
        status("This game is not being played.");
        location.reload();
        return;
      }
      SantoriniViewer.openLive({
        number: g.number, nseats: g.nseats, seats: g.seats, letters: g.letters, tags: [], result: "*",
        termination: "", words: "in progress", problem: null, p: g.p, t: g.t
      });
      $("result").textContent = "In progress";
      seatNames = g.seats.map(function (s, i) { return "S" + (i + 1) + " " + s.player + " (" + s.god + ")"; });
      seq = g.seq;
      setClocks(g.clocks, g.to_move, performance.now() - g.elapsed_ms);
      status("Live: turn " + seq + " played");
      if (g.over) { gameOver(g.over); }
      body.dataset.seq = seq;
      return;
    }
    if (ev.type === "turn") {
      if (seq === null) { return; }
      if (ev.seq !== seq + 1) { if (socket) { socket.close(); } return; }  /* a gap: resync */
      seq = ev.seq;
      SantoriniViewer.append(ev.turn, ev.p);
      setClocks(ev.clocks, ev.to_move, performance.now());
      status("Live: turn " + seq + " played");
      body.dataset.seq = seq;
      window.liveLatencies.push(now() - ev.t * 1000);
    } else if (ev.type === "over") {
      gameOver(ev);
    } else if (ev.type === "recorded") {
      status("Game over; opening its record…");
      closing = true;
      location.reload();
    } else if (ev.type === "abandoned") {
      over = true;
      status("The game was stopped before its end (it is not recorded, and will be played again).");
      drawClocks();
    }
  }

  function gameOver(ev) {
    over = true;
    SantoriniViewer.finish(ev.result, ev.termination, ev.words);
    status("Game over: " + ev.result + " (" + ev.words + ")");
    body.dataset.over = "1";
    drawClocks();
  }

  function setClocks(values, mover, since) {
    clocks = values;
    toMove = mover;
    clockSince = since;
    drawClocks();
    if (ticker === null) { ticker = setInterval(drawClocks, 100); }
  }

  function clockText(ms) {
    var neg = ms < 0, t = Math.abs(ms), m = Math.floor(t / 60000), s = (t % 60000) / 1000;
    return (neg ? "-" : "") + m + ":" + (s < 10 ? "0" : "") + s.toFixed(1);
  }

  function drawClocks() {
    var list = $("clocks");
    if (!list || !clocks) { return; }
    while (list.children.length < clocks.length) { list.appendChild(document.createElement("li")); }
    clocks.forEach(function (ms, i) {
      var li = list.children[i], running = !over && toMove === i + 1;
      var left = ms === null ? null : ms - (running ? performance.now() - clockSince : 0);
      var who = seatNames[i] || "seat " + (i + 1);
      li.textContent = who + ": " + (left === null ? "no clock" : clockText(left));
      li.className = running ? "running" : "";
      li.dataset.ms = left === null ? "" : Math.round(left);
    });
    if (over && ticker !== null) { clearInterval(ticker); ticker = null; }
  }

  /* --- home, run and bot pages ------------------------------------------------------------- */

  function listEvent(ev) {
    if (ev.type === "snapshot") {
      geometry = ev.geometry;
      var section = $("live-games");
      if (section) {
        while (section.firstChild) { section.removeChild(section.firstChild); }
        boards = {};
        ev.games.forEach(function (g) { if (!g.over) { addBoard(g); } });
        emptyNote();
      }
      status("Live");
      return;
    }
    if (ev.type === "started") { addBoard(ev); emptyNote(); }
    else if (ev.type === "turn") { moveBoard(ev); }
    else if (ev.type === "over" || ev.type === "abandoned") { endBoard(ev); }
    if (ev.type === "recorded" || ev.type === "run" || ev.type === "over") { refresh(); }
  }

  function emptyNote() {
    var section = $("live-games");
    if (!section) { return; }
    var note = section.querySelector(".empty");
    if (Object.keys(boards).length === 0) {
      if (!note) {
        note = document.createElement("p");
        note.className = "muted empty";
        note.textContent = "No game is being played.";
        section.appendChild(note);
      }
    } else if (note) { section.removeChild(note); }
  }

  function addBoard(g) {
    var section = $("live-games");
    if (!section || !geometry || boards[g.game] || !window.SantoriniViewer) { return; }
    var a = document.createElement("a");
    a.href = "/games/" + encodeURIComponent(g.game);
    a.className = "live-board";
    a.dataset.game = g.game;
    var caption = document.createElement("span");
    caption.className = "who";
    caption.textContent = g.seats.map(function (s) { return s.name + " (" + s.god + ")"; }).join(" vs ");
    var info = document.createElement("span");
    info.className = "turn";
    var svg = SantoriniViewer.miniBoard(geometry, g.letters, g.p);
    a.appendChild(svg);
    a.appendChild(caption);
    a.appendChild(info);
    section.appendChild(a);
    boards[g.game] = {a: a, svg: svg, letters: g.letters, info: info, seq: g.seq};
    info.textContent = "turn " + g.seq;
  }

  function moveBoard(ev) {
    var b = boards[ev.game];
    if (!b) { return; }
    SantoriniViewer.miniBoard(geometry, b.letters, ev.p, b.svg);
    b.seq = ev.seq;
    b.info.textContent = "turn " + ev.seq;
    b.a.dataset.seq = ev.seq;
    window.liveLatencies.push(now() - ev.t * 1000);
  }

  function endBoard(ev) {
    var b = boards[ev.game];
    if (!b) { return; }
    b.info.textContent = ev.type === "over" ? ev.result + " " + ev.termination : "stopped";
    b.a.classList.add("over");
    delete boards[ev.game];
    setTimeout(function () { if (b.a.parentNode) { b.a.parentNode.removeChild(b.a); } emptyNote(); }, 5000);
  }

  /* Re-fetch this page and swap the server-rendered parts that live events change (at most one
   * fetch at a time; a change during a fetch asks for one more). */
  var fetching = false, again = false;
  function refresh() {
    var targets = SWAP_IDS.map($).filter(Boolean).concat([].slice.call(document.querySelectorAll("[data-live-swap]")));
    if (targets.length === 0) { return; }
    if (fetching) { again = true; return; }
    fetching = true;
    fetch(location.href, {credentials: "same-origin", headers: {"Accept": "text/html"}})
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) { return; }
        var fresh = new DOMParser().parseFromString(html, "text/html");
        targets.forEach(function (node) {
          var other = node.id ? fresh.getElementById(node.id) : null;
          if (other && node.id !== "live-games") { node.innerHTML = other.innerHTML; }
        });
        body.dataset.refreshed = String(+(body.dataset.refreshed || 0) + 1);
      })
      .catch(function () {})
      .then(function () { fetching = false; if (again) { again = false; refresh(); } else { awaitPending(); } });
  }

  /* While a part of the page is still being made by the server (data-pending), fetch it again
   * after a bounded back-off (one timer at a time). */
  var pendingDelay = 500, pendingTimer = null;
  function awaitPending() {
    if (pendingTimer !== null || !document.querySelector("[data-pending]")) { return; }
    pendingTimer = setTimeout(function () { pendingTimer = null; refresh(); }, pendingDelay);
    pendingDelay = Math.min(pendingDelay * 2, 8000);
  }

  /* Pages that show small boards but do not load the viewer's script get it (and its board style). */
  function ensureViewer(then) {
    if (kind === "game" || window.SantoriniViewer || !$("live-games")) { then(); return; }
    var css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = "/dashboard/board.css";
    document.head.appendChild(css);
    var script = document.createElement("script");
    script.src = "/static/viewer.js";
    script.onload = then;
    document.head.appendChild(script);
  }

  awaitPending();
  ensureViewer(connect);
})();
