"""The SVG line charts: pure Python, points to polylines, axes, labels and a legend."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from tables import charts

SVG = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML, or this raises


def test_running_totals_add_up_round_by_round():
    assert charts.running_totals([[3, -1], [5, 4], [-2, 0]]) == [[3, 8, 6], [-1, 3, 3]]
    assert charts.running_totals([]) == []


def test_nice_ticks_cover_the_range_with_round_steps():
    assert charts.nice_ticks(0, 10) == [0, 5, 10]
    assert charts.nice_ticks(-7, 23) == [-10, 0, 10, 20, 30]
    assert charts.nice_ticks(0, 0) == [0, 1]
    for low, high in ((-3, 41), (0, 137), (-250, 12), (5, 6), (0, 3)):
        ticks = charts.nice_ticks(low, high)
        assert ticks[0] <= low and ticks[-1] >= high
        steps = {round(b - a, 6) for a, b in zip(ticks, ticks[1:], strict=False)}
        assert len(steps) == 1


def test_a_totals_chart_draws_one_polyline_per_player_through_each_running_total():
    svg = charts.totals_chart(["alice", "bob"], [[10, -2], [4, 6]])
    root = _parse(svg)
    series = root.findall(f"{SVG}g[@class='series s0']") + root.findall(
        f"{SVG}g[@class='series s1']"
    )
    lines = [g for g in series if g.find(f"{SVG}polyline") is not None]
    assert [g.get("data-label") for g in lines] == ["alice", "bob"]
    # Round 0 (everyone at 0), then the running totals: alice 10, 14; bob -2, 4.
    for g, expected in zip(lines, ([0, 10, 14], [0, -2, 4]), strict=True):
        points = g.find(f"{SVG}polyline").get("points").split()
        assert len(points) == 3
        labels = [c.find(f"{SVG}title").text for c in g.findall(f"{SVG}circle")]
        assert labels == [f"{g.get('data-label')}: {v}" for v in expected]
        ys = [float(p.split(",")[1]) for p in points]
        # Higher totals are drawn higher (smaller y in SVG).
        order = sorted(range(3), key=lambda i: expected[i])
        assert sorted(range(3), key=lambda i: -ys[i]) == order


def test_the_chart_has_axes_labels_and_a_legend_with_each_total():
    svg = charts.totals_chart(["alice", "bob"], [[10, -2], [4, 6]])
    root = _parse(svg)
    x_labels = [t.text for t in root.find(f"{SVG}g[@class='axis x']").findall(f"{SVG}text")]
    assert x_labels[:3] == ["0", "1", "2"]
    y_labels = [int(t.text) for t in root.find(f"{SVG}g[@class='axis y']").findall(f"{SVG}text")]
    assert min(y_labels) <= -2 and max(y_labels) >= 14 and 0 in y_labels
    legend = [t.text for t in root.find(f"{SVG}g[@class='legend']").iter(f"{SVG}text")]
    assert legend == ["alice (14)", "bob (4)"]


def test_names_are_escaped_and_no_inline_style_is_written():
    svg = charts.totals_chart(['<script>"x"', "bob & co"], [[1, 2]])
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "bob &amp; co" in svg
    assert "style=" not in svg
    _parse(svg)


def test_a_chart_without_rounds_still_draws_its_axes():
    svg = charts.totals_chart(["alice", "bob"], [])
    root = _parse(svg)
    assert root.find(f"{SVG}g[@class='axis y']") is not None
    assert "NaN" not in svg and "inf" not in svg


def test_a_line_chart_with_a_short_series_stops_early():
    svg = charts.line_chart(
        [charts.Series("a", [1, 2, 3], "s0"), charts.Series("b", [5], "s1")], ["x", "y", "z"]
    )
    root = _parse(svg)
    b = root.find(f"{SVG}g[@data-label='b']")
    assert b.find(f"{SVG}polyline") is None and len(b.findall(f"{SVG}circle")) == 1
    assert re.search(r'viewBox="0 0 \d+ \d+"', svg)


def _y_labels(svg: str) -> list[float]:
    axis = _parse(svg).find(f"{SVG}g[@class='axis y']")
    return [float(t.text) for t in axis.iter(f"{SVG}text")]


def test_a_rating_chart_is_scaled_to_its_ratings_and_a_points_chart_keeps_zero():
    ratings = [charts.Series("rating", [1500, 1512, 1497, 1530], "s0")]
    labels = _y_labels(charts.line_chart(ratings, from_zero=False))
    assert 1490 <= min(labels) <= 1497 and 1530 <= max(labels) <= 1540
    assert max(labels) - min(labels) <= 60  # not 0 to 2000: a change of 30 is half the height
    points = _y_labels(charts.line_chart([charts.Series("points", [12, 30], "s0")]))
    assert min(points) == 0
