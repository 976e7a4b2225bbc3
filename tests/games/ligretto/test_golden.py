"""Ligretto golden replays (G1): fixed seeds and action logs give the recorded scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.registry import rules_for

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_G1_it_replays_a_logged_match_to_its_known_scores(path):
    data = json.loads(path.read_text())
    rules = rules_for(data["game"])
    state = rules.new_match(data["seats"], data["options"], data["seed"])
    for seat, action in data["actions"]:
        state, _ = rules.apply(state, seat, action)
    view = rules.player_view(state, None)
    assert view["status"] == "finished"
    assert [s["points"] for s in view["scores"]] == data["scores"]
    assert view["totals"] == data["totals"]


def test_G1_there_are_golden_replays():
    assert len(GOLDEN) >= 4
