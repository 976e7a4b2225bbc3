{% autoescape off %}// The service worker (cardgames/install.py): the static files from a cache, the offline page
// when a page cannot be loaded. Sockets, forms and htmx requests go to the network untouched.
"use strict";
const CACHE = "cardgames-{{ version }}";
// The offline page in each language, and where the language of the last page served is kept.
const OFFLINE = {{ offline }};
const DEFAULT_LANGUAGE = "{{ language|escapejs }}";
const LANGUAGE_KEY = "/offline/last-language";
const PRECACHE = [{% for url in precache %}"{{ url|escapejs }}"{% if not forloop.last %}, {% endif %}{% endfor %}];
const STATIC = "{{ static_prefix|escapejs }}";
const NETWORK_FIRST = {{ network_first|yesno:"true,false" }};

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key.startsWith("cardgames-") && key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

function fromNetwork(request, cache) {
  return fetch(request).then((response) => {
    if (response.ok) cache.put(request, response.clone());
    return response;
  });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith(STATIC)) {
    event.respondWith(caches.open(CACHE).then((cache) => {
      if (NETWORK_FIRST) return fromNetwork(request, cache).catch(() => cache.match(request));
      return cache.match(request).then((hit) => hit || fromNetwork(request, cache));
    }));
  } else if (request.mode === "navigate") {
    event.respondWith(fetch(request).then((response) => {
      const language = response.headers.get("Content-Language");
      if (language && OFFLINE[language]) {
        event.waitUntil(caches.open(CACHE).then((cache) => cache.put(LANGUAGE_KEY, new Response(language))));
      }
      return response;
    }).catch(() => offlinePage(url)));
  }
});

function escapeAttribute(text) {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

// The offline page in the language of the last page the site served, its "Try again" pointing
// at the page asked for.
function offlinePage(url) {
  return caches.open(CACHE).then((cache) => cache.match(LANGUAGE_KEY)
    .then((kept) => (kept ? kept.text() : DEFAULT_LANGUAGE))
    .then((language) => cache.match(OFFLINE[language] || OFFLINE[DEFAULT_LANGUAGE]))
    .then((page) => page.text())
    .then((html) => new Response(
      html.replace('id="offline-retry" href="/"', 'id="offline-retry" href="' + escapeAttribute(url.pathname + url.search) + '"'),
      { headers: { "Content-Type": "text/html; charset=utf-8" } },
    )));
}
{% endautoescape %}
{% autoescape off %}
// Web Push (social.notify): show what the server sent while no page of ours was visible, and
// open (or focus) the page it points to when the notification is clicked.
self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = { body: event.data ? event.data.text() : "" }; }
  event.waitUntil(self.registration.showNotification(data.title || "cardgames", { body: data.body || "", data: { url: data.url || "/" } }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(self.clients.openWindow(url));
});
{% endautoescape %}
