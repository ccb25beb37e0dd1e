/* Stacks on a hexagon (docs/rules/hexstacks.md): rows 1..rows from seat 0's side, hexes named
 * r<row>c<n> from the left; `stacks` maps occupied hexes to their owners bottom to top. */
(function () {
  "use strict";
  var R = window.ArbiterReplay;
  var h = R.h;
  var S = 26;                      // hex radius (pointy top)
  var W = Math.sqrt(3) * S;        // hex width
  var M = 20;
  var COLOURS = ["#2563eb", "#dc2626"];

  function hexPath(cx, cy) {
    var pts = [];
    for (var i = 0; i < 6; i++) {
      var a = Math.PI / 180 * (60 * i - 90);
      pts.push((cx + S * Math.cos(a)).toFixed(1) + "," + (cy + S * Math.sin(a)).toFixed(1));
    }
    return pts.join(" ");
  }

  R.renderers.hexstacks = function (obs) {
    var b = obs.board;
    var widest = Math.max.apply(null, b.row_lengths);
    var parts = [];
    for (var row = b.rows; row >= 1; row--) {
      var len = b.row_lengths[row - 1];
      var cy = M + S + (b.rows - row) * 1.5 * S;
      for (var c = 1; c <= len; c++) {
        var name = "r" + row + "c" + c;
        var cx = M + W / 2 + (widest - len) * W / 2 + (c - 1) * W;
        var stack = obs.stacks[name] || [];
        var g = h("g", {"data-cell": name, "data-content": stack.join(","), "class": "cell"},
          h("polygon", {points: hexPath(cx, cy), fill: row === 1 || row === b.rows ? "#e5e7eb" : "#f8fafc",
                        stroke: "#94a3b8", "stroke-width": 1}));
        if (stack.length) {
          var top = stack[stack.length - 1];
          g.appendChild(h("circle", {cx: cx, cy: cy, r: S * 0.62, fill: COLOURS[top],
                                     stroke: stack.length > 1 ? "#111" : "#fff", "stroke-width": stack.length > 1 ? 3 : 1.5}));
          // The pieces under the top one, as small dots in their owners' colours.
          stack.slice(0, -1).forEach(function (s, i) {
            g.appendChild(h("circle", {cx: cx - 8 + 8 * i, cy: cy + S * 0.62 + 3, r: 3.5, fill: COLOURS[s], stroke: "#fff", "stroke-width": 0.8}));
          });
          if (stack.length > 1) {
            g.appendChild(h("text", {x: cx, y: cy + 5, "text-anchor": "middle", "font-size": 14, "font-weight": "bold", fill: "#fff"}, String(stack.length)));
          }
        } else {
          g.appendChild(h("text", {x: cx, y: cy + 3, "text-anchor": "middle", "font-size": 8, fill: "#94a3b8"}, name));
        }
        parts.push(g);
      }
    }
    var width = Math.max(M * 2 + widest * W, 380);  // room for the status lines
    var y0 = M + 2 * S + (b.rows - 1) * 1.5 * S + 24;
    [0, 1].forEach(function (seat) {
      parts.push(h("text", {x: M, y: y0 + 18 * seat, "class": "status-line"},
        "Seat " + seat + ": supply " + obs.supply[seat] + " · exited " + obs.exited[seat] +
        (obs.to_move === seat ? " · to move (" + obs.points + " point" + (obs.points === 1 ? "" : "s") + " left)" : "")));
    });
    return R.svg(width, y0 + 24, parts);
  };

  R.renderers.hexstacks.legend = function () {
    return [{seat: 0, colour: COLOURS[0], label: "blue"}, {seat: 1, colour: COLOURS[1], label: "red"}];
  };
})();
