// tests/browser/test_table_layout.py: the boxes that cut their text (a function for page.evaluate).
() => {
  const name = e => e.id ? "#" + e.id : e.tagName.toLowerCase() + "." + [...e.classList].join(".");
  const scrollAreas = ".allegra .board, .allegra > .table-status, .board > .ring, .board > .opponents, .board > .center, .board > .pile-area, .table > .me, .table-side, .score-wrap, .visually-hidden, #table-flash";
  const out = [];
  for (const e of document.querySelectorAll("#table *, #site-header *")) {
    if (!e.getClientRects().length || e.closest(".table-side") || e.closest(scrollAreas) === e) continue;
    if (e.closest(".visually-hidden, [hidden]")) continue;
    const s = getComputedStyle(e);
    if (s.display === "inline" || s.display === "contents") continue;
    const hides = !(s.overflowX === "visible" && s.overflowY === "visible");
    const wide = e.scrollWidth > e.clientWidth + 1, tall = e.scrollHeight > e.clientHeight + 1;
    if ((hides && (wide || tall)) || (!hides && wide && e.textContent.trim() && e.children.length === 0))
      out.push(`${name(e)} (${e.scrollWidth}x${e.scrollHeight} in ${e.clientWidth}x${e.clientHeight}): ${e.textContent.trim().slice(0, 60)}`);
  }
  return out;
}
