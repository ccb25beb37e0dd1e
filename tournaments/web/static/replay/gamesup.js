/* The Game's Up! (docs/rules/gamesup.md): 6x6 board, `board` lists every square with
 * its pieces bottom to top ({owner, face}); a square belongs to its top piece's owner. */
(function () {
  "use strict";
  var R = window.ArbiterReplay;
  var h = R.h;
  var FILES = "abcdef";
  var COLOURS = ["#2563eb", "#dc2626"];
  var CELL = 64, M = 24;

  R.renderers.gamesup = function (obs) {
    var parts = [];
    var bySquare = {};
    obs.board.forEach(function (sq) { bySquare[sq.square] = sq; });
    for (var r = 6; r >= 1; r--) {
      for (var f = 0; f < 6; f++) {
        var name = FILES[f] + r;
        var sq = bySquare[name] || {pieces: [], owner: null};
        var x = M + f * CELL, y = M + (6 - r) * CELL;
        var content = sq.pieces.map(function (p) { return p.owner + ":" + p.face; }).join(",");
        var g = h("g", {"data-cell": name, "data-content": content, "class": "cell"},
          h("rect", {x: x, y: y, width: CELL, height: CELL, fill: (f + r) % 2 ? "#f1e7d0" : "#d9c6a0"}));
        if (sq.pieces.length) {
          var top = sq.pieces[sq.pieces.length - 1];
          var stack = sq.pieces.length > 1;
          // Lower pieces peek out as thin bands under the top disc.
          sq.pieces.slice(0, -1).forEach(function (p, i) {
            g.appendChild(h("rect", {x: x + 10, y: y + CELL - 10 - 4 * (i + 1), width: CELL - 20, height: 4,
                                     fill: COLOURS[p.owner], stroke: "#fff", "stroke-width": 0.5}));
          });
          g.appendChild(h("circle", {cx: x + CELL / 2, cy: y + CELL / 2 - (stack ? 4 : 0), r: 21,
                                     fill: COLOURS[top.owner], stroke: stack ? "#111" : "#fff", "stroke-width": stack ? 3 : 1.5}));
          g.appendChild(h("text", {x: x + CELL / 2, y: y + CELL / 2 + 7 - (stack ? 4 : 0), "text-anchor": "middle",
                                   "font-size": 20, "font-weight": "bold", fill: "#fff"}, String(top.face)));
          if (stack) g.appendChild(R.stackBadge(x + CELL, y, sq.pieces.length));
        }
        parts.push(g);
      }
    }
    for (var i = 0; i < 6; i++) {
      parts.push(h("text", {x: M + i * CELL + CELL / 2, y: M + 6 * CELL + 16, "text-anchor": "middle", "class": "coord"}, FILES[i]));
      parts.push(h("text", {x: M - 8, y: M + (5 - i) * CELL + CELL / 2 + 4, "text-anchor": "end", "class": "coord"}, String(i + 1)));
    }
    var y0 = M + 6 * CELL + 40;
    parts.push(h("text", {x: M, y: y0, "class": "status-line", "data-scores": obs.scores.join(",")},
      "Blue " + obs.scores[0] + " · Red " + obs.scores[1] + " (target " + obs.options.target + ")"));
    // The engine turns the board once per move; squares keep their names, so only say so when it shows.
    var turned = ["", "The board has turned a quarter turn", "The board has turned half a turn",
                  "The board has turned three quarter turns"][obs.rotation % 4];
    var notes = [turned, obs.no_return ? "Not allowed next (no return): " + obs.no_return : ""].filter(Boolean);
    notes.forEach(function (note, i) { parts.push(h("text", {x: M, y: y0 + 18 * (i + 1), "class": "status-line"}, note)); });
    return R.svg(M * 2 + 6 * CELL, y0 + 12 + 18 * notes.length, parts);
  };

  // Which colour is which seat, for the viewer's legend.
  R.renderers.gamesup.legend = function () {
    return [{seat: 0, colour: COLOURS[0], label: "blue"}, {seat: 1, colour: COLOURS[1], label: "red"}];
  };
})();
