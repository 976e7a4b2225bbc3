"""The fairness log of a round (issue 42, docs/fairness.md): the replay page and the replay API
list every contested moment (a play that took a card, the plays that lost it and by how many
ms, the rule that settled it) and each player's races won and lost with the median margin."""

from __future__ import annotations

import random

import pytest

from games.engine import IllegalAction
from tables import play, replay
from tables.live import rooms
from tables.models import ActionLog, Match
from tests.api.helpers import Api
from tests.conftest import client_for, make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db(transaction=True)


def _race_ahead(room_id: int, rng: random.Random) -> tuple[dict, dict] | None:
    """Play random legal moves until Alice and Bob can both play the same card: Alice's play
    and Bob's, which hers will beat (the rules refuse it as too slow once hers is in); None
    if the round ended first (the deal is the room's own, random)."""
    for _ in range(3000):
        table = rooms.read(room_id)
        game, state = table.game, table.state
        plays = {
            seat: [
                a
                for a in game.legal_actions(state, seat)
                if a["type"] == "play" and a.get("to") != "row"
            ]
            for seat in (0, 1)
        }
        for mine in plays[0]:
            after, _ = game.apply(state, 0, mine)
            for theirs in plays[1]:
                try:
                    game.apply(after, 1, theirs)
                except IllegalAction as lost:
                    if lost.code == "too_slow":
                        return mine, theirs
        movers = [seat for seat in (0, 1) if game.legal_actions(state, seat)]
        if state.status != "playing" or not movers:
            return None
        seat = rng.choice(movers)
        play.act(room_id, seat, rng.choice(game.legal_actions(state, seat)))
    return None


def _round_with_races(races: int) -> tuple[int, Match]:
    alice, bob = make_user("alice"), make_user("bob")
    for attempt in range(10):
        room = started_room(alice, [bob], game="ligretto-mini", rounds=1)
        rng = random.Random(attempt)
        for _ in range(races):
            ahead = _race_ahead(room.pk, rng)
            if ahead is None:
                break
            mine, theirs = ahead
            play.act(room.pk, 0, mine)
            with pytest.raises(IllegalAction) as lost:
                play.act(room.pk, 1, theirs)
            assert lost.value.code == "too_slow"
        else:
            play.close_match(room.pk, "Stopped for the test.")
            return room.pk, Match.objects.get(room_id=room.pk)
        play.close_match(room.pk, "No race came up in this deal.")
    raise AssertionError("no deal gave the races")


def test_the_replay_lists_each_race_and_each_players_summary():
    room_id, match = _round_with_races(2)
    rep = replay.replay_round(match, 1)
    rows = {r.pk: r for r in ActionLog.objects.filter(match=match)}
    assert len(rep.races) == 2
    margins = []
    for race in rep.races:
        won = rep.steps[race.step - 1]
        assert race.seat == won.seat == 0 and race.rule == "arrival"
        (loss,) = race.losses
        assert loss.seat == 1 and rep.steps[loss.step - 1].refused == "too_slow"
        assert loss.step > race.step
        # The margin is the logged receipts' difference.
        winner_row = next(r for r in rows.values() if r.version == won.version and not r.refused)
        loser_row = next(
            r for r in rows.values() if r.refused and r.version == rep.steps[loss.step - 1].version
        )
        assert loss.later_ms == (loser_row.received - winner_row.received) // 1000 >= 0
        margins.append(loss.later_ms)
    summary = {row["seat"]: row for row in replay.race_summary(rep)}
    median = sorted(margins)[0] / 2 + sorted(margins)[1] / 2
    assert (summary[0]["won"], summary[0]["lost"], summary[0]["median_ms"]) == (2, 0, median)
    assert (summary[1]["won"], summary[1]["lost"], summary[1]["median_ms"]) == (0, 2, median)

    html = client_for(make_user("eve")).get(f"/rooms/{room_id}/replay?round=1").content.decode()
    section = html[html.index('id="replay-races"') :]
    for race in rep.races:
        assert f'id="race-{race.step}" data-winner="0" data-rule="arrival"' in section
        later = race.losses[0].later_ms
        assert f'data-later-ms="{later}">bob lost by {later} ms<' in section
    assert "settled by arrival order" in section
    summary_html = section[section.index('id="replay-race-summary"') :]
    assert '<tr data-seat="0"><th scope="row">alice</th><td>2</td><td>0</td>' in summary_html
    assert '<tr data-seat="1"><th scope="row">bob</th><td>0</td><td>2</td>' in summary_html

    german = client_for(make_user("dora"))
    german.cookies["django_language"] = "de"
    page = german.get(f"/rooms/{room_id}/replay?round=1", headers={"Accept-Language": "de"})
    text = page.content.decode()
    assert "Wettläufe" in text and "bob verlor um" in text

    answer = Api(make_user("frank")).get(f"rooms/{room_id}/replay?round=1").json()
    assert [r["step"] for r in answer["races"]] == [r.step for r in rep.races]
    first = answer["races"][0]
    assert first["name"] == "alice" and first["rule"] == "arrival"
    assert first["lost"][0]["name"] == "bob"
    assert first["lost"][0]["later_ms"] == rep.races[0].losses[0].later_ms
    assert [(r["name"], r["won"], r["lost"]) for r in answer["race_summary"]] == [
        ("alice", 2, 0),
        ("bob", 0, 2),
    ]


def test_a_round_without_races_says_so():
    room_id, _ = _round_with_races(0)
    html = client_for(make_user("eve")).get(f"/rooms/{room_id}/replay?round=1").content.decode()
    assert 'id="replay-no-races"' in html and 'id="race-' not in html


def test_the_option_is_offered_and_shown():
    from lobby.models import Room
    from tests.conftest import client_for

    alice = make_user("alice")
    host = client_for(alice)
    form = host.get("/rooms/new/").content.decode()
    assert 'name="equalise"' in form and "Latency equalisation" in form
    answer = host.post(
        "/rooms/new/", {"game": "ligretto-mini", "seats": 2, "rounds": 1, "equalise": "on"}
    )
    assert answer.status_code == 302, answer.content[:500]
    room = Room.objects.latest("pk")
    assert room.options.get("equalise") is True
    page = host.get(f"/rooms/{room.pk}/").content.decode()
    assert "Latency equalisation" in page
    lobby = client_for(make_user("eve")).get("/").content.decode()
    assert 'class="tag equalised">latency equalised<' in lobby
    # Not offered twice: the Board API says it too.
    from tests.api.helpers import Api

    listed = Api(make_user("frank")).get(f"rooms/{room.pk}").json()
    assert listed["equalise"] is True and listed["options"]["equalise"] is True
