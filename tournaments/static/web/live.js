/* A running tournament's page fetches its live part (progress, standings, crosstable,
 * latest matches) again every few seconds and swaps it in; it stops once the tournament
 * is no longer running. */
(function () {
  "use strict";
  var box = document.getElementById("live");
  if (!box) return;
  var url = box.dataset.liveUrl;
  var every = Number(box.dataset.refreshMs) || 3000;

  function running() {
    var body = box.querySelector(".live-body");
    return body && body.dataset.status === "running";
  }
  function tick() {
    if (!running()) return;
    fetch(url, {headers: {"X-Requested-With": "fetch"}, cache: "no-store"})
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
      .then(function (html) { box.innerHTML = html; box.dataset.refreshed = String(Date.now()); })
      .catch(function () { /* keep the last good view; try again next time */ })
      .then(function () { if (running()) setTimeout(tick, every); });
  }
  if (running()) setTimeout(tick, every);
})();
