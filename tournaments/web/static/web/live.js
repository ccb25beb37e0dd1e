/* A running tournament's page keeps itself up to date.  Every few seconds it asks the API
 * for the tournament's status and progress (cheap); only when a match has finished or
 * started since does it fetch the live part of the page (progress, standings, crosstable,
 * latest matches) and swap it in.  It stops once the tournament is no longer running. */
(function () {
  "use strict";
  var box = document.getElementById("live");
  if (!box) return;
  var every = Number(box.dataset.refreshMs) || 3000;

  function body() { return box.querySelector(".live-body"); }
  function running() { var b = body(); return b && b.dataset.status === "running"; }
  function shownKey() { var b = body(); return b ? [b.dataset.status, b.dataset.done, b.dataset.started].join("/") : ""; }

  function get(url, asJson) {
    return fetch(url, {headers: {"Accept": asJson ? "application/json" : "text/html"}, cache: "no-store",
                       credentials: "same-origin"})
      .then(function (r) { if (!r.ok) throw new Error(url + ": " + r.status); return asJson ? r.json() : r.text(); });
  }
  function tick() {
    get(box.dataset.statusUrl, true)
      .then(function (t) {
        var p = t.progress || {};
        var key = [t.status, (p.finished || 0) + (p.errored || 0) + (p.cancelled || 0),
                   (p.finished || 0) + (p.errored || 0) + (p.cancelled || 0) + (p.running || 0)].join("/");
        if (key === shownKey()) return null;
        return get(box.dataset.liveUrl, false).then(function (html) {
          box.innerHTML = html;
          box.dataset.refreshed = String(Date.now());
        });
      })
      .catch(function () { /* keep the last good view; try again next time */ })
      .then(function () { if (running()) setTimeout(tick, every); });
  }
  if (running()) setTimeout(tick, every);
})();
