"""Bots play a 6-seat Allegra match to its end through the one write path, knocks included."""

from __future__ import annotations

import random

import pytest

from lobby.models import Room
from tables import driver
from tables.driver import MatchBots
from tables.live import rooms
from tables.models import ActionLog, Match, RoundScore
from tests.conftest import make_user
from tests.tables.allegra_layouts import after_opening
from tests.tables.helpers import set_state, started_room

pytestmark = pytest.mark.django_db(transaction=True)


def drive_to_end(room_id: int, limit: int = 50_000) -> int:
    bots = MatchBots(room_id, rng=random.Random(7))
    for step in range(limit):
        if bots.step() is None:
            return step
    raise AssertionError(f"the match in room {room_id} did not end in {limit} steps")


# About 500 moves, each rendered and pushed: half a minute here, more on a busy machine.
@pytest.mark.timeout(300)
def test_a_six_seat_allegra_match_with_bots_plays_to_its_end(settings):
    settings.LEAVER_GRACE = 0  # the host never opens the table: a bot stands in at once
    alice = make_user("alice")
    room = started_room(alice, game="allegra", bots=5)
    drive_to_end(room.pk)

    match = Match.objects.get(room_id=room.pk)
    assert match.status == Match.Status.FINISHED
    assert Room.objects.get(pk=room.pk).status == Room.Status.FINISHED
    table = rooms.read(room.pk)
    assert table.state.status == "finished" and match.rounds.count() == 3
    view = table.view(None)
    for entry in view["score_sheet"]:  # A9: the rows agree with the engine's sheet
        rows = RoundScore.objects.filter(round__match=match, round__number=entry["round"])
        assert [r.points for r in rows.order_by("seat")] == entry["points"]
        assert all(
            p == s or (seat == entry["doubled"] and p == 2 * s)
            for seat, (p, s) in enumerate(zip(entry["points"], entry["sums"], strict=True))
        )
    assert [p["total"] for p in view["players"]] == view["totals"]
    assert min(view["totals"]) == view["totals"][view["winners"][0]]  # A1: the lowest wins
    kinds = [
        a["type"] for a in ActionLog.objects.filter(match=match).values_list("action", flat=True)
    ]
    assert kinds.count("ready") == 6 * 3 - 1 or kinds.count("ready") >= 6 * 2
    assert not ActionLog.objects.filter(match=match, by_bot=False).exists()


def test_bots_knock_and_the_active_bot_answers_a_knock(settings, monkeypatch):
    """Bob (a bot) holds an 11 face up beside two -1s, so a drawn -1 is worth a knock to him;
    the deck's top is that -1. Alice's stand-in holds two 8s side by side and bob has 8s she
    may take: the take is worth more to her than the -1, so she gives it (A7).

    Bots wait their level's delay (a knock is quicker than a decision), so the driver runs at a
    person's pace here, on a clock that the test moves by the waits the driver asks for."""
    settings.LEAVER_GRACE = 0
    settings.BOT_PACE = 1
    clock = [0.0]
    monkeypatch.setattr(driver, "_monotonic", lambda: clock[0])
    alice = make_user("alice")
    room = started_room(alice, game="allegra", bots=2, rounds=1)

    def knockable(data):
        data = after_opening(data)
        data["grids"][1][0] = [[-1, True], [-1, True], [11, True], [9, True]]
        data["grids"][0][1] = [[8, True], [8, True], [0, True], [5, False]]
        data["deck"][-1] = -1
        return data

    set_state(room.pk, knockable)
    bots = MatchBots(room.pk, rng=random.Random(3))
    log = ActionLog.objects.filter(match__room_id=room.pk)
    for _ in range(200):
        w = bots.step()
        clock[0] += w
        if log.filter(action__type__in=["take", "swap", "discard"]).exists():
            break
    moves = [(a.seat, a.action) for a in log.order_by("version")]
    assert moves[0] == (0, {"type": "draw", "source": "deck"})
    assert (1, {"type": "knock"}) in moves
    kinds = [(seat, a["type"]) for seat, a in moves]
    give = next(a for seat, a in moves if a["type"] == "give")
    knocker = give["to"]
    assert kinds.index((1, "knock")) < kinds.index((0, "give"))
    assert kinds[-2:] == [(knocker, "place"), (0, "take")]
    assert all(a.by_bot for a in log)
