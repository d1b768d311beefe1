// The cashier's QR scanner: progressive enhancement of the reference form. Where the browser has
// BarcodeDetector (QR codes) and a camera, a "Scan" button appears; the code read fills the reference
// and posts the form. Anywhere else nothing changes: the agent types the reference. The texts are the
// page's (data-* attributes, in its language); this file holds none.
'use strict';

(function () {
  var root = document.querySelector('[data-scan]');
  if (!root || !('BarcodeDetector' in window) || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) return;
  var form = root.closest('form');
  var input = form.querySelector('input[name="reference"]');
  var start = root.querySelector('[data-scan-start]');
  var stop = root.querySelector('[data-scan-stop]');
  var video = root.querySelector('[data-scan-video]');
  var status = root.querySelector('[data-scan-status]');
  /** A reference is 10 digits; the QR code holds exactly that. */
  var REFERENCE = /^\d{10}$/;
  /** The camera stops by itself after this long without a code. */
  var SCAN_MS_MAX = 60000;
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
      var found = codes.map(function (code) { return String(code.rawValue).replace(/\s/g, ''); }).find(function (value) { return REFERENCE.test(value); });
      if (found) {
        stopCamera();
        input.value = found;
        say('');
        form.requestSubmit();
        return;
      }
      await new Promise(function (resolve) { setTimeout(resolve, 250); });
    }
  }

  window.BarcodeDetector.getSupportedFormats().then(function (formats) {
    if (formats.indexOf('qr_code') === -1) return;
    root.hidden = false;
    start.addEventListener('click', function () { scan(); });
    stop.addEventListener('click', stopCamera);
  }, function () {});
})();
