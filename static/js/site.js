// The site's few behaviours that htmx attributes do not cover. A file of its own, because the
// Content-Security-Policy runs no inline script and no inline event handler.
"use strict";

// Refusals come back as 4xx fragments for their own target (base.html's htmx-config swaps them).
// With DEBUG on, django-htmx's debug script replaces the whole document with any 400, 403, 404
// or 500 answer so that Django's error pages show; for a fragment that breaks the page until a
// reload. Stop the event on its way down, before that script's listener (on document, bubbling)
// sees it; htmx itself goes on and swaps the fragment. Whole pages (Django's debug pages) still
// reach it.
document.addEventListener(
  "htmx:beforeOnLoad",
  (event) => {
    const xhr = event.detail.xhr;
    const fragment = !/^\s*<(!doctype|html)/i.test(xhr.responseText || "");
    if (xhr.status >= 400 && xhr.status < 500 && fragment) {
      event.stopPropagation();
    }
  },
  true,
);

// Failures that bring no fragment of their own (a 5xx, a lost connection) get a sentence in the
// page's error line; the page itself stays as it was and keeps working.
function showSiteError(sentence) {
  const line = document.getElementById("site-error");
  if (line) {
    line.textContent = sentence;
  }
}

// The sentences come in the page's language from base.html.
function siteErrorText(name) {
  const line = document.getElementById("site-error");
  return (line && line.dataset[name]) || "";
}

document.addEventListener("htmx:responseError", (event) => {
  if (event.detail.xhr.status >= 500) {
    showSiteError(siteErrorText("serverError"));
  }
});

document.addEventListener("htmx:sendError", () => {
  showSiteError(siteErrorText("offline"));
});

document.addEventListener("htmx:beforeRequest", () => {
  showSiteError("");
});

// The invite link selects itself when clicked, ready to copy.
document.addEventListener("click", (event) => {
  if (event.target instanceof HTMLInputElement && event.target.matches("[data-select-on-click]")) {
    event.target.select();
  }
});

// A plain form whose button says data-confirm asks first (htmx forms use hx-confirm).
document.addEventListener("submit", (event) => {
  const button = event.submitter;
  if (button && button.dataset.confirm && !window.confirm(button.dataset.confirm)) {
    event.preventDefault();
  }
});

// The folded header (phones, table pages): one button shows and hides the links.
document.addEventListener("click", (event) => {
  const toggle = event.target.closest && event.target.closest("#menu-toggle");
  if (!toggle) return;
  const header = document.getElementById("site-header");
  const open = !header.hasAttribute("data-open");
  header.toggleAttribute("data-open", open);
  toggle.setAttribute("aria-expanded", String(open));
});

// Times in the viewer's own zone, in the page's language: the server writes <time datetime
// data-local> with Django's localisation in the zone this cookie names (UTC until it is set);
// the page rewrites the times drawn in another zone than the browser's ("hm": 14:05; "hms": 14:05:09, a deadline; "when":
// 14:05, with the date when that is not today; "datetime": the date and time).
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
if (zone) document.cookie = "tz=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; samesite=lax";
function localTimes(root) {
  const lang = document.documentElement.lang || undefined;
  const pad = (n) => String(n).padStart(2, "0");
  (root || document).querySelectorAll("time[datetime][data-local]").forEach((el) => {
    const at = new Date(el.getAttribute("datetime"));
    if (Number.isNaN(at.getTime())) return;
    // One clock on every page: 24 hours, as the deadlines count (cardgames/formats).
    el.title = at.toLocaleString(lang, { dateStyle: "full", timeStyle: "short", hourCycle: "h23" });
    if (el.dataset.local === "datetime" || el.dataset.local === "time") {
      const form = el.dataset.local === "time" ? { timeStyle: "short", hourCycle: "h23" } : { dateStyle: "medium", timeStyle: "short", hourCycle: "h23" };
      if (el.dataset.zone !== zone) el.textContent = at.toLocaleString(lang, form);
      return;
    }
    let text = pad(at.getHours()) + ":" + pad(at.getMinutes());
    if (el.dataset.local === "hms") text += ":" + pad(at.getSeconds());
    const now = new Date();
    if (el.dataset.local === "when" && at.toDateString() !== now.toDateString()) {
      text = at.toLocaleString(lang, { dateStyle: "short", timeStyle: "short", hourCycle: "h23" });
    }
    el.textContent = text;
  });
}
document.addEventListener("DOMContentLoaded", () => localTimes());
document.addEventListener("htmx:wsAfterMessage", () => localTimes());
document.addEventListener("htmx:afterSettle", (event) => localTimes(event.target));

// How long someone has waited (a lobby room, a room's seat): the server writes the seconds it
// counted (data-waited) and the page counts on from when it first saw the element, so a
// browser's clock that is off changes nothing. m:ss, or h:mm:ss from an hour, in every language.
function showWaits() {
  const pad = (n) => String(n).padStart(2, "0");
  const now = performance.now();
  document.querySelectorAll("time[data-waited]").forEach((el) => {
    if (!el.dataset.seenAt) el.dataset.seenAt = String(now);
    const seconds = Math.max(
      0,
      Math.floor(Number(el.dataset.waited) + (now - Number(el.dataset.seenAt)) / 1000),
    );
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    const text = (hours ? hours + ":" + pad(minutes) : String(minutes)) + ":" + pad(seconds % 60);
    if (el.textContent !== text) el.textContent = text;
  });
}
setInterval(showWaits, 1000);

// Installable: the service worker (cardgames/install.py) keeps the static files and an
// offline page. Its address comes from the page, at the site's root so that it covers it all.
if ("serviceWorker" in navigator && document.body && document.body.dataset.worker) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register(document.body.dataset.worker).catch(() => {});
  });
}

// Live sockets come back fast. htmx's ws extension reconnects after 1006, 1011, 1012 and 1013
// with a back-off of up to 64 s; a server that restarts (a deploy: it says so first and closes
// with 1012) is back, or another process has the table, within a second or two. So: the first
// tries come within a fraction of a second, then every 2 s at most (with jitter, so that a
// whole room does not knock at once), and after half a minute of trying, every 10 s at most.
if (window.htmx) {
  htmx.config.wsReconnectDelay = (retries) => {
    const most = retries < 16 ? Math.min(2000, 150 * 2 ** retries) : 10000;
    return most / 2 + (Math.random() * most) / 2;
  };
  // A table page that reconnects says which version it shows and for which seat it was drawn
  // (`?v=&s=`): the server then sends only what it missed, not the whole table again. Its first
  // socket says nothing: a page just loaded gets the whole table, as drawn for the socket.
  let opened = false;
  document.addEventListener("htmx:wsOpen", () => {
    opened = true;
  });
  // A socket that closes takes the "live" mark with it: the page says "connecting…" again (the
  // words it was served with, in its language) until the next socket sends the mark back. A
  // restart notice (cardgames.lifecycle) stays up instead, saying why.
  const mark = document.getElementById("live-status");
  const connecting = mark ? mark.textContent : "";
  document.addEventListener("htmx:wsClose", () => {
    const now = document.getElementById("live-status");
    if (now && !now.classList.contains("restarting")) {
      now.className = "offline";
      now.removeAttribute("data-connected");
      now.textContent = connecting;
    }
  });
  htmx.createWebSocket = (url) => {
    const shown = document.getElementById("table-version");
    const seat = document.getElementById("table-seat");
    const address = new URL(url, window.location.href);
    if (opened && shown && seat && /^\d+$/.test(shown.dataset.version || "")) {
      address.searchParams.set("v", shown.dataset.version);
      address.searchParams.set("s", seat.dataset.seat || "");
    }
    const socket = new WebSocket(address.href, []);
    socket.binaryType = htmx.config.wsBinaryType;
    return socket;
  };
}
