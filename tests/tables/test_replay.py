"""Replays: each round of a played match, rebuilt from seed and log, ends where it was stored."""

from __future__ import annotations

import random

import pytest
from django.utils import timezone

from games.registry import GAMES
from tables import replay
from tables.driver import MatchBots
from tables.live import render, rooms, store
from tables.models import ActionLog, Match, RoundScore
from tests.conftest import make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db(transaction=True)


def drive_to_end(room_id: int, limit: int = 100_000) -> None:
    bots = MatchBots(room_id, rng=random.Random(3))
    for _ in range(limit):
        if bots.step() is None:
            return
    raise AssertionError(f"the match in room {room_id} did not end")


def _points(state, number: int) -> list[int]:
    row = state.scores[number - 1]
    return list(row["points"] if isinstance(row, dict) else row)


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("game", "bots", "options"),
    [
        ("ligretto-mini", 1, {"rounds": 2}),
        ("ligretto", 3, {"rounds": 2}),
        ("allegra", 2, {"rounds": 2}),
    ],
)
def test_every_round_of_a_played_match_replays_to_its_stored_state_and_scores(
    settings, game, bots, options
):
    settings.LEAVER_GRACE = 0  # the host never opens the table: a bot plays for her too
    room = started_room(make_user("alice"), game=game, bots=bots, **options)
    drive_to_end(room.pk)
    match = Match.objects.get(room_id=room.pk)
    assert match.status == Match.Status.FINISHED
    rules = GAMES[game]

    replays = replay.replay_match(match)
    assert [r.round.number for r in replays] == [1, 2]
    for rep in replays:
        stored = match.rounds.get(number=rep.round.number)
        # Exactly the stored state, field by field, and the stored points.
        assert rules.dump(rep.final_state) == stored.state
        rows = RoundScore.objects.filter(round=stored).order_by("seat")
        assert [r.points for r in rows] == _points(rep.final_state, rep.round.number)
        assert len(rep.states) == len(rep.steps) + 1
        assert [s.version for s in rep.steps] == sorted(s.version for s in rep.steps)
    logged = ActionLog.objects.filter(match=match).count()
    assert sum(len(r.steps) for r in replays) == logged
    assert replays[-1].final_state.status == "finished"
    # Round 1's last step is the ready that dealt round 2; round 2 starts from that deal.
    assert replays[0].steps[-1].deals_next
    assert replays[1].states[0].round == 2


def test_a_refused_row_is_shown_marked_and_never_applied():
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="ligretto-mini", rounds=1)
    from tables import play

    table = rooms.read(room.pk)
    legal = table.game.legal_actions(table.state, 0)
    flip = next(a for a in legal if a["type"] == "flip")
    play.act(room.pk, 0, flip)
    match = Match.objects.get(room_id=room.pk)
    first = ActionLog.objects.get(match=match)
    # Bob's play lost the race to alice's (L12): the server logs it refused, at her version.
    ActionLog.objects.create(
        match=match,
        round=first.round,
        seat=1,
        action={"type": "play", "from": "row", "index": 0},
        version=first.version,
        refused="too_slow",
    )
    after = rooms.read(room.pk)
    play.act(room.pk, 1, {"type": "flip"})
    match.refresh_from_db()

    rep = replay.replay_round(match, 1)
    assert [(s.seat, s.refused) for s in rep.steps] == [(0, ""), (1, "too_slow"), (1, "")]
    assert rep.steps[1].text == "plays the row card 1"
    # The refused play changed nothing: the state before and after it is the same.
    assert rep.states[2] is rep.states[1]
    assert GAMES["ligretto-mini"].dump(rep.states[1]) == GAMES["ligretto-mini"].dump(after.state)
    # The round goes on: its stored state is the last snapshot plus the log after it (actors).
    stored = store.recover(match).state
    assert GAMES["ligretto-mini"].dump(rep.final_state) == GAMES["ligretto-mini"].dump(stored)
    moves = replay.moves(rep)
    assert [m["refused"] for m in moves] == [None, "too_slow", None]
    assert moves[1]["name"] == "bob"


def test_a_step_shows_only_what_a_spectator_saw():
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="allegra", rounds=1)
    match = Match.objects.get(room_id=room.pk)
    rep = replay.replay_round(match, 1)
    html = replay.render_step(rep, 0)
    assert 'id="al-status"' in html and 'id="al-grid-0"' in html and 'id="al-grid-1"' in html
    # No seat's own interactive part, no button to act with.
    assert 'id="al-me"' not in html and "ws-send" not in html


@pytest.mark.parametrize("game", ["allegra", "ligretto-mini"])
def test_a_replay_shows_nobody_away_and_no_live_timer(game):
    """Issue 45 item 7: a player away now (or then) is no "away · a bot plays in s" tag."""
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game=game, rounds=1)
    match = Match.objects.get(room_id=room.pk)
    match.players.filter(seat=1).update(away_since=timezone.now())
    table = store.recover(match)
    live = render.render_part(table, table.view(None), "grid-1" if game == "allegra" else "seat-1")
    assert 'class="tag away"' in live  # the live table counts down to his stand-in
    html = replay.render_step(replay.replay_round(match, 1), 0)
    assert "tag away" not in html and "secs" not in html and "data-until" not in html
