// The daily challenge's countdown to the next deal (midnight UTC): the server writes the
// seconds left (data-countdown) and the page counts down from when it first saw them, so a
// browser clock that is off changes nothing. h:mm:ss, or m:ss within the last hour; at zero
// the page is drawn again, with the new day's deal.
function dailyCountdown() {
  const pad = (n) => String(n).padStart(2, "0");
  const now = performance.now();
  document.querySelectorAll("time[data-countdown]").forEach((el) => {
    if (!el.dataset.seenAt) el.dataset.seenAt = String(now);
    const left = Math.max(
      0,
      Math.ceil(Number(el.dataset.countdown) - (now - Number(el.dataset.seenAt)) / 1000),
    );
    const hours = Math.floor(left / 3600);
    const minutes = Math.floor((left % 3600) / 60);
    const text = (hours ? hours + ":" + pad(minutes) : String(minutes)) + ":" + pad(left % 60);
    if (el.textContent !== text) el.textContent = text;
    // The new day's deal is out: draw the page again, once (the server's clock counted).
    if (left === 0 && !el.dataset.reloaded) {
      el.dataset.reloaded = "true";
      window.setTimeout(() => window.location.reload(), 1500);
    }
  });
}
setInterval(dailyCountdown, 1000);
