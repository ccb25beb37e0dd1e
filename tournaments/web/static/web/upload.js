// Drag and drop onto a file input's field: the dropped file goes into the input,
// so the form posts exactly as when the file was chosen by hand.
(function () {
  "use strict";
  document.querySelectorAll('input[type=file]').forEach(function (input) {
    var zone = input.closest('.field') || input.parentElement;
    zone.classList.add('drop-zone');
    var hint = document.createElement('small');
    hint.className = 'hint drop-hint';
    hint.textContent = 'or drop the file here';
    input.insertAdjacentElement('afterend', hint);
    ['dragenter', 'dragover'].forEach(function (name) {
      zone.addEventListener(name, function (event) { event.preventDefault(); zone.classList.add('dragging'); });
    });
    ['dragleave', 'drop'].forEach(function (name) {
      zone.addEventListener(name, function () { zone.classList.remove('dragging'); });
    });
    zone.addEventListener('drop', function (event) {
      event.preventDefault();
      if (event.dataTransfer && event.dataTransfer.files.length) {
        input.files = event.dataTransfer.files;
        hint.textContent = 'ready: ' + event.dataTransfer.files[0].name;
      }
    });
  });
})();
