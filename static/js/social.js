// The social socket's page side (social/consumers.py): tell the server whether this page is
// visible (a Web Push goes out only when none of the user's pages is), and, once the reader
// allows it, subscribe this browser to Web Push with the site's VAPID key.
"use strict";

(function () {
  const box = document.getElementById("social-socket");
  if (!box) return;
  let socket = null;

  function sayVisibility() {
    if (socket) socket.send(JSON.stringify({ visible: document.visibilityState === "visible" }), box);
  }

  box.addEventListener("htmx:wsOpen", (event) => {
    socket = event.detail.socketWrapper;
    sayVisibility();
  });
  box.addEventListener("htmx:wsClose", () => { socket = null; });
  document.addEventListener("visibilitychange", sayVisibility);
  // htmx's ws extension sends a form's values on ws-send; ours sends its own frames only.
  box.addEventListener("htmx:wsConfigSend", (event) => event.preventDefault());

  function keyBytes(base64url) {
    const padded = (base64url + "===".slice((base64url.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  async function subscribe() {
    const key = box.dataset.pushKey;
    if (!key || !("serviceWorker" in navigator) || !("PushManager" in window)) return;
    const registration = await navigator.serviceWorker.register(box.dataset.worker);
    const existing = await registration.pushManager.getSubscription();
    const subscription = existing || await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    const token = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
    await fetch(box.dataset.pushUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": token },
      body: JSON.stringify(subscription.toJSON()),
    });
  }

  // The browser asks the reader only after a click of his (the profile's "Turn on" button).
  document.addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.closest("#push-on")) {
      Notification.requestPermission().then((answer) => { if (answer === "granted") subscribe(); });
    }
  });
  if (window.Notification && Notification.permission === "granted") subscribe();
})();
