/* The play page: live.js follows the match's event stream (or, failing that, polls the small head of
   the match, #play-head); when the match moves, the board and the actions (#play-live) are fetched
   once and redrawn, at the same time as the head when the stream says so. The board
   is not polled itself, so a choice being made in a form is not wiped while nothing happens.
   Without JavaScript, the page reloads itself while it waits for others (a <noscript> refresh). */
(function () {
  "use strict";
  var pending = false, again = false;
  function redraw() {
    var board = document.getElementById("play-live");
    if (!board) return;
    if (pending) { again = true; return; }  // a move during the fetch: fetch once more after it
    pending = true;
    fetch(board.getAttribute("data-play-src"), {
      credentials: "same-origin", cache: "no-store", headers: { "X-Live": "1", "X-Requested-With": "XMLHttpRequest" }
    }).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (html) {
      if (html !== null && window.SnakepitLive) window.SnakepitLive.swap(board, html);
    }).catch(function () { /* the next change of the head tries again */ }).then(function () {
      pending = false;
      if (again) { again = false; redraw(); }
    });
  }
  document.addEventListener("live:updated", function (event) {
    if (!event.target.closest || !event.target.closest("[data-play-head]")) return;
    var board = document.getElementById("play-live");
    var status = event.target.querySelector("[data-seq]");
    var shown = board && board.querySelector("[data-seq]");
    if (status && shown && status.getAttribute("data-seq") === shown.getAttribute("data-seq")) return;
    redraw();
  });
  // The match stream says the match moved: the board is fetched with the head, not after it.
  document.addEventListener("live:moved", function (event) {
    if (event.target.closest && event.target.closest("[data-play-head]")) redraw();
  });

  // A seat's part of the chance is made here, where the server cannot choose it (docs/fairness.md).
  function fillEntropy(root) {
    if (!window.crypto || !window.crypto.getRandomValues) return;
    root.querySelectorAll("input[data-entropy-value]").forEach(function (input) {
      if (input.value) return;
      var bytes = new Uint8Array(32);
      window.crypto.getRandomValues(bytes);
      input.value = Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
    });
  }
  document.addEventListener("live:updated", function (event) { fillEntropy(event.target); });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { fillEntropy(document); });
  } else {
    fillEntropy(document);
  }
})();
