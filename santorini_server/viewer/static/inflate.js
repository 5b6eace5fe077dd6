/* The viewer page's packed blocks back to text: base85 (RFC 1924's alphabet, "." for "<"), then
 * raw deflate through the browser's own DecompressionStream.  santorini_server/viewer/packed.py
 * writes them (encode_blob) and says why.
 *
 * window.SantoriniInflate(text) gives a promise of the text; viewer.js reads its #viewer-data
 * block with it.  On an offline page (santorini replay --html, a tournament's games/ files) the
 * page itself travels packed too, in #viewer-page: this script, inline and plain, decodes it and
 * puts it in place.  Decoding only: nothing here knows a rule.
 */
(function () {
  "use strict";
  var ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;.=>?@^_`{|}~";
  var VALUE = new Int8Array(128).fill(-1);
  for (var a = 0; a < ALPHABET.length; a++) { VALUE[ALPHABET.charCodeAt(a)] = a; }

  /* Five characters are four bytes, big-endian; a last group of k+1 characters is k bytes (it
   * was padded with zero bytes, so it is decoded padded with the highest digit). */
  function base85(text) {
    var n = text.length, rest = n % 5;
    if (rest === 1) { throw new Error("packed data: truncated"); }
    var out = new Uint8Array(Math.floor(n / 5) * 4 + (rest ? rest - 1 : 0)), o = 0;
    for (var i = 0; i < n; i += 5) {
      var acc = 0;
      for (var j = i; j < i + 5; j++) {
        var c = text.charCodeAt(j), v = j >= n ? 84 : c < 128 ? VALUE[c] : -1;
        if (v < 0) { throw new Error("packed data: bad character at " + j); }
        acc = acc * 85 + v;
      }
      for (var k = 0; k < 4 && o < out.length; k++) { out[o++] = (acc >>> (24 - 8 * k)) & 255; }
    }
    return out;
  }

  function inflate(text) {
    try {
      var stream = new Blob([base85(text.trim())]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
      return new Response(stream).text();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /* Say on the page that it cannot be shown (and still let the console have the error). */
  function failed(e) {
    var status = document.getElementById("status");
    if (!status) { status = document.body.insertBefore(document.createElement("p"), document.body.firstChild); }
    status.textContent = "This page cannot be shown: its data does not decode (" + e.message + ").";
    throw e;
  }

  window.SantoriniInflate = inflate;
  window.SantoriniInflateFailed = failed;
  /* The offline page: its styles, its body's markup (Jinja's, escaped as it renders) and the
   * viewer's script, in that order. */
  var page = document.getElementById("viewer-page");
  if (page) {
    inflate(page.textContent).then(function (text) {
      var parts = JSON.parse(text), style = document.createElement("style"), script = document.createElement("script");
      style.textContent = parts.style;
      document.head.appendChild(style);
      document.body.insertAdjacentHTML("afterbegin", parts.body);
      script.textContent = parts.script;
      document.body.appendChild(script);
    }).catch(failed);
  }
})();
