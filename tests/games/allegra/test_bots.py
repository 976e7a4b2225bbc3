"""Allegra bots (G3): they see only a view, act legally at a human pace, and normal beats easy."""

from __future__ import annotations

import random

from games.allegra import bots
from games.allegra import rules as R
from games.allegra.simulate import main, play_match, run
from games.registry import rules_for

from .test_properties import twin


def test_G3_levels_and_registry() -> None:
    assert bots.LEVELS == ("easy", "normal")
    assert rules_for("allegra").bot_levels == ("easy", "normal")


def test_G3_bots_choose_legal_actions_from_the_view_only() -> None:
    rng = random.Random(3)
    for seats in (2, 3, 5):
        s = R.new_match(seats, {"rounds": 1}, seats)
        steps = 0
        while s.status != "finished" and steps < 2000:
            steps += 1
            offers = []
            for seat in range(seats):
                view = R.player_view(s, seat)
                view["seat"] = seat
                for level in bots.LEVELS:
                    seed = rng.random()
                    action, delay = bots.choose(view, level, random.Random(seed))
                    if not view["legal"]:
                        assert action is None
                    if action is None:
                        continue
                    assert action in view["legal"]
                    assert 0.3 < delay < 2.5
                    # Same view of a state that differs only in hidden cards: same choice.
                    other = R.player_view(twin(s, random.Random(seed)), seat)
                    other["seat"] = seat
                    assert bots.choose(other, level, random.Random(seed)) == (action, delay)
                    offers.append((seat, action))
            seat, action = rng.choice(offers)
            s, _ = R.apply(s, seat, action)
        assert s.status == "finished"


def test_G3_spectator_view_gets_nothing() -> None:
    view = R.player_view(R.new_match(3, None, 1), None)
    view["seat"] = None
    assert bots.choose(view, "normal", random.Random(1)) == (None, 0.0)


def test_G3_easy_is_slower_than_normal() -> None:
    view = R.player_view(R.new_match(3, None, 1), 0)
    view["seat"] = 0
    easy = [bots.choose(view, "easy", random.Random(i))[1] for i in range(50)]
    normal = [bots.choose(view, "normal", random.Random(i))[1] for i in range(50)]
    assert sum(easy) > sum(normal)


def test_G3_normal_beats_easy() -> None:
    res = run(2, 40, 7, ["normal", "easy"])
    assert res["wins"]["normal"] >= 26, res
    assert res["avg_total"]["normal"] < res["avg_total"]["easy"]


def test_G3_bots_knock_and_give_with_three_or_more() -> None:
    r = play_match(4, ["normal"] * 4, 5)
    assert r.knocks > 0 and len(r.totals) == 4 and r.winners


def test_simulator_command_line(capsys) -> None:
    res = main(["--seats", "3", "--matches", "2", "--seed", "1", "--levels", "normal,easy"])
    out = capsys.readouterr().out
    assert "actions/s" in out and "wins per level" in out
    assert res["matches"] == 2 and res["levels"] == ["normal", "easy", "normal"]
    assert sum(res["wins"].values()) == 2
