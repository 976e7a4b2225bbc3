// The tournament page: when a round seats you, go to your table (the socket says so), and
// count down to the start in the reader's own clock.
document.addEventListener("htmx:wsAfterMessage", () => {
  const link = document.querySelector("#your-table[data-navigate]");
  if (link) window.location.assign(link.href);
});
function tick() {
  for (const el of document.querySelectorAll("[data-countdown]")) {
    const left = Math.max(0, Math.round((Date.parse(el.dataset.countdown) - Date.now()) / 1000));
    el.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  }
}
setInterval(tick, 1000);
document.addEventListener("DOMContentLoaded", tick);
