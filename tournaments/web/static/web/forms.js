// Forms marked data-confirm ask before they post (deactivating a bot, cancelling a tournament).
(function () {
  "use strict";
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  });
})();
