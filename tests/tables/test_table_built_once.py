"""What a table builds once and hands on (tables/current.py): who plays each seat (`people`,
read by the reaction-time check on every move) and the view's `fairness` (the round's
commitment), each equal to what the rows and the rules say, whatever was built before."""

from __future__ import annotations

import random

from games.registry import GAMES
from tables import fairness
from tables.current import Table, clone, copy_of
from tables.models import Match, Player, Round


def _table(secret: str = "") -> Table:
    match = Match(pk=1, room_id=1, game="ligretto", seed=7, version=1, status="playing")
    match.fair_secret = secret
    players = [
        Player(pk=1, match_id=1, seat=0, name="alice", user_id=11, connections=1),
        Player(pk=2, match_id=1, seat=1, name="bob", user_id=12, stand_in=True),
        Player(pk=3, match_id=1, seat=2, name="carol", user_id=13, left=True),
        Player(pk=4, match_id=1, seat=3, name="Normal bot 1", bot_level="normal"),
    ]
    state = GAMES["ligretto"].new_match(4, None, 7)
    return Table(match=match, players=players, state=state, round=Round(pk=1, number=1, seed=7))


def test_people_are_the_seats_no_bot_plays():
    table = _table()
    assert table.people() == {0: 11}
    assert {p.seat for p in table.players if not p.is_bot} == set(table.people())
    view = table.view(0)
    assert [p["bot"] for p in view["players"]] == [False, True, True, True]


def test_a_move_hands_people_on_and_a_change_of_rows_builds_them_again():
    table = _table()
    built = table.people()
    moved = copy_of(table, players=False)  # a plain move: the same rows
    assert moved.people() is built
    back = copy_of(table)  # a touch: rows it may change
    back.players[1] = clone(back.players[1])
    back.players[1].stand_in = False  # bob takes his seat back
    assert back.people() == {0: 11, 1: 12}
    assert table.people() == {0: 11}


def test_the_views_fairness_is_the_rounds_at_every_moment():
    table = _table(secret="s" * 64)
    game = table.game
    first = table.view(0)["fairness"]
    assert first == fairness.public(table.match.fair_secret, table.progress)
    assert first["server_seed"] is None  # a round being played shows its commitment only
    # Play the round out with the bots' choices: every view says what fairness.public says
    # of that very state, the seeds once the round is over (handed on or not).
    rng = random.Random(1)
    for turn in range(20000):
        if table.progress.rounds_scored:
            break
        seat = turn % 4
        if not game.legal_actions(table.state, seat):
            continue
        action = game.bot_choose(table.view(seat), "normal", rng)[0]
        new, _events = game.apply(table.state, seat, action)
        table = copy_of(table, players=False)
        table.state = new
        shown = table.view(None)["fairness"]
        assert shown == fairness.public(table.match.fair_secret, table.progress)
    assert table.progress.rounds_scored == 1
    over = table.view(None)["fairness"]
    assert over["server_seed"] is not None and over["next_commitment"] is not None
