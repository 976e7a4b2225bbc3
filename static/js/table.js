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
      // The drawer opens below the bar, so its toggles stay in reach; it scrolls itself to the
      // part (scrollIntoView would also scroll the page, which does not scroll, and take the
      // close button off screen).
      const bar = table.querySelector(".table-bar");
      if (bar) table.style.setProperty("--drawer-top", Math.round(bar.getBoundingClientRect().bottom) + "px");
      const side = document.getElementById("table-side");
      const part = document.getElementById(which === "chat" ? "chat" : table.querySelector(".scores").id);
      const close = side && side.querySelector(".drawer-close");
      if (side && part) side.scrollTop = Math.max(0, part.offsetTop - (close ? close.offsetHeight : 0));
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

  // Motion: a card that reaches a pile travels there from where it was played (your own slot,
  // an opponent's strip or grid), and a won race, a round's end and the match's winner get a
  // short moment. Never under prefers-reduced-motion; Web Animations, so the CSP (no inline
  // styles) holds. data-travels counts the travels (tests read it).
  const still = window.matchMedia("(prefers-reduced-motion: reduce)");
  let lastPressed = null;
  let before = null; // what the piles and the status were before a push
  document.addEventListener("pointerdown", (event) => {
    const slot = event.target.closest && event.target.closest("#lg-me .slot, #al-me .place, #al-me .actions button");
    if (slot) lastPressed = slot.getBoundingClientRect();
  });
  document.addEventListener("keydown", () => {
    const pressed = table.querySelector("button.pressed");
    if (pressed) lastPressed = pressed.getBoundingClientRect();
  });
  function snapshot() {
    const status = table.querySelector(".table-status");
    const count = document.querySelector("#al-discard .n");
    const digits = count ? count.textContent.match(/\d+/g) : null;
    return {
      status: status ? status.dataset.status : "",
      discard: digits ? Number(digits[digits.length - 1]) : -1,
      turn: status ? status.dataset.turn : "",
    };
  }
  before = snapshot();
  table.addEventListener("htmx:wsBeforeMessage", () => {
    before = snapshot();
  });
  function travel(card, from) {
    if (!card || !from || still.matches) return;
    const to = card.getBoundingClientRect();
    const dx = from.left + from.width / 2 - (to.left + to.width / 2);
    const dy = from.top + from.height / 2 - (to.top + to.height / 2);
    if (Math.abs(dx) + Math.abs(dy) < 4) return;
    card.animate(
      [{ transform: `translate(${dx}px, ${dy}px) scale(.8)`, opacity: 0.7 }, { transform: "none", opacity: 1 }],
      { duration: 260, easing: "cubic-bezier(.2, .7, .3, 1)" },
    );
    table.dataset.travels = String(Number(table.dataset.travels || 0) + 1);
  }
  function seatBox(seat) {
    if (seat === undefined || seat === "") return null;
    if (seat === table.dataset.me) {
      const mine = lastPressed;
      lastPressed = null;
      const area = document.querySelector("#lg-me, #al-me");
      return mine || (area && area.getBoundingClientRect());
    }
    const el = document.querySelector('.board [data-seat="' + CSS.escape(seat) + '"].tableau, .board [data-seat="' + CSS.escape(seat) + '"].grid');
    return el && el.getClientRects().length ? el.getBoundingClientRect() : null;
  }
  // A pile drawn with `just` glows once: only a pile element this push brought (a push that
  // leaves the centre alone leaves last change's piles) travels.
  const seen = new WeakSet();
  document.querySelectorAll("#lg-center .pile.just").forEach((pile) => seen.add(pile));
  function moments(was) {
    const now = snapshot();
    let played = false;
    // Ligretto: each pile a card just reached; its top card names its owner.
    table.querySelectorAll("#lg-center .pile.just").forEach((pile) => {
      if (seen.has(pile)) return;
      seen.add(pile);
      const card = pile.querySelector(".card");
      travel(card, seatBox(card && card.dataset.owner));
      played = true;
    });
    // Allegra: a card onto the discard came from the player whose turn it was.
    if (was.discard >= 0 && now.discard > was.discard && was.turn !== "") {
      travel(document.querySelector("#al-discard .card"), seatBox(was.turn));
      played = true;
    }
    if (now.status !== was.status && (now.status === "round_over" || now.status === "finished")) {
      const status = table.querySelector(".table-status");
      status.classList.remove("moment", "winner");
      void status.offsetWidth; // restart the animation
      status.classList.add("moment");
      if (now.status === "finished") status.classList.add("winner");
      sound(now.status === "finished" ? "win" : "round");
    } else if (played) {
      sound("card");
    }
  }

  // Sound: off until the player turns it on (the bar's toggle), remembered per player in this
  // browser; short tones drawn by Web Audio, no files. Never needed to play.
  const toggle = document.getElementById("sound-toggle");
  const soundKey = "cardgames.sound." + (table.dataset.player || "guest");
  let audio = null;
  function soundOn() {
    try {
      return window.localStorage.getItem(soundKey) === "on";
    } catch (e) {
      return false;
    }
  }
  function showSound() {
    if (toggle) toggle.setAttribute("aria-pressed", String(soundOn()));
  }
  if (toggle) {
    showSound();
    toggle.addEventListener("click", () => {
      try {
        window.localStorage.setItem(soundKey, soundOn() ? "off" : "on");
      } catch (e) {
        /* private mode: the toggle just does nothing */
      }
      showSound();
      if (soundOn()) sound("card");
    });
  }
  const TONES = { card: [[660, 0.05]], round: [[523, 0.12], [784, 0.18]], win: [[523, 0.12], [659, 0.12], [784, 0.12], [1047, 0.3]] };
  function sound(kind) {
    if (!soundOn() || !window.AudioContext) return;
    audio = audio || new AudioContext();
    let at = audio.currentTime;
    for (const [freq, length] of TONES[kind]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.08, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + length);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + length);
      at += length * 0.9;
    }
    table.dataset.sounds = String(Number(table.dataset.sounds || 0) + 1);
  }

  // A refusal names the card it was about: shake it briefly; nothing else moves.
  table.addEventListener("htmx:wsAfterMessage", (event) => {
    moments(before);
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
      const until = Date.parse(el.closest(".tag").dataset.until);
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
