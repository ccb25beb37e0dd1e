// The round-robin form: filter participants as you type, and keep the match total
// current by asking the server (the same count the "Count matches" button gives).
(function () {
  "use strict";
  var form = document.getElementById('tournament-form');
  if (!form) return;
  var search = document.getElementById('participant-search');
  if (search) {
    search.addEventListener('input', function () {
      var q = search.value.trim().toLowerCase();
      form.querySelectorAll('#participants li[data-label]').forEach(function (li) {
        li.hidden = q !== '' && li.dataset.label.indexOf(q) < 0;
      });
    });
  }
  var out = document.getElementById('match-count');
  var pending = null;
  function refresh() {
    var params = new URLSearchParams(new FormData(form));
    params.delete('csrfmiddlewaretoken');
    var url = form.dataset.countUrl + '?' + params.toString();
    if (pending) pending.abort();
    pending = new AbortController();
    fetch(url, {signal: pending.signal, credentials: 'same-origin'})
      .then(function (r) { return r.json(); })
      .then(function (body) {
        if (body.matches === null) {
          out.textContent = 'Pick at least the bots and a valid setting to see the number of matches.';
        } else {
          out.innerHTML = 'This makes <strong>' + Number(body.matches) + '</strong> match' + (body.matches === 1 ? '' : 'es') + '.';
        }
      })
      .catch(function () {});
  }
  form.addEventListener('change', refresh);
  form.addEventListener('input', function (event) { if (event.target.type === 'number') refresh(); });
  refresh();
})();
