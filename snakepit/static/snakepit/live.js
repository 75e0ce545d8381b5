/* Snakepit's in-place updates: a few attributes, no build step, no library.

   <div data-live-src="/matches/7/fragment/" data-live-interval="2000">...</div>
     polls the URL and swaps the element's content when it changed; a fragment that holds an
     element with [data-live-done] (a finished match, say) stops the polling, one with
     [data-live-pause] (a replay stepped back into the past) skips polls until it is gone.
   <div data-live-src="..." data-live-stream="/api/matches/7/stream/?after=12">...</div>
     instead of polling, listens to the server's event stream (Server-Sent Events) and fetches the
     URL once each time the stream says the match moved (a `view` message: "live:moved" is
     dispatched on the element first) or ended; data-live-message="tournament" names the message
     that says so instead, for the snapshot streams (a tournament's, a ladder's, the ops page's); a browser
     without EventSource, or a server that cannot stream, polls as above. A dropped stream is
     reconnected by the browser itself, resuming after the last event it had.
   <a data-live-target="#replay" href="?step=4">  (or a <form data-live-target="#box">)
     fetches the link (or submits the form) and swaps the target's content in place; the browser's
     address follows a link (and a GET form marked data-live-history), so a reload or a shared
     link shows the same thing.

   <select name="game" data-live-reload="#part">  (in a form)
     choosing another value fetches the page for it (?game=<value>, the plain GET a reload without
     script makes) and swaps #part, the piece of the form that depends on it; the form's buttons wait
     for the swap, so nothing is sent half drawn.

   Every request carries `X-Live: 1`: the server answers such a request with the fragment alone. A
   form whose answer is a redirect leads the browser there.
   Without JavaScript, the links and forms work as plain links and forms and a reload refreshes. */
(function () {
  "use strict";

  var HEADERS = { "X-Live": "1", "X-Requested-With": "XMLHttpRequest" };

  function swap(target, html) {
    if (target.innerHTML === html) return false;
    var focusedId = document.activeElement && document.activeElement.id;
    target.innerHTML = html;
    if (focusedId) {
      var again = document.getElementById(focusedId);
      if (again && target.contains(again)) again.focus();
    }
    target.dispatchEvent(new CustomEvent("live:updated", { bubbles: true }));
    return true;
  }

  function fetchFragment(url, options) {
    var init = Object.assign({ credentials: "same-origin", cache: "no-store", headers: HEADERS }, options || {});
    return fetch(url, init).then(function (response) {
      return response.text().then(function (text) {
        return { ok: response.ok, status: response.status, text: text, redirectedTo: response.redirected ? response.url : "" };
      });
    });
  }

  function poll(element) {
    var interval = Math.max(500, parseInt(element.getAttribute("data-live-interval") || "2000", 10));
    var busy = false;
    function tick() {
      if (element.querySelector("[data-live-done]") || !document.body.contains(element)) return;
      if (busy || document.hidden || element.querySelector("[data-live-pause]")) return schedule();
      busy = true;
      fetchFragment(element.getAttribute("data-live-src"))
        .then(function (result) { if (result.ok) swap(element, result.text); })
        .catch(function () { /* a dropped poll is retried on the next tick */ })
        .then(function () { busy = false; schedule(); });
    }
    function schedule() { window.setTimeout(tick, interval); }
    schedule();
  }

  function follow(element) {
    var url = element.getAttribute("data-live-stream");
    if (!url || !window.EventSource) return poll(element);
    var source = new window.EventSource(url);
    var busy = false, again = false;
    function refresh() {
      // A replay stepped back into the past stays where it is; "Live" fetches the head itself.
      if (element.querySelector("[data-live-pause]")) return;
      if (busy) { again = true; return; }  // one fetch at a time; the last word is fetched after it
      busy = true;
      fetchFragment(element.getAttribute("data-live-src"))
        .then(function (result) { if (result.ok) swap(element, result.text); })
        .catch(function () { /* the next message fetches again */ })
        .then(function () { busy = false; if (again) { again = false; refresh(); } });
    }
    (element.getAttribute("data-live-message") || "view").split(" ").forEach(function (kind) {
      source.addEventListener(kind, function () {
        // Said before the fetch, so that a page can fetch what depends on it at the same time.
        element.dispatchEvent(new CustomEvent("live:moved", { bubbles: true }));
        refresh();
      });
    });
    source.addEventListener("end", function () { source.close(); refresh(); });
    source.addEventListener("error", function () {
      // Closed for good (refused, or a server that cannot stream): poll instead. A connection that
      // merely dropped is CONNECTING again, which the browser does by itself.
      if (source.readyState === window.EventSource.CLOSED) poll(element);
    });
  }

  function targetOf(element) {
    var selector = element.getAttribute("data-live-target");
    return selector ? document.querySelector(selector) : null;
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-live-target]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    var target = targetOf(link);
    if (!target) return;
    event.preventDefault();
    target.setAttribute("aria-busy", "true");
    fetchFragment(link.href).then(function (result) {
      target.removeAttribute("aria-busy");
      if (!result.ok) { window.location.href = link.href; return; }
      swap(target, result.text);
      window.history.replaceState(null, "", link.href);
      var focus = target.querySelector("[data-live-focus]");
      if (focus) focus.focus();
    }).catch(function () { window.location.href = link.href; });
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-live-target]")) return;
    var target = targetOf(form);
    if (!target) return;
    event.preventDefault();
    var method = (form.getAttribute("method") || "get").toUpperCase();
    var data = new FormData(form);
    if (event.submitter && event.submitter.name) data.append(event.submitter.name, event.submitter.value);
    var url = form.action;
    var options = { method: method };
    if (method === "GET") {
      url = url.split("?")[0] + "?" + new URLSearchParams(data).toString();
    } else {
      options.body = data;
    }
    target.setAttribute("aria-busy", "true");
    fetchFragment(url, options).then(function (result) {
      target.removeAttribute("aria-busy");
      // A form answered with a redirect (a deck saved, say) goes where it points, as without script.
      if (result.redirectedTo) { window.location.href = result.redirectedTo; return; }
      // A 4xx answer is a fragment too (a form with its errors inline): show it.
      swap(target, result.text);
      if (method === "GET" && form.hasAttribute("data-live-history")) window.history.replaceState(null, "", url);
      var focus = target.querySelector("[data-live-focus]");
      if (focus) focus.focus();
    }).catch(function () { form.submit(); });
  });

  var reloads = 0;
  document.addEventListener("change", function (event) {
    var select = event.target;
    if (!select.matches || !select.matches("select[data-live-reload]")) return;
    var target = document.querySelector(select.getAttribute("data-live-reload"));
    if (!target) return;
    var url = window.location.pathname + "?" + new URLSearchParams([[select.name, select.value]]).toString();
    var buttons = select.form ? select.form.querySelectorAll("button") : [];
    var mine = ++reloads;  // a later choice wins over an earlier answer arriving after it
    buttons.forEach(function (button) { button.disabled = true; });
    target.setAttribute("aria-busy", "true");
    fetchFragment(url).then(function (result) {
      if (mine !== reloads) return;
      if (!result.ok) { window.location.href = url; return; }
      swap(target, result.text);
      window.history.replaceState(null, "", url);
    }).catch(function () { if (mine === reloads) window.location.href = url; }).then(function () {
      if (mine !== reloads) return;
      target.removeAttribute("aria-busy");
      buttons.forEach(function (button) { button.disabled = false; });
    });
  });

  // <a data-live-key="ArrowLeft">: that key follows the link (a replay's Back), unless typing.
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var typing = event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
    if (typing) return;
    var link = document.querySelector('a[data-live-key="' + event.key + '"]');
    if (!link) return;
    event.preventDefault();
    link.click();
  });

  function start(root) {
    root.querySelectorAll("[data-live-src]").forEach(follow);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { start(document); });
  } else {
    start(document);
  }
  window.SnakepitLive = { start: start, swap: swap };
})();
