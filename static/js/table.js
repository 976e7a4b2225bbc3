// The live table: keys for the cards, a refused card's short shake, the countdown.
// Everything else is htmx: ws-send sends the actions, the socket swaps parts by id.
(function () {
  "use strict";
  const table = document.getElementById("table");
  if (!table) return;

  // Each game prints its keys on its buttons (data-key): Ligretto's 1-5, S, W, space, R;
  // Allegra's D, P, X, K, R.
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select") return;
    const key = event.key.toLowerCase();
    if (key.length !== 1) return;
    const button = table.querySelector('button[data-key="' + CSS.escape(key) + '"]');
    if (!button) return;
    event.preventDefault();
    if (!button.disabled) {
      button.classList.add("pressed");
      button.click();
    }
  });
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("button[ws-send]");
    if (button) button.classList.add("pressed");
  });

  // A refusal names the card it was about: shake it briefly; nothing else moves.
  table.addEventListener("htmx:wsAfterMessage", (event) => {
    const flash = document.getElementById("table-flash");
    document.querySelectorAll("button.pressed").forEach((b) => b.classList.remove("pressed"));
    if (flash && String(event.detail.message).includes('id="table-flash"')) {
      const card = flash.dataset.target && document.getElementById(flash.dataset.target);
      if (card) {
        card.classList.remove("refused");
        void card.offsetWidth; // restart the animation
        card.classList.add("refused");
      }
      flash.classList.add("shown");
      clearTimeout(flash._timer);
      flash._timer = setTimeout(() => {
        flash.classList.remove("shown");
        if (card) card.classList.remove("refused");
      }, 1200);
    }
    tick();
  });

  // The countdown before a round: the server says when; the page counts.
  function tick() {
    const el = document.querySelector(".countdown[data-starts-at]");
    if (!el) return;
    const left = Math.max(0, Math.ceil((Date.parse(el.dataset.startsAt) - Date.now()) / 1000));
    el.textContent = String(Math.min(left, 9));
    if (left > 0) setTimeout(tick, 250);
  }
  tick();
})();
