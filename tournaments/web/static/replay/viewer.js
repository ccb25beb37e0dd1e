/* Arbiter replay viewer: steps through the per-ply observations embedded in the page
 * (json_script "replay-data") and asks the game's renderer (replay/<game>.js) to draw
 * each one as SVG.  Buttons, the slider, the move list and the arrow keys all step.
 * Every board cell carries data-cell (its name) and data-content (what stands there),
 * so what is drawn can be checked against the engine. */
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
  R.svg = function (width, height, children) {
    return R.h("svg", {xmlns: SVG_NS, viewBox: "0 0 " + width + " " + height, width: width, height: height,
                       "class": "board-svg", role: "img"}, children);
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
    var names = {};
    (data.players || []).forEach(function (p) { names[p.seat] = p.name; });
    function seatName(seat) { return seat === null || seat === undefined ? "" : "seat " + seat + (names[seat] ? " (" + names[seat] + ")" : ""); }

    slider.max = String(last);

    // The move list: one item per move (ply 1..last), clickable.
    plies.forEach(function (p, i) {
      if (i === 0) return;
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
    });

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

    function draw() {
      var obs = observation(current);
      var hands = {};
      Object.keys(shown).forEach(function (seat) {
        if (shown[seat]) hands[seat] = data.hands[seat][current];
      });
      var svg = render(obs, {seats: data.seats, names: names, hands: hands, players: data.players || []});
      svg.setAttribute("data-ply", String(current));
      board.replaceChildren(svg);
      slider.value = String(current);
      label.textContent = "ply " + current + " / " + last;
      var p = plies[current];
      var text;
      if (current === 0) text = "Start position.";
      else text = "Ply " + current + ": " + seatName(p.seat) + " played " + p.move +
        (p.ms !== null && p.ms !== undefined ? " in " + p.ms + " ms" : "") + ".";
      if (current === last && data.result) text += " Game over: " + data.result + ".";
      if (obs.to_move !== null && obs.to_move !== undefined && current !== last) text += " To move: " + seatName(obs.to_move) + ".";
      info.textContent = text;
      Array.prototype.forEach.call(list.children, function (li) {
        var on = Number(li.dataset.ply) === current;
        li.classList.toggle("current", on);
        if (on && li.scrollIntoView) li.scrollIntoView({block: "nearest"});
      });
      root.dataset.ply = String(current);
    }

    function go(i) {
      current = Math.max(0, Math.min(last, i));
      draw();
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
    go(0);
  }

  R.start = start;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else setTimeout(start, 0);
})();
