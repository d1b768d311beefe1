// The agents' QR scanner: progressive enhancement of their forms. Where the browser has BarcodeDetector
// (QR codes) and a camera, each [data-scan] block shows a "Scan" button; a code read that matches the
// block's pattern (data-scan-pattern: a cash payment's 10-digit reference, a collection's id) fills its
// field (data-scan-field), then posts the form (data-scan-then="submit") or moves to the named field
// (the handover's code). Anywhere else nothing changes: the agent types it. The texts are the page's
// (data-* attributes, in its language); this file holds none.
'use strict';

(function () {
  var roots = Array.prototype.slice.call(document.querySelectorAll('[data-scan]'));
  if (roots.length === 0 || !('BarcodeDetector' in window) || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) return;
  /** The camera stops by itself after this long without a code. */
  var SCAN_MS_MAX = 60000;

  function scanner(root) {
    var form = root.closest('form');
    var input = form.querySelector('input[name="' + root.dataset.scanField + '"]');
    var pattern = new RegExp(root.dataset.scanPattern);
    var then = root.dataset.scanThen;
    var start = root.querySelector('[data-scan-start]');
    var stop = root.querySelector('[data-scan-stop]');
    var video = root.querySelector('[data-scan-video]');
    var status = root.querySelector('[data-scan-status]');
    var stream = null;
    var timer = null;

    function say(text) {
      status.textContent = text || '';
    }

    function stopCamera() {
      if (stream) stream.getTracks().forEach(function (track) { track.stop(); });
      stream = null;
      clearTimeout(timer);
      video.hidden = true;
      stop.hidden = true;
      start.hidden = false;
    }

    async function scan() {
      var detector = new window.BarcodeDetector({ formats: ['qr_code'] });
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
      } catch (error) {
        say(status.dataset.unavailable);
        return;
      }
      video.srcObject = stream;
      video.hidden = false;
      start.hidden = true;
      stop.hidden = false;
      say(status.dataset.scanning);
      timer = setTimeout(stopCamera, SCAN_MS_MAX);
      await video.play().catch(function () {});
      while (stream) {
        var codes = await detector.detect(video).catch(function () { return []; });
        var found = codes.map(function (code) { return String(code.rawValue).replace(/\s/g, ''); }).find(function (value) { return pattern.test(value); });
        if (found) {
          stopCamera();
          input.value = found;
          say('');
          if (then === 'submit') form.requestSubmit();
          else form.querySelector('input[name="' + then + '"]').focus();
          return;
        }
        await new Promise(function (resolve) { setTimeout(resolve, 250); });
      }
    }

    root.hidden = false;
    start.addEventListener('click', function () { scan(); });
    stop.addEventListener('click', stopCamera);
  }

  window.BarcodeDetector.getSupportedFormats().then(function (formats) {
    if (formats.indexOf('qr_code') !== -1) roots.forEach(scanner);
  }, function () {});
})();
