"""The score sheet: each round's area sums and ender beside the points, so a doubling shows (A9)."""

from __future__ import annotations

import json

from games.allegra import rules


def _ended(doubling: bool) -> rules.State:
    """Seat 0 ends round 1 with high cards (doubled) or with a negative sum (not doubled)."""
    s = rules.new_match(3, {"rounds": 2}, seed=4)
    s.phase, s.turn, s.revealed = "draw", 0, [2, 2, 2]
    for seat, grid in enumerate(s.grids):
        high, low = (4, 3) if seat == 0 and doubling else (1, 2) if doubling else (-1, 0)
        for r, row in enumerate(grid):
            # Alternating values: no three equal neighbours, so no triple leaves (A8).
            for col in range(4):
                row[col] = (high if (r + col) % 2 == 0 else low, True)
    s.ender = 0
    s.final_lap = []
    events: list[dict] = []
    rules._finish_round(s, events)
    return s


def test_a9_the_sheet_keeps_sums_and_ender_and_names_a_doubling():
    s = _ended(doubling=True)
    sheet = rules.player_view(s, None)["score_sheet"]
    sums = [rules.area_sum(s, seat) for seat in range(3)]
    assert sheet[0]["sums"] == sums and sheet[0]["ender"] == 0
    assert sheet[0]["points"] == rules.player_view(s, None)["scores"][0]["points"]
    assert sums[0] > min(sums) and sums[0] > 0
    assert sheet[0]["doubled"] == 0 and sheet[0]["points"][0] == 2 * sums[0]


def test_a9_a_sum_not_above_zero_is_not_doubled_on_the_sheet():
    sheet = rules.player_view(_ended(doubling=False), None)["score_sheet"]
    assert sheet[0]["doubled"] is None and sheet[0]["points"] == sheet[0]["sums"]


def test_g0_the_sheet_survives_a_json_round_trip():
    s = _ended(doubling=False)
    data = rules.dump(s)
    assert rules.dump(rules.load(json.loads(json.dumps(data)))) == data
    assert (
        rules.player_view(rules.load(data), 1)["score_sheet"]
        == rules.player_view(s, 1)["score_sheet"]
    )
