{% autoescape off %}// The service worker (cardgames/install.py): the static files from a cache, the offline page
// when a page cannot be loaded. Sockets, forms and htmx requests go to the network untouched.
"use strict";
const CACHE = "cardgames-{{ version }}";
const OFFLINE = "{{ offline|escapejs }}";
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
    event.respondWith(fetch(request).catch(() => caches.match(OFFLINE)));
  }
});
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
