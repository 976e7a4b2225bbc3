"""Ligretto bots (G3): they act on their own view only, through legal actions, at a level's pace."""

from __future__ import annotations

import json
import random
from statistics import mean

import pytest

from games.ligretto import bots
from games.ligretto import rules as R
from games.ligretto.simulate import Stats, main, play_match
from games.registry import rules_for

from .helpers import build

IDLE = {"row": ["g7", "g8", "g9"], "stack": ["b7", "b8"], "hand": []}


def seat_view(state, seat):
    view = R.player_view(state, seat)
    view["seat"] = seat
    return json.loads(json.dumps(view))  # the bot gets plain JSON, nothing more


def test_G3_it_exposes_its_levels_through_the_registry():
    assert rules_for("ligretto").bot_levels == ("easy", "normal", "fast")
    assert rules_for("ligretto-mini").bot_levels == bots.LEVELS


@pytest.mark.parametrize("level", bots.LEVELS)
def test_G3_it_only_sends_legal_actions_seen_in_its_view(level):
    rng = random.Random(level)
    for seed in range(5):
        state = R.new_match(4, {"rounds": 1, "row_variant": seed % 2 == 1}, seed)
        for _ in range(200):
            if state.status != "playing":
                break
            seat = rng.randrange(4)
            view = seat_view(state, seat)
            action, delay = rules_for("ligretto").bot_choose(view, level, rng)
            assert delay > 0
            if action is None:
                continue
            assert action in view["legal"]
            state, _ = R.apply(state, seat, action)


def test_G3_it_acts_at_a_pace_set_by_its_level():
    rng = random.Random(1)
    state = R.new_match(2, None, 3)
    view = seat_view(state, 0)
    delays = {lv: mean(bots.choose(view, lv, rng)[1] for _ in range(200)) for lv in bots.LEVELS}
    assert 1.3 < delays["easy"] < 1.7 and 0.9 < delays["normal"] < 1.1
    assert 0.4 < delays["fast"] < 0.6


def test_G3_it_is_ready_after_a_round_and_idle_without_legal_actions():
    state = build(
        [{"row": ["g5", "r6", "b5"], "stack": ["b8"]}, IDLE], status="round_over", ready=[1]
    )
    rng = random.Random(0)
    assert bots.choose(seat_view(state, 0), "easy", rng)[0] == {"type": "ready"}
    assert bots.choose(seat_view(state, 1), "normal", rng)[0] is None
    spectator = R.player_view(state, None)
    assert bots.choose(spectator, "fast", rng)[0] is None
    with pytest.raises(ValueError):
        bots.choose(spectator, "expert", rng)


def test_G3_a_normal_bot_empties_its_stack_first_and_never_flips_in_vain():
    state = build(
        [{"row": ["r1", "g5", "b5"], "stack": ["b8", "y1"], "waste": ["g1"], "hand": ["y9"]}, IDLE]
    )
    rng = random.Random(0)
    for _ in range(20):
        assert bots.choose(seat_view(state, 0), "normal", rng)[0] == {
            "type": "play",
            "from": "stack",
        }
    state = build([{"row": ["r3", "g5", "b5"], "stack": ["b8", "y4"], "waste": ["y8", "g7"]}, IDLE])
    assert bots.choose(seat_view(state, 0), "normal", rng)[0] is None  # a flip changes nothing


def test_G3_a_normal_bot_beats_an_easy_one_on_choices_alone():
    # Speed model "equal": seats act in a seeded random order, so only the choices differ.
    stats = Stats()
    for seed in range(60):
        play_match("ligretto", ["normal", "easy"], seed, {"rounds": 3}, "equal", stats)
    assert stats.wins[0] / stats.matches > 0.6, stats.wins


def test_G3_a_normal_bot_beats_an_easy_one_at_their_own_pace():
    # Speed model "delays": each bot acts after the delay it asked for, so it also wins on speed.
    stats = Stats()
    for seed in range(40):
        play_match("ligretto-mini", ["easy", "normal"], seed, {"rounds": 2}, "delays", stats)
    assert stats.wins[1] / stats.matches > 0.6, stats.wins


def test_G3_the_simulator_runs_from_the_command_line(capsys):
    stats = main(
        [
            "--game",
            "ligretto",
            "--seats",
            "3",
            "--matches",
            "2",
            "--rounds",
            "1",
            "--levels",
            "fast,easy",
        ]
    )
    out = capsys.readouterr().out
    assert stats.matches == 2 and stats.rounds == 2
    assert "actions/s" in out and "wins per level" in out
