// Room chat (templates/chat/panel.html): clear the box once a line is sent, and keep the log
// scrolled to its end while the reader is there (not while he scrolls back to read).
(function () {
  "use strict";
  let stick = true;

  function log() { return document.getElementById("chat-log"); }

  function atEnd(element) {
    return element.scrollHeight - element.scrollTop - element.clientHeight < 32;
  }

  document.addEventListener("htmx:wsAfterSend", function (event) {
    if (event.target && event.target.id === "chat-form") {
      event.target.reset();
      stick = true;
    }
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    const element = log();
    if (element && stick) element.scrollTop = element.scrollHeight;
  });
  document.addEventListener("scroll", function (event) {
    if (event.target && event.target.id === "chat-log") stick = atEnd(event.target);
  }, true);
})();
