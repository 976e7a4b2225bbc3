// A round's replay: first, back, forward, last, a slider, and playing the steps in real time
// (1x or 4x) with the gaps the server recorded. Each step's board comes from the server
// (?part=board), drawn from the spectator's view only; this script only asks and swaps.
(function () {
  "use strict";
  const page = document.getElementById("replay");
  if (!page) return;
  const board = document.getElementById("replay-board");
  const slider = document.getElementById("replay-slider");
  const shown = document.getElementById("replay-step");
  const gaps = JSON.parse(document.getElementById("replay-timeline").textContent);
  const last = Number(page.dataset.steps);
  const round = page.dataset.round;
  const buttons = {
    play: document.getElementById("replay-play"),
    play4: document.getElementById("replay-play4"),
    pause: document.getElementById("replay-pause"),
  };
  let step = Number(page.dataset.step);
  let timer = null;
  let asked = 0; // the newest request wins: an older answer arriving late is dropped
  let run = 0; // each play (and each stop) starts a new run: a step of an older one stops there

  buttons.play.hidden = buttons.play4.hidden = false;
  board.dataset.step = String(step);

  function mark(n) {
    document.querySelectorAll("#replay-moves li.current").forEach((li) => li.classList.remove("current"));
    const li = document.getElementById("move-" + n);
    if (li) {
      li.classList.add("current");
      // Scroll the list only, never the page around it.
      const list = li.parentElement;
      list.scrollTop = li.offsetTop - list.clientHeight / 2;
    }
  }

  function go(n) {
    n = Math.max(0, Math.min(last, n));
    step = n;
    page.dataset.step = String(n);
    slider.value = String(n);
    shown.textContent = String(n);
    mark(n);
    const ticket = ++asked;
    const url = "?round=" + encodeURIComponent(round) + "&step=" + n + "&part=board";
    return fetch(url, { headers: { "HX-Request": "true" } })
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((html) => {
        if (ticket !== asked) return;
        board.innerHTML = html;
        board.dataset.step = String(n);
        history.replaceState(null, "", "?round=" + encodeURIComponent(round) + "&step=" + n);
      })
      .catch(() => {});
  }

  mark(step); // a page opened at a later step shows that step's move in the list

  function stop() {
    run += 1;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    page.dataset.playing = "";
    buttons.pause.hidden = true;
    buttons.play.hidden = buttons.play4.hidden = false;
  board.dataset.step = String(step);
  }

  function play(speed) {
    stop();
    if (step >= last) go(0);
    page.dataset.playing = String(speed);
    buttons.pause.hidden = false;
    buttons.play.hidden = buttons.play4.hidden = true;
    const mine = run;
    let first = true;
    const next = () => {
      if (mine !== run) return; // paused (or played again) while a step was on its way
      if (step >= last) return stop();
      // gaps[i] is the recorded time from step i to step i + 1; the first step of a play comes
      // at once (from the deal, its gap is the countdown and the players' first look: seconds
      // in which a viewer who pressed Play would see nothing happen).
      const wait = first ? 0 : (gaps[step] * 1000) / speed;
      first = false;
      timer = setTimeout(() => {
        go(step + 1).then(next);
      }, wait);
    };
    next();
  }

  document.getElementById("replay-controls").addEventListener("click", (event) => {
    const link = event.target.closest("a[data-go]");
    if (!link) return;
    event.preventDefault();
    stop();
    const to = { first: 0, back: step - 1, forward: step + 1, last: last }[link.dataset.go];
    go(to);
  });
  slider.addEventListener("input", () => {
    stop();
    go(Number(slider.value));
  });
  buttons.play.addEventListener("click", () => play(1));
  buttons.play4.addEventListener("click", () => play(4));
  buttons.pause.addEventListener("click", stop);
  document.getElementById("replay-moves").addEventListener("click", (event) => {
    const li = event.target.closest("li[data-step]");
    if (!li) return;
    event.preventDefault();
    stop();
    go(Number(li.dataset.step));
  });
})();
