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

  // Each game prints its keys on its buttons (data-key); this script knows none of them.
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      // Escape leaves the chat box (or any field): the next key goes to the table again.
      if (event.key === "Escape") event.target.blur();
      return;
    }
    const key = event.key.toLowerCase();
    if (key.length !== 1) return;
    if (key === "?") {
      event.preventDefault();
      readPosition();
      return;
    }
    if (key === "/" && commandBox) {
      event.preventDefault();
      const tools = document.getElementById("access-tools");
      if (tools) tools.open = true;
      commandBox.focus();
      return;
    }
    // Scan mode: the switch (space or enter) presses the action the scan has reached.
    if (scanning && (key === " " || event.key === "Enter")) return;
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
    const el = table.querySelector('.board [data-seat-box][data-seat="' + CSS.escape(focusSeat) + '"]');
    if (el) el.classList.add("enlarged");
  }
  table.addEventListener("click", (event) => {
    const seat = event.target.closest && event.target.closest(".board [data-seat-box]");
    if (!seat || event.target.closest("button, a, input")) return;
    focusSeat = focusSeat === seat.dataset.seat ? null : seat.dataset.seat;
    applyFocus();
  });

  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("button[ws-send]");
    if (button) button.classList.add("pressed");
  });

  // A paced table (issue 41): a play sent sooner than the pace after your last one waits for
  // its turn on the server; the bar says so until that turn comes (a queue of one).
  const pace = Number(table.dataset.pace || 0) * 1000;
  let nextTurn = 0;
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("button[ws-send], form[ws-send] button");
    const queue = document.getElementById("pace-queue");
    if (!button || !pace || !queue) return;
    const now = Date.now();
    if (now >= nextTurn) {
      nextTurn = now + pace;
      return;
    }
    queue.hidden = false;
    const until = nextTurn;
    nextTurn += pace;
    clearTimeout(queue._timer);
    queue._timer = setTimeout(() => {
      queue.hidden = true;
    }, until - now);
  });

  // Motion: a card that reaches a pile travels there from where it was played (your own slot,
  // an opponent's strip or grid), and a won race, a round's end and the match's winner get a
  // short moment. Never under prefers-reduced-motion; Web Animations, so the CSP (no inline
  // styles) holds. data-travels counts the travels (tests read it).
  const still = window.matchMedia("(prefers-reduced-motion: reduce)");
  let lastPressed = null;
  let before = null; // what the piles and the status were before a push
  document.addEventListener("pointerdown", (event) => {
    const slot = event.target.closest && event.target.closest("[data-own-area] button");
    if (slot) lastPressed = slot.getBoundingClientRect();
  });
  document.addEventListener("keydown", () => {
    const pressed = table.querySelector("button.pressed");
    if (pressed) lastPressed = pressed.getBoundingClientRect();
  });
  function snapshot() {
    const status = table.querySelector(".table-status");
    const pile = document.querySelector("[data-from-turn]");
    return {
      status: status ? status.dataset.status : "",
      discard: pile ? Number(pile.dataset.count) : -1,
      turn: status ? status.dataset.turn : "",
    };
  }
  before = snapshot();
  table.addEventListener("htmx:wsBeforeMessage", (event) => {
    // An equalised table measures this socket's round trip (docs/fairness.md): a ping is
    // answered at once with its number alone, and never drawn.
    const message = String(event.detail.message);
    if (message.startsWith('<template id="table-ping"')) {
      event.preventDefault();
      const found = /data-ping="(\d+)"/.exec(message);
      if (found && event.detail.socketWrapper) {
        event.detail.socketWrapper.send(JSON.stringify({ type: "pong", ping: Number(found[1]) }), table);
      }
      return;
    }
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
      const area = document.querySelector("[data-own-area]");
      return mine || (area && area.getBoundingClientRect());
    }
    const el = document.querySelector('.board [data-seat-box][data-seat="' + CSS.escape(seat) + '"]');
    return el && el.getClientRects().length ? el.getBoundingClientRect() : null;
  }
  // The games' templates mark what travels: a pile a card just reached (data-arrived; its card
  // names its owner in data-owner), and a pile a card reaches from the seat whose turn it was
  // (data-from-turn, its cards counted in data-count). Only an element this push brought (a
  // push that leaves a pile alone leaves last change's) travels.
  const seen = new WeakSet();
  document.querySelectorAll("[data-arrived]").forEach((pile) => seen.add(pile));
  function moments(was) {
    const now = snapshot();
    let played = false;
    // Each pile a card just reached; its top card names its owner.
    table.querySelectorAll("[data-arrived]").forEach((pile) => {
      if (seen.has(pile)) return;
      seen.add(pile);
      const card = pile.querySelector(".card");
      travel(card, seatBox(card && card.dataset.owner));
      played = true;
    });
    // A card onto a pile counted by turn came from the player whose turn it was.
    if (was.discard >= 0 && now.discard > was.discard && was.turn !== "") {
      travel(document.querySelector("[data-from-turn] .card"), seatBox(was.turn));
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
  // a new headline (a round starts or ends, whose turn, a knock), this socket's refusals, and
  // whatever the game's template marks with data-say that changed (issue 41): "mine" for what
  // concerns the reader (a pile you can play on, your turn, the knock window, your points, the
  // winner), "all" for the rest (every card played). The words are the game's (its template);
  // the reader chooses how much (everything, only what I can play, off).
  const verbositySelect = document.getElementById("say-verbosity");
  const verbosityKey = "cardgames.verbosity." + (table.dataset.player || "guest");
  function verbosity() {
    try {
      return window.localStorage.getItem(verbosityKey) || "mine";
    } catch (e) {
      return "mine";
    }
  }
  if (verbositySelect) {
    verbositySelect.value = verbosity();
    verbositySelect.addEventListener("change", () => {
      try {
        window.localStorage.setItem(verbosityKey, verbositySelect.value);
      } catch (e) {
        /* private mode: this page keeps the choice */
      }
      table.dataset.verbosity = verbositySelect.value;
    });
    table.dataset.verbosity = verbosity();
  }
  // The text a screen reader would read for `el`: aria-labels, never aria-hidden parts.
  // `news`: an announcement, without the links and buttons a sentence may carry.
  function spoken(el, news) {
    if (el.nodeType === Node.TEXT_NODE) return el.textContent;
    if (el.nodeType !== Node.ELEMENT_NODE || el.getAttribute("aria-hidden") === "true" || el.hidden) return "";
    if (el.tagName === "SELECT" || el.tagName === "SCRIPT" || el.tagName === "TEMPLATE") return "";
    if (news && /^(A|BUTTON|FORM)$/.test(el.tagName)) return "";
    if (el.dataset.sayText) return " " + el.dataset.sayText + " ";
    const label = el.getAttribute("aria-label");
    if (label && el.getAttribute("role") === "img") return " " + label + " ";
    let text = label ? label + ": " : "";
    el.childNodes.forEach((child) => {
      text += spoken(child, news);
    });
    if (/^(P|LI|DIV|SECTION|ARTICLE|BUTTON|DD|HEADER)$/.test(el.tagName)) text += " ";
    return text;
  }
  const squeeze = (text) => text.replace(/\s+/g, " ").replace(/\s+([.,:;])/g, "$1").trim();
  function sayings() {
    const found = new Map();
    table.querySelectorAll("[data-say]").forEach((el) => {
      const text = squeeze(el.dataset.sayText || spoken(el, true)).replace(/[\s·]+$/, "");
      if (!text) return;
      found.set(el.id || "text:" + text, { text, kind: el.dataset.say });
    });
    return found;
  }
  let said = sayings();
  function say(lines) {
    const region = document.getElementById("table-announce");
    if (!region || !lines.length) return;
    region.textContent = lines.join(" ");
    table.dataset.announced = String(Number(table.dataset.announced || 0) + 1);
  }
  let lastHeadline = "";
  function announce(flash) {
    const level = verbositySelect ? verbositySelect.value : verbosity();
    const lines = [];
    const headline = document.querySelector(".table-status .headline");
    const text = headline ? squeeze(headline.textContent) : "";
    if (text && text !== lastHeadline) {
      lastHeadline = text;
      lines.push(text);
    }
    if (flash && flash.textContent.trim()) lines.push(flash.textContent.trim());
    const now = sayings();
    now.forEach((item, key) => {
      const before = said.get(key);
      if (before && before.text === item.text) return;
      if (item.kind === "mine" || level === "all") lines.push(item.text);
    });
    said = now;
    if (level !== "off") say(lines);
  }
  lastHeadline = squeeze((document.querySelector(".table-status .headline") || { textContent: "" }).textContent);

  // "?" reads the whole position on demand: what the game's template marks data-position.
  function readPosition() {
    const parts = [];
    table.querySelectorAll("[data-position]").forEach((el) => {
      const text = squeeze(spoken(el));
      if (text) parts.push(text);
    });
    say([parts.join(" · ")]);
  }

  // Typed commands: "p 3", "d", "2 3"… each game's buttons carry their command (data-command);
  // a single letter is that key; "on …" after a command is allowed (the game picks the pile).
  const commandBox = document.getElementById("table-command");
  const commandForm = document.getElementById("table-command-form");
  function command(text) {
    let typed = squeeze(text.toLowerCase());
    if (!typed) return;
    if (typed === "?") {
      readPosition();
      return;
    }
    const find = (c) =>
      table.querySelector('button[data-command="' + CSS.escape(c) + '"]') ||
      (c.length === 1 ? table.querySelector('button[data-key="' + CSS.escape(c) + '"]') : null);
    let button = find(typed);
    if (!button && / on .*$/.test(typed)) button = find(typed.replace(/ on .*$/, ""));
    if (!button && /^\d$/.test(typed)) button = find("p " + typed);
    if (!button || button.disabled) {
      say([(commandBox.dataset.unknown || "?") + " " + text]);
      return;
    }
    button.classList.add("pressed");
    button.click();
  }
  if (commandForm && commandBox) {
    commandForm.addEventListener("submit", (event) => {
      event.preventDefault();
      command(commandBox.value);
      commandBox.value = "";
    });
  }

  // Scan mode for a single switch: the focus steps through the actions you can take now, one
  // every SCAN_STEP ms; the switch (space or enter) presses the one it is on. A game's template
  // may list the legal actions' keys (data-legal-keys): only those are stepped through.
  const SCAN_STEP = 1500;
  const scanToggle = document.getElementById("scan-toggle");
  let scanning = false;
  let scanAt = -1;
  function scanTargets() {
    const legal = table.querySelector("[data-legal-keys]");
    const keys = legal ? new Set(legal.dataset.legalKeys.split("|").filter((k) => k !== "")) : null;
    return Array.from(table.querySelectorAll(".me button, .me input[type=radio]")).filter((el) => {
      if (el.disabled || !el.getClientRects().length) return false;
      if (keys && el.dataset.key !== undefined) return keys.has(el.dataset.key);
      return !keys;
    });
  }
  function scanStep() {
    clearTimeout(scanStep._timer);
    if (!scanning) return;
    const targets = scanTargets();
    if (targets.length) {
      scanAt = (scanAt + 1) % targets.length;
      targets[scanAt].focus();
      table.dataset.scanned = String(Number(table.dataset.scanned || 0) + 1);
    }
    scanStep._timer = setTimeout(scanStep, SCAN_STEP);
  }
  if (scanToggle) {
    scanToggle.addEventListener("click", () => {
      scanning = !scanning;
      scanToggle.setAttribute("aria-pressed", String(scanning));
      table.classList.toggle("scanning", scanning);
      scanAt = -1;
      scanStep();
    });
  }

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

  // A decision's clock (a timed table): the server says until when; the page counts.
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

  // A tournament's table: once the match is over, its players go back to the event's live
  // standings after a moment (the tournaments app says where; any other room answers no url).
  function backToEvent() {
    if (backToEvent.asked || !document.getElementById("match-result")) return;
    backToEvent.asked = true;
    fetch("event/", { credentials: "same-origin" })
      .then((answer) => (answer.ok ? answer.json() : null))
      .then((event) => {
        if (event && event.url) setTimeout(() => window.location.assign(event.url), 3000);
      })
      .catch(() => {});
  }
  document.addEventListener("htmx:wsAfterMessage", backToEvent);
  backToEvent();
})();
