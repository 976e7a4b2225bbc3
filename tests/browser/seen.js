// tests/browser/test_table_layout.py: what hides an opponent's card or area (a function for page.evaluate).
([cards, whole]) => {
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  const name = e => e.id ? "#" + e.id : e.tagName.toLowerCase() + "." + [...e.classList].join(".");
  const scrolls = s => /auto|scroll/.test(s.overflowX + s.overflowY);
  function bring(el) {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (!scrolls(getComputedStyle(a))) continue;
      const r = el.getBoundingClientRect(), b = a.getBoundingClientRect();
      const top = b.top + a.clientTop, bottom = top + a.clientHeight;
      const left = b.left + a.clientLeft, right = left + a.clientWidth;
      if (r.bottom > bottom) a.scrollTop += Math.min(r.bottom - bottom, r.top - top);
      else if (r.top < top) a.scrollTop -= top - r.top;
      if (r.right > right) a.scrollLeft += Math.min(r.right - right, r.left - left);
      else if (r.left < left) a.scrollLeft -= left - r.left;
    }
  }
  function cut(el) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return "not drawn";
    if (r.left < -.5 || r.top < -.5 || r.right > vw + .5 || r.bottom > vh + .5) return "outside the viewport";
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === "visible" && s.overflowY === "visible") continue;
      const b = a.getBoundingClientRect();
      const left = b.left + a.clientLeft, top = b.top + a.clientTop;
      if (r.left < left - .5 || r.top < top - .5 || r.right > left + a.clientWidth + .5 || r.bottom > top + a.clientHeight + .5)
        return "cut by " + name(a);
    }
    return null;
  }
  const problems = [];
  const all = [...document.querySelectorAll(cards)].filter(c => c.getClientRects().length);
  for (const card of all) {
    bring(card);
    const why = cut(card);
    const where = (card.closest("[data-seat]") || card).dataset.seat;
    if (why) { problems.push(`seat ${where} ${name(card)}: ${why}`); continue; }
    const r = card.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === card || card.contains(hit))) problems.push(`seat ${where} ${name(card)}: covered by ${hit && name(hit)}`);
  }
  for (const area of document.querySelectorAll(whole)) {
    if (!area.getClientRects().length) continue;
    bring(area);
    const why = cut(area);
    if (why) problems.push(`${name(area)} not whole: ${why}`);
  }
  return {count: all.length, problems};
}
