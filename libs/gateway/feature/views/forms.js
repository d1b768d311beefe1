// The forms' pending state: once a form is posted, its button says "Processing…" (the page's text, in
// its language: body[data-pending]) and every button of the page is disabled until the answer, so a
// double tap posts once. Progressive enhancement: without script the forms post as before, and the
// server refuses a second post of the same action anyway.
'use strict';

(function () {
  var posting = false;

  document.addEventListener('submit', function (event) {
    if (event.defaultPrevented) return;
    if (posting) {
      event.preventDefault();
      return;
    }
    posting = true;
    var form = event.target;
    var submitter = event.submitter || form.querySelector('button[type="submit"], button:not([type])');
    // After this event: a button disabled now would leave the form data (a named submitter's value).
    setTimeout(function () {
      document.querySelectorAll('button').forEach(function (button) { button.disabled = true; });
      if (submitter) {
        submitter.dataset.label = submitter.textContent;
        submitter.textContent = document.body.dataset.pending;
        submitter.setAttribute('aria-busy', 'true');
      }
      form.setAttribute('aria-busy', 'true');
    }, 0);
  });

  // A page shown again from the history (Back) is not posting.
  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) return;
    posting = false;
    document.querySelectorAll('button').forEach(function (button) {
      button.disabled = false;
      button.removeAttribute('aria-busy');
      if (button.dataset.label) button.textContent = button.dataset.label;
    });
    document.querySelectorAll('form[aria-busy]').forEach(function (form) { form.removeAttribute('aria-busy'); });
  });
})();
