/* Pile Up (docs/rules/pileup.md): 8x8 board; `board` maps occupied squares to their pieces
 * bottom to top ({colour, number}); `hands` are public (numbers still to place). */
(function () {
  "use strict";
  var R = window.ArbiterReplay;
  var h = R.h;
  var FILES = "abcdefgh";
  var CELL = 52, M = 24;
  var FILL = {black: "#1f2937", white: "#f9fafb"};
  var INK = {black: "#f9fafb", white: "#111827"};

  R.renderers.pileup = function (obs) {
    var parts = [];
    for (var r = 8; r >= 1; r--) {
      for (var f = 0; f < 8; f++) {
        var name = FILES[f] + r;
        var pieces = obs.board[name] || [];
        var x = M + f * CELL, y = M + (8 - r) * CELL;
        var content = pieces.map(function (p) { return p.colour[0] + p.number; }).join(",");
        var g = h("g", {"data-cell": name, "data-content": content, "class": "cell"},
          h("rect", {x: x, y: y, width: CELL, height: CELL, fill: (f + r) % 2 ? "#e8f0e0" : "#b7c9a8"}));
        if (pieces.length) {
          var top = pieces[pieces.length - 1];
          g.appendChild(h("rect", {x: x + 7, y: y + 7, width: CELL - 14, height: CELL - 14, rx: 6,
                                   fill: FILL[top.colour], stroke: pieces.length > 1 ? "#b45309" : "#6b7280",
                                   "stroke-width": pieces.length > 1 ? 3 : 1}));
          g.appendChild(h("text", {x: x + CELL / 2, y: y + CELL / 2 + 6, "text-anchor": "middle", "font-size": 17,
                                   "font-weight": "bold", fill: INK[top.colour]}, String(top.number)));
          if (pieces.length > 1) {
            g.appendChild(R.stackBadge(x + CELL + 4, y - 4, pieces.length));
            // The pieces underneath, bottom first, so a stack hides nothing.
            var below = pieces.slice(0, -1).map(function (p) { return p.colour[0] + p.number; }).join(" ");
            g.appendChild(h("text", {x: x + CELL / 2, y: y + CELL - 2, "text-anchor": "middle", "font-size": 9,
                                     "class": "stack-below"}, below));
          }
        }
        parts.push(g);
      }
    }
    for (var i = 0; i < 8; i++) {
      parts.push(h("text", {x: M + i * CELL + CELL / 2, y: M + 8 * CELL + 16, "text-anchor": "middle", "class": "coord"}, FILES[i]));
      parts.push(h("text", {x: M - 8, y: M + (7 - i) * CELL + CELL / 2 + 4, "text-anchor": "end", "class": "coord"}, String(i + 1)));
    }
    var y0 = M + 8 * CELL + 38;
    obs.colours.forEach(function (colour, seat) {
      parts.push(h("text", {x: M, y: y0 + 18 * seat, "class": "status-line", "data-hand-public": seat},
        colour + ": score " + obs.scores[seat] + " · outside stacks " + obs.outside_stacks[seat] +
        " · hand " + (obs.hands[seat].join(" ") || "–")));
    });
    return R.svg(M * 2 + 8 * CELL, y0 + 18 * obs.colours.length, parts);
  };

  R.renderers.pileup.legend = function (obs) {
    return obs.colours.map(function (colour, seat) { return {seat: seat, colour: FILL[colour], label: colour}; });
  };
})();
