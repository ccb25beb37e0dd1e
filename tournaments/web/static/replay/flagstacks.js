/* Stacks, the 13x13 flag game (docs/rules/flagstacks.md): `squares` maps occupied squares to
 * {owner, pieces: kinds bottom to top} with kinds r, g, y, f; targets b7, g7, l7; reserves per seat. */
(function () {
  "use strict";
  var R = window.ArbiterReplay;
  var h = R.h;
  var FILES = "abcdefghijklm";
  var N = 13, CELL = 40, M = 26;
  var KIND = {r: "#dc2626", g: "#16a34a", y: "#eab308", f: "#111827"};
  var OWNER = ["#f8fafc", "#334155"];

  R.renderers.flagstacks = function (obs) {
    var parts = [];
    var targets = obs.targets || {};
    var homes = obs.homes || [];
    for (var r = N; r >= 1; r--) {
      for (var f = 0; f < N; f++) {
        var name = FILES[f] + r;
        var sq = obs.squares[name];
        var x = M + f * CELL, y = M + (N - r) * CELL;
        var fill = (f + r) % 2 ? "#f5f5f4" : "#e7e5e4";
        if (name in targets) fill = targets[name] === null ? "#fde68a" : (targets[name] === 0 ? "#bfdbfe" : "#fecaca");
        if (homes.indexOf(name) >= 0) fill = "#d6d3d1";
        var content = sq ? sq.owner + ":" + sq.pieces.join("") : "";
        var g = h("g", {"data-cell": name, "data-content": content, "class": "cell"},
          h("rect", {x: x, y: y, width: CELL, height: CELL, fill: fill, stroke: "#a8a29e", "stroke-width": 0.5}));
        if (sq) {
          g.appendChild(h("rect", {x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 5,
                                   fill: OWNER[sq.owner], stroke: "#0f172a", "stroke-width": 1}));
          // One small chip per piece, bottom to top, left to right then up.
          sq.pieces.forEach(function (k, i) {
            var cx = x + 10 + (i % 3) * 10, cy = y + CELL - 10 - Math.floor(i / 3) * 10;
            g.appendChild(k === "f"
              ? h("path", {d: "M" + (cx - 3) + " " + (cy + 4) + " v-9 l7 3 l-7 3", fill: "none", stroke: sq.owner ? "#fbbf24" : KIND.f, "stroke-width": 1.6})
              : h("circle", {cx: cx, cy: cy, r: 4, fill: KIND[k], stroke: "#000", "stroke-width": 0.5}));
          });
        }
        parts.push(g);
      }
    }
    for (var i = 0; i < N; i++) {
      parts.push(h("text", {x: M + i * CELL + CELL / 2, y: M + N * CELL + 15, "text-anchor": "middle", "class": "coord"}, FILES[i]));
      parts.push(h("text", {x: M - 6, y: M + (N - 1 - i) * CELL + CELL / 2 + 4, "text-anchor": "end", "class": "coord"}, String(i + 1)));
    }
    var y0 = M + N * CELL + 36;
    ["White", "Black"].forEach(function (who, seat) {
      var res = obs.reserves[seat];
      parts.push(h("text", {x: M, y: y0 + 18 * seat, "class": "status-line"},
        who + ": targets " + obs.targets_owned[seat] + " · reserve r" + res.r + " g" + res.g + " y" + res.y));
    });
    return R.svg(M * 2 + N * CELL, y0 + 36, parts);
  };

  R.renderers.flagstacks.legend = function () {
    return [{seat: 0, colour: OWNER[0], label: "white"}, {seat: 1, colour: OWNER[1], label: "black"}];
  };
})();
