/* Arbiter replay viewer: steps through the per-ply observations embedded in the page
 * (json_script "replay-data") and asks the game's renderer (replay/<game>.js) to draw
 * each one as SVG.  Buttons, the slider, the move list and the arrow keys all step.
 * Every board cell carries data-cell (its name) and data-content (what stands there),
 * so what is drawn can be checked against the engine.
 * A running match's section carries data-live-url: the viewer then asks for the plies
 * played since (every data-live-every ms), follows the game while it is shown at its newest
 * ply, and loads the page again, at the end, once the match is over. */
(function () {
  "use strict";
  var SVG_NS = "http://www.w3.org/2000/svg";
  var R = (window.ArbiterReplay = window.ArbiterReplay || {});
  R.renderers = R.renderers || {};
  var TEXT_INPUTS = ["text", "search", "email", "number", "password", "url", "tel"];

  /* Create an SVG element: h("rect", {x: 1}, child, "text", ...). */
  R.h = function (tag, attrs) {
    var el = document.createElementNS(SVG_NS, tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (attrs[k] !== null && attrs[k] !== undefined) el.setAttribute(k, String(attrs[k]));
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      if (Array.isArray(c)) c.forEach(function (x) { if (x) el.appendChild(x); });
      else el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return el;
  };
  // Boards are drawn in their own units and shown this much larger; CSS shrinks them to the window.
  var BOARD_SCALE = 1.4;
  R.svg = function (width, height, children) {
    return R.h("svg", {xmlns: SVG_NS, viewBox: "0 0 " + width + " " + height, width: Math.round(width * BOARD_SCALE),
                       height: Math.round(height * BOARD_SCALE), "class": "board-svg", role: "img"}, children);
  };
  // A stack's height as a badge in the cell's top right corner, legible at both sizes.
  R.stackBadge = function (right, top, count) {
    return R.h("g", {"class": "stack-badge"},
      R.h("circle", {cx: right - 12, cy: top + 12, r: 12, fill: "#111827", stroke: "#fff", "stroke-width": 1.5}),
      R.h("text", {x: right - 12, y: top + 18, "text-anchor": "middle", "font-size": 17, "font-weight": "bold", fill: "#fff"},
        String(count)));
  };
  R.seatColours = ["#2563eb", "#dc2626", "#16a34a", "#ca8a04", "#9333ea", "#0891b2",
                   "#db2777", "#65a30d", "#ea580c", "#4f46e5", "#0d9488", "#78716c"];

  function start() {
    var dataEl = document.getElementById("replay-data");
    var root = document.getElementById("replay");
    var board = document.getElementById("board");
    if (!dataEl || !root || !board) return;
    var data = JSON.parse(dataEl.textContent);
    var render = R.renderers[data.game];
    if (!render) { board.textContent = "No renderer for " + data.game; return; }
    var plies = data.plies;
    var last = plies.length - 1;
    var current = 0;
    var timer = null;
    var shown = {};  // seat -> show that seat's hand
    var slider = document.getElementById("ply-slider");
    var label = document.getElementById("ply-label");
    var info = document.getElementById("ply-info");
    var list = document.getElementById("move-list");
    var toggles = document.getElementById("hand-toggles");
    var legend = document.getElementById("seat-legend");
    var flip = document.getElementById("flip-board");
    var names = {};
    (data.players || []).forEach(function (p) { names[p.seat] = p.name; });
    function seatName(seat) { return seat === null || seat === undefined ? "" : "seat " + seat + (names[seat] ? " (" + names[seat] + ")" : ""); }

    var live = root.dataset.liveUrl ? {url: root.dataset.liveUrl, attempt: root.dataset.liveAttempt,
                                        every: Number(root.dataset.liveEvery) || 1000} : null;
    slider.max = String(Math.max(last, 0));

    // The move list: one item per move (ply 1..last), clickable.
    function addMove(i) {
      var p = plies[i];
      var li = document.createElement("li");
      li.dataset.ply = String(i);
      li.className = "seat-" + p.seat;
      var move = document.createElement("span");
      move.className = "move";
      move.textContent = p.move;
      var meta = document.createElement("span");
      meta.className = "move-meta";
      meta.textContent = " s" + p.seat + (p.ms !== null && p.ms !== undefined ? " · " + p.ms + " ms" : "");
      li.appendChild(move);
      li.appendChild(meta);
      li.addEventListener("click", function () { go(i); });
      list.appendChild(li);
    }
    plies.forEach(function (p, i) { if (i > 0) addMove(i); });

    // Hands (hidden information): only the seats the server embedded, off until asked for.
    Object.keys(data.hands || {}).forEach(function (seat) {
      var lab = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox";
      box.dataset.handSeat = seat;
      box.addEventListener("change", function () { shown[seat] = box.checked; draw(); });
      lab.appendChild(box);
      lab.appendChild(document.createTextNode(" show the hand of " + seatName(Number(seat))));
      toggles.appendChild(lab);
    });

    function observation(i) {
      var obs = {};
      Object.keys(data.constant).forEach(function (k) { obs[k] = data.constant[k]; });
      var own = plies[i].obs;
      Object.keys(own).forEach(function (k) { obs[k] = own[k]; });
      return obs;
    }

    function context(hands) {
      return {seats: data.seats, names: names, hands: hands, players: data.players || []};
    }

    // What every cell holds at ply i, read from the renderer's own data-content.
    function contents(i) {
      var out = {};
      render(observation(i), context({})).querySelectorAll("[data-cell]").forEach(function (e) {
        out[e.dataset.cell] = e.dataset.content;
      });
      return out;
    }

    // The last move, in every game alike: the cells whose contents the move changed get a frame.
    function markLastMove(svg) {
      if (current === 0) return;
      var before = contents(current - 1);
      svg.querySelectorAll("[data-cell]").forEach(function (cell) {
        if (before[cell.dataset.cell] === cell.dataset.content) return;
        cell.setAttribute("data-last-move", "true");
        var box = cell.getBBox();
        svg.appendChild(R.h("rect", {x: box.x + 1.5, y: box.y + 1.5, width: Math.max(box.width - 3, 1),
                                     height: Math.max(box.height - 3, 1), "class": "last-move-mark",
                                     "data-mark": cell.dataset.cell}));
      });
    }

    // Who plays which colour: each renderer says how it draws the seats.
    function drawLegend(obs) {
      if (!legend) return;
      var rows = render.legend ? render.legend(obs) : [];
      legend.replaceChildren();
      rows.forEach(function (row) {
        var li = document.createElement("li");
        li.dataset.seat = String(row.seat);
        var swatch = document.createElement("span");
        swatch.className = "swatch";
        swatch.style.background = row.colour;
        swatch.setAttribute("aria-hidden", "true");
        li.appendChild(swatch);
        li.appendChild(document.createTextNode(" " + row.label + ": " + seatName(row.seat)));
        legend.appendChild(li);
      });
    }

    function draw() {
      var obs = observation(current);
      var hands = {};
      Object.keys(shown).forEach(function (seat) {
        if (shown[seat]) hands[seat] = data.hands[seat][current];
      });
      var svg = render(obs, context(hands));
      svg.setAttribute("data-ply", String(current));
      svg.setAttribute("aria-label", "Board at ply " + current);
      board.replaceChildren(svg);
      markLastMove(svg);
      slider.value = String(current);
      label.textContent = "ply " + current + " / " + last;
      var p = plies[current];
      var text;
      if (current === 0) text = "Start position.";
      else text = "Ply " + current + ": " + seatName(p.seat) + " played " + p.move +
        (p.ms !== null && p.ms !== undefined ? " in " + p.ms + " ms" : "") + ".";
      if (current === last && data.result) text += " Game over: " + data.result + ".";
      if (obs.to_move !== null && obs.to_move !== undefined && (current !== last || live)) text += " To move: " + seatName(obs.to_move) + ".";
      info.textContent = text;
      Array.prototype.forEach.call(list.children, function (li) {
        var on = Number(li.dataset.ply) === current;
        li.classList.toggle("current", on);
        if (on && li.scrollIntoView) li.scrollIntoView({block: "nearest"});
      });
      root.dataset.ply = String(current);
      if (window.history && window.history.replaceState) window.history.replaceState(null, "", "#ply=" + current);
    }

    function plyFromHash() {
      var m = /ply=(\d+|last)/.exec(window.location.hash);
      if (!m) return null;
      return m[1] === "last" ? last : Number(m[1]);
    }

    function go(i) {
      if (last < 0) { info.textContent = "The bots are starting: the board comes with the first position."; return; }
      current = Math.max(0, Math.min(last, i));
      draw();
    }

    // A running match: new plies are added as they come; at the newest ply the board follows them.
    function extend(more) {
      if (!more.length) return;
      var following = current >= last;
      var fresh = last < 0;
      more.forEach(function (p) {
        plies.push(p);
        if (plies.length > 1) addMove(plies.length - 1);
      });
      last = plies.length - 1;
      slider.max = String(last);
      if (fresh) drawLegend(observation(0));
      if (following) go(last);
      else label.textContent = "ply " + current + " / " + last;
    }
    function poll() {
      fetch(live.url + "?since=" + plies.length, {headers: {"Accept": "application/json"}, cache: "no-store",
                                                  credentials: "same-origin"})
        .then(function (r) { if (!r.ok) throw new Error(live.url + ": " + r.status); return r.json(); })
        .then(function (body) {
          if (body.status === "running" && String(body.attempt) === live.attempt) { extend(body.plies); return true; }
          // Over (or played again): the page itself has the replay now, shown at its end.
          root.dataset.live = "ended";
          if (window.history && window.history.replaceState) window.history.replaceState(null, "", "#ply=last");
          window.location.reload();
          return false;
        })
        .catch(function () { return true; /* keep the board; ask again */ })
        .then(function (again) { if (again) setTimeout(poll, live.every); });
    }
    function stop() { if (timer) { clearInterval(timer); timer = null; } }
    function play() {
      if (timer) { stop(); return; }
      if (current === last) go(0);
      timer = setInterval(function () { if (current >= last) stop(); else go(current + 1); }, 400);
    }

    root.querySelectorAll("[data-step]").forEach(function (b) {
      b.addEventListener("click", function () {
        var s = b.dataset.step;
        if (s === "play") { play(); return; }
        stop();
        if (s === "first") go(0);
        else if (s === "prev") go(current - 1);
        else if (s === "next") go(current + 1);
        else if (s === "last") go(last);
      });
    });
    if (flip) {
      flip.addEventListener("click", function () {
        var on = board.classList.toggle("flipped");
        flip.setAttribute("aria-pressed", on ? "true" : "false");
      });
    }
    window.addEventListener("hashchange", function () {
      var ply = plyFromHash();
      if (ply !== null && ply !== current) { stop(); go(ply); }
    });
    slider.addEventListener("input", function () { stop(); go(Number(slider.value)); });
    document.addEventListener("keydown", function (e) {
      // Keys typed into a text field are the field's; everywhere else they step the replay.
      var t = e.target;
      if (t && (t.isContentEditable || t.tagName === "TEXTAREA" || t.tagName === "SELECT" ||
                (t.tagName === "INPUT" && TEXT_INPUTS.indexOf(t.type) >= 0))) return;
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      var handled = true;
      if (e.key === "ArrowRight") { stop(); go(current + 1); }
      else if (e.key === "ArrowLeft") { stop(); go(current - 1); }
      else if (e.key === "Home") { stop(); go(0); }
      else if (e.key === "End") { stop(); go(last); }
      else if (e.key === " ") play();
      else handled = false;
      if (handled) e.preventDefault();
    });
    if (last >= 0) drawLegend(observation(0));
    var linked = plyFromHash();
    go(linked === null ? (live ? last : 0) : linked);
    if (live) setTimeout(poll, live.every);
  }

  R.start = start;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else setTimeout(start, 0);
})();
