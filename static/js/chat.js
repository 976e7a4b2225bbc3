// Room chat (templates/chat/panel.html): clear the box once a line is sent, and keep the log
// scrolled to its end while the reader is there (not while he scrolls back to read).
// The log is scrolled only when it has a new line (or is new itself): every push of the table
// comes through the same socket, and reading the log's height forces the page's layout.
(function () {
  "use strict";
  let stick = true;
  let seen = null; // the log, and its last line, as last scrolled
  let seenLast = null;

  function log() { return document.getElementById("chat-log"); }

  function atEnd(element) {
    return element.scrollHeight - element.scrollTop - element.clientHeight < 32;
  }

  function follow() {
    const element = log();
    if (!element) return;
    const last = element.lastElementChild;
    if (element === seen && last === seenLast) return; // no new line
    seen = element;
    seenLast = last;
    if (stick) element.scrollTop = element.scrollHeight;
  }

  document.addEventListener("htmx:wsAfterSend", function (event) {
    if (event.target && event.target.id === "chat-form") {
      event.target.reset();
      stick = true;
    }
  });
  document.addEventListener("DOMContentLoaded", follow);
  document.addEventListener("htmx:afterSettle", follow);
  document.addEventListener("htmx:wsAfterMessage", follow);
  document.addEventListener("scroll", function (event) {
    if (event.target && event.target.id === "chat-log") stick = atEnd(event.target);
  }, true);
})();
