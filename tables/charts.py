"""Line charts as plain SVG markup, built in pure Python (no chart library, no Django).

`line_chart(series, ...)` turns a few series of numbers (one per player: his running total
after each round, or his points per match) into an inline SVG: axes with tick labels, one
polyline per series, a dot per point and a legend. Colours come from CSS classes (`s0`..`s11`,
static/css/site.css): the CSP forbids inline style attributes, and presentation attributes
would fight the site's themes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from django.utils.translation import gettext, pgettext

# The drawing's own coordinate system; the SVG scales to its container (viewBox).
WIDTH, HEIGHT = 320, 180
LEFT, RIGHT, TOP, BOTTOM = 36, 8, 8, 22  # margins for tick labels
LEGEND_ROW = 14  # height of one legend line under the plot


@dataclass(frozen=True)
class Series:
    """One line: its label (a player's name), its values, and its colour class (`s<seat>`)."""

    label: str
    values: Sequence[int | float]
    css: str = ""


def nice_ticks(low: float, high: float, count: int = 5, min_step: float = 1) -> list[float]:
    """Return round tick values covering low..high (1, 2 or 5 times a power of ten apart).

    Points are whole numbers: steps below `min_step` would only label fractions nobody scores.
    """
    if high < low:
        low, high = high, low
    if high == low:
        high = low + 1
    raw = (high - low) / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = max(min_step, next(m * power for m in (1, 2, 5, 10) if m * power >= raw))
    first = math.floor(low / step) * step
    ticks = [first]
    while ticks[-1] < high:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _fmt(number: float) -> str:
    """A coordinate with at most one decimal, without a trailing .0 (shorter markup)."""
    text = f"{number:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _label(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def line_chart(
    series: Sequence[Series],
    x_labels: Sequence[str] = (),
    title: str = "",
    css: str = "chart",
    x_title: str = "",
    from_zero: bool = True,
) -> str:
    """Return an SVG line chart of `series` (all as long as `x_labels`, or as the longest).

    With `from_zero`, 0 is on the scale (points are read against it); without, the scale covers
    the values only (a rating near 1500 moving by 30 would be a flat line from 0 to 2000).

    A series with fewer values stops early (a player who joined later, a match cut short).
    With no values at all the chart still draws its axes, so a live table's chart is there
    from the first round on.
    """
    points = max((len(s.values) for s in series), default=0)
    labels = list(x_labels) or [str(i + 1) for i in range(points)]
    points = max(points, len(labels))
    values = [v for s in series for v in s.values]
    # Points are read against zero (a negative round, a bad match): then it is on the scale.
    anchor = [0] if from_zero or not values else []
    ticks = nice_ticks(min([*anchor, *values]), max([*anchor, *values]))
    low, high = ticks[0], ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    legend_h = LEGEND_ROW * len(series)
    total_h = HEIGHT + legend_h

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (points - 1) if points > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (high - v) / (high - low)

    out = [
        f'<svg class="{escape(css)}" viewBox="0 0 {WIDTH} {total_h}" role="img"'
        f' xmlns="http://www.w3.org/2000/svg" aria-label="{escape(title or "Chart")}">',
    ]
    if title:
        out.append(f"<title>{escape(title)}</title>")
    # Grid lines and value labels.
    out.append('<g class="axis y">')
    for t in ticks:
        ty = _fmt(y(t))
        zero = " zero" if t == 0 else ""
        out.append(
            f'<line class="grid{zero}" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{ty}" y2="{ty}"/>'
            f'<text x="{LEFT - 4}" y="{ty}" dy="0.35em" text-anchor="end">{_label(t)}</text>'
        )
    out.append("</g>")
    out.append('<g class="axis x">')
    out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{TOP + plot_h}" y2="{TOP + plot_h}"/>')
    # At most about ten labels along x: a long match would crowd them.
    every = max(1, math.ceil(len(labels) / 10))
    for i, text in enumerate(labels):
        if i % every and i != len(labels) - 1:
            continue
        out.append(
            f'<text x="{_fmt(x(i))}" y="{TOP + plot_h + 14}" text-anchor="middle">'
            f"{escape(text)}</text>"
        )
    if x_title:
        out.append(
            f'<text class="x-title" x="{WIDTH - RIGHT}" y="{HEIGHT - 1}" text-anchor="end">'
            f"{escape(x_title)}</text>"
        )
    out.append("</g>")
    for n, s in enumerate(series):
        cls = escape(s.css or f"s{n}")
        coords = " ".join(f"{_fmt(x(i))},{_fmt(y(v))}" for i, v in enumerate(s.values))
        out.append(f'<g class="series {cls}" data-label="{escape(s.label)}">')
        if len(s.values) > 1:
            out.append(f'<polyline points="{coords}"/>')
        for i, v in enumerate(s.values):
            out.append(
                f'<circle cx="{_fmt(x(i))}" cy="{_fmt(y(v))}" r="2.5">'
                f"<title>{escape(s.label)}: {_label(v)}</title></circle>"
            )
        out.append("</g>")
    # The legend: one line per series under the plot, its colour as a short stroke.
    out.append('<g class="legend">')
    for n, s in enumerate(series):
        cls = escape(s.css or f"s{n}")
        ly = HEIGHT + LEGEND_ROW * n + LEGEND_ROW / 2
        last = f" ({_label(s.values[-1])})" if s.values else ""
        out.append(
            f'<g class="series {cls}"><line x1="{LEFT}" x2="{LEFT + 16}" y1="{_fmt(ly)}"'
            f' y2="{_fmt(ly)}"/><text x="{LEFT + 22}" y="{_fmt(ly)}" dy="0.35em">'
            f"{escape(s.label)}{escape(last)}</text></g>"
        )
    out.append("</g></svg>")
    return "".join(out)


def running_totals(rounds: Sequence[Sequence[int]]) -> list[list[int]]:
    """Per seat, the running total after each round: [[r1, r1+r2, ...], ...]."""
    seats = max((len(r) for r in rounds), default=0)
    totals = [[] for _ in range(seats)]  # type: list[list[int]]
    for points in rounds:
        for seat in range(seats):
            before = totals[seat][-1] if totals[seat] else 0
            totals[seat].append(before + (points[seat] if seat < len(points) else 0))
    return totals


def totals_chart(names: Sequence[str], rounds: Sequence[Sequence[int]], title: str = "") -> str:
    """The running-totals chart of a match: one line per seat (class s<seat>), rounds along x."""
    running = running_totals(rounds)
    series = [
        Series(name, running[seat] if seat < len(running) else [], f"s{seat}")
        for seat, name in enumerate(names)
    ]
    # Round 0 (everyone at 0) anchors every line, so one round still draws a line.
    series = [Series(s.label, [0, *s.values], s.css) for s in series]
    labels = ["0", *(str(i + 1) for i in range(len(rounds)))]
    return line_chart(
        series,
        labels,
        title=title or gettext("Running totals by round"),
        css="chart totals-chart",
        x_title=pgettext("chart axis", "round"),
    )
