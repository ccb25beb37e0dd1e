/* Sequence (docs/rules/sequence.md): 10x10 `layout` of cards (XX corners), `chips` maps squares
 * to teams, `sequences` lists marked lines.  Hands appear only when the page embedded them
 * (the viewer's own seats, or staff) and the viewer ticked them. */
(function () {
  "use strict";
  var R = window.ArbiterReplay;
  var h = R.h;
  var FILES = "abcdefghij";
  var CELL = 46, M = 24;
  var TEAM = ["#2563eb", "#16a34a", "#dc2626"];
  var SUIT = {S: "♠", H: "♥", D: "♦", C: "♣"};
  var RED = {H: true, D: true};

  function cardText(card) {
    if (card === "XX") return "★";
    return (card[0] === "T" ? "10" : card[0]) + SUIT[card[1]];
  }

  R.renderers.sequence = function (obs, ctx) {
    var parts = [];
    var inSequence = {};
    obs.sequences.forEach(function (s) { s.squares.forEach(function (q) { inSequence[q] = s.team; }); });
    var last = obs.last_move && obs.last_move.indexOf("@") > 0 ? obs.last_move.split("@")[1]
             : obs.last_move && obs.last_move.indexOf("-") > 0 ? obs.last_move.split("-")[1] : null;
    for (var r = 10; r >= 1; r--) {
      for (var f = 0; f < 10; f++) {
        var name = FILES[f] + r;
        var card = obs.layout[name];
        var x = M + f * CELL, y = M + (10 - r) * CELL;
        var team = Object.prototype.hasOwnProperty.call(obs.chips, name) ? obs.chips[name] : null;
        var g = h("g", {"data-cell": name, "data-content": team === null ? "" : String(team), "data-card": card, "class": "cell"},
          h("rect", {x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, rx: 4,
                     fill: card === "XX" ? "#fef3c7" : "#fff", stroke: name === last ? "#f59e0b" : "#cbd5e1",
                     "stroke-width": name === last ? 3 : 1}),
          h("text", {x: x + 4, y: y + 16, "font-size": 15, "font-weight": "600", fill: RED[card[1]] ? "#b91c1c" : "#111827"}, cardText(card)));
        if (team !== null) {
          g.appendChild(h("circle", {cx: x + CELL / 2 + 4, cy: y + CELL / 2 + 8, r: 11, fill: TEAM[team],
                                     stroke: name in inSequence ? "#111" : "#fff", "stroke-width": name in inSequence ? 3 : 1.5}));
        }
        parts.push(g);
      }
    }
    for (var i = 0; i < 10; i++) {
      parts.push(h("text", {x: M + i * CELL + CELL / 2, y: M + 10 * CELL + 15, "text-anchor": "middle", "class": "coord"}, FILES[i]));
      parts.push(h("text", {x: M - 6, y: M + (9 - i) * CELL + CELL / 2 + 4, "text-anchor": "end", "class": "coord"}, String(i + 1)));
    }
    var y0 = M + 10 * CELL + 36;
    parts.push(h("text", {x: M, y: y0, "class": "status-line"},
      "Sequences: " + obs.sequence_counts.map(function (n, t) { return "team " + t + " " + n; }).join(", ") +
      " · draw pile " + obs.draw_pile));
    var line = y0 + 20;
    // One line per seat: team colour, hand size, top discard; the hand itself only if embedded and shown.
    for (var seat = 0; seat < obs.seats; seat++) {
      var discards = obs.discards[seat];
      var hand = ctx.hands && ctx.hands[seat] ? ctx.hands[seat].hand : null;
      var text = "seat " + seat + (ctx.names[seat] ? " " + ctx.names[seat] : "") + " · " + obs.hand_sizes[seat] +
        " cards · last discard " + (discards.length ? cardText(discards[discards.length - 1]) : "–");
      var row = h("g", {"class": "seat-line"},
        h("circle", {cx: M + 6, cy: line - 4, r: 6, fill: TEAM[obs.seat_team[seat]]}),
        h("text", {x: M + 18, y: line, "class": "status-line"}, text));
      if (hand) {
        row.appendChild(h("text", {x: M + 18, y: line + 17, "class": "hand", "data-hand-seat": seat, "data-cards": hand.join(",")},
          "hand: " + hand.map(cardText).join(" ")));
        line += 17;
      }
      parts.push(row);
      line += 20;
    }
    return R.svg(M * 2 + 10 * CELL, line, parts);
  };

  var TEAM_NAMES = ["blue", "green", "red"];
  R.renderers.sequence.legend = function (obs) {
    var out = [];
    for (var seat = 0; seat < obs.seats; seat++) {
      var team = obs.seat_team[seat];
      out.push({seat: seat, colour: TEAM[team], label: TEAM_NAMES[team] + " (team " + team + ")"});
    }
    return out;
  };
})();
