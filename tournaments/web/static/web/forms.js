// Forms marked data-confirm ask before they post (deactivating a bot, cancelling a tournament).
// Listening on the document also covers forms that arrive later (the tournament page's live part).
(function () {
  "use strict";
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (form && form.dataset && form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
  });
})();
