// The live table: keys for the cards, a refused card's short shake, the countdown.
// Everything else is htmx: ws-send sends the actions, the socket swaps parts by id.
(function () {
  "use strict";
  const table = document.getElementById("table");
  if (!table) return;

  // A text field keeps its keys; everything else (a card, a radio, a reaction button, the
  // page) gives them to the table.
  function typing(target) {
    if (!target || !target.tagName) return false;
    if (target.isContentEditable) return true;
    const tag = target.tagName.toLowerCase();
    if (tag === "textarea" || tag === "select") return true;
    if (tag !== "input") return false;
    return !/^(button|submit|reset|checkbox|radio|range|color|file|image)$/i.test(target.type || "text");
  }

  // Each game prints its keys on its buttons (data-key): Ligretto's 1-5, S, W, space, R;
  // Allegra's D, P, X, K, R.
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      // Escape leaves the chat box (or any field): the next key goes to the table again.
      if (event.key === "Escape") event.target.blur();
      return;
    }
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

  // The drawers of a narrow screen (scores, chat): one side panel, opened at its part.
  document.addEventListener("click", (event) => {
    const toggle = event.target.closest && event.target.closest("[data-drawer], [data-drawer-close]");
    if (!toggle) return;
    const which = toggle.dataset.drawer;
    const open = which && table.dataset.drawer !== which;
    if (open) table.dataset.drawer = which;
    else delete table.dataset.drawer;
    table.querySelectorAll(".drawer-toggle").forEach((b) => {
      b.setAttribute("aria-expanded", String(open && b.dataset.drawer === which));
    });
    if (open) {
      const part = document.getElementById(which === "chat" ? "chat" : table.querySelector(".scores").id);
      if (part) part.scrollIntoView({ block: "start" });
      if (which === "chat") {
        const input = document.getElementById("chat-input");
        if (input) input.focus({ preventScroll: true });
      }
    }
  });

  // A tap on an opponent enlarges it (again: back to the strip). Pushes replace the seat's
  // element, so the choice is kept here and put back after each message.
  let focusSeat = null;
  function applyFocus() {
    table.querySelectorAll(".board .enlarged").forEach((e) => e.classList.remove("enlarged"));
    if (focusSeat === null) return;
    const el = table.querySelector('.board [id^="lg-seat-"][data-seat="' + focusSeat + '"], .board [id^="al-grid-"][data-seat="' + focusSeat + '"]');
    if (el) el.classList.add("enlarged");
  }
  table.addEventListener("click", (event) => {
    const seat = event.target.closest && event.target.closest(".board .tableau, .board .grid");
    if (!seat || event.target.closest("button, a, input")) return;
    focusSeat = focusSeat === seat.dataset.seat ? null : seat.dataset.seat;
    applyFocus();
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
    announce(String(event.detail.message).includes('id="table-flash"') ? flash : null);
    applyFocus();
    awayTick();
    clockTick();
    tick();
  });

  // One polite live region per table (#table-announce, in the bar) says what matters, once:
  // a new headline (a round starts or ends, whose turn, a knock) and this socket's refusals,
  // never every card of a race.
  let lastHeadline = "";
  function announce(flash) {
    const region = document.getElementById("table-announce");
    if (!region) return;
    const said = [];
    const headline = document.querySelector(".table-status .headline");
    const text = headline ? headline.textContent.replace(/\s+/g, " ").trim() : "";
    if (text && text !== lastHeadline) {
      lastHeadline = text;
      said.push(text);
    }
    if (flash && flash.textContent.trim()) said.push(flash.textContent.trim());
    if (said.length) region.textContent = said.join(" ");
  }
  lastHeadline = (document.querySelector(".table-status .headline") || { textContent: "" })
    .textContent.replace(/\s+/g, " ").trim();

  // An away player's seat counts down to his stand-in: the server says when; the page counts.
  function awayTick() {
    let running = false;
    document.querySelectorAll(".tag.away[data-until] .secs").forEach((el) => {
      const until = Date.parse(el.parentElement.dataset.until);
      const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      el.textContent = String(left);
      if (left > 0) running = true;
    });
    clearTimeout(awayTick._timer);
    if (running) awayTick._timer = setTimeout(awayTick, 500);
  }
  awayTick();

  // A decision's clock (a timed Allegra table): the server says until when; the page counts.
  // The seat whose time ran out too often sees the link that takes its seat back.
  function clockTick() {
    const me = table.dataset.me;
    document.querySelectorAll(".take-back[data-seats]").forEach((el) => {
      el.hidden = me === "" || !el.dataset.seats.split(" ").includes(me);
    });
    const el = document.querySelector(".clock[data-deadline] .secs");
    clearTimeout(clockTick._timer);
    if (!el) return;
    const left = Math.max(0, Math.ceil((Date.parse(el.parentElement.dataset.deadline) - Date.now()) / 1000));
    el.textContent = String(left);
    el.parentElement.classList.toggle("low", left <= 5);
    if (left > 0) clockTick._timer = setTimeout(clockTick, 250);
  }
  clockTick();

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
