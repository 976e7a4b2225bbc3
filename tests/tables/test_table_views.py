"""`Table.views` (every seat's view of one change, built together for a push) is exactly each
seat's `Table.view`, in every game, while playing and during a countdown."""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games.registry import GAMES
from tables import languages
from tables.current import Table
from tables.live import render
from tables.live.room import LiveRoom
from tables.models import Match, Player, Round


def _table(game: str, seats: int, state, version: int, starts_at=None) -> Table:
    match = Match(
        pk=1, room_id=1, game=game, seed=7, version=version, status="playing", starts_at=starts_at
    )
    players = [
        Player(pk=i + 1, match_id=1, seat=i, name=f"p{i}", user_id=i + 1, connections=1)
        for i in range(seats)
    ]
    return Table(match=match, players=players, state=state, round=Round(pk=1, number=1, seed=7))


@pytest.mark.parametrize(
    ("game", "seats"), [("ligretto", 4), ("ligretto", 12), ("ligretto-mini", 2), ("allegra", 3)]
)
def test_every_seats_view_built_together_is_its_own_view(game, seats):
    rules = GAMES[game]
    state = rules.new_match(seats, None, 7)
    rng = random.Random(1)
    for step in range(40):
        for starts_at in (None, timezone.now() + timedelta(seconds=30)):
            table = _table(game, seats, state, step, starts_at)
            views = table.views(list(range(seats)))
            for seat in range(seats):
                assert views[seat] == table.view(seat)
        seat = rng.randrange(seats)
        action, _ = rules.bot_choose(rules.player_view(state, seat), "normal", rng)
        if action is not None:
            state, _ = rules.apply(state, seat, action)


@pytest.mark.parametrize(
    ("game", "seats"), [("ligretto", 4), ("ligretto", 12), ("ligretto-mini", 2), ("allegra", 3)]
)
def test_a_prepared_move_carries_each_seats_message_as_its_view_encodes(game, seats, settings):
    # tables.render.prepare runs while a move is written: what the push then sends must be
    # exactly what view_text would have built after the commit, seat by seat. It plans from the
    # engine's views and the room's shared part without joining every seat's view
    # (Table.view_parts): the very bytes the joined views' plan gives, while playing, during a
    # countdown and once closed.
    # One process (the scale run's Redis layer may carry the change to browsers elsewhere,
    # whose parts are drawn after the commit: nothing is prepared there, as the test below).
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    rules = GAMES[game]
    state = rules.new_match(seats, None, 7)
    rng = random.Random(4)
    every = list(range(seats))
    for step in range(40):
        for moment in ("playing", "starting", "closed"):
            starts_at = timezone.now() + timedelta(seconds=30) if moment == "starting" else None
            table = _table(game, seats, state, step, starts_at)
            if moment == "closed":
                table.match.status = Match.Status.CLOSED
            room = LiveRoom(table.match.room_id)
            render.prepare(room, table)
            assert room.encoded is not None and room.encoded.version == table.version
            views = table.views(every)
            plan = render._plan([views[s] for s in every])
            for seat in every:
                text = room.encoded.texts[seat]
                assert text == render._encode_planned(views[seat], plan)
                assert json.loads(text) == {"type": "view", "view": table.view(seat)}
                assert render.view_text(room, table, seat) == text
            assert render.view_text(room, table, None) == render.encode_message(
                {"type": "view", "view": table.view(None)}
            )
        seat = rng.randrange(seats)
        action, _ = rules.bot_choose(rules.player_view(state, seat), "normal", rng)
        if action is not None:
            state, _ = rules.apply(state, seat, action)


def test_moves_of_one_batch_are_pushed_with_the_texts_prepared_for_each(settings, monkeypatch):
    # Two or three moves of a room written in one batch are all prepared before the first is
    # pushed: each push sends its own version's prepared text, none is built again seat by seat.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    rules = GAMES["ligretto"]
    state = rules.new_match(4, None, 7)
    rng = random.Random(3)
    room = LiveRoom(1)
    tables = []
    while len(tables) < render.KEEP_OLDER + 1:
        seat = rng.randrange(4)
        action, _ = rules.bot_choose(rules.player_view(state, seat), "normal", rng)
        if action is None:
            continue
        state, _ = rules.apply(state, seat, action)
        table = _table("ligretto", 4, state, 10 + len(tables))
        render.prepare(room, table)
        tables.append(table)
    expected = {
        (t.version, seat): render.encode_message({"type": "view", "view": t.view(seat)})
        for t in tables
        for seat in range(4)
    }
    built = []
    monkeypatch.setattr(Table, "view", lambda self, seat, now=None: built.append(seat))
    for table in tables:  # pushed in order, after all were prepared
        for seat in range(4):
            text = render.view_text(room, table, seat)
            assert json.loads(text) == json.loads(expected[table.version, seat])
    assert built == []  # every text was one prepared
    assert room.encoded is not None and room.encoded.version == tables[-1].version
    assert len(room.encoded.older) == render.KEEP_OLDER  # bounded


def test_a_room_with_a_browser_socket_here_is_not_prepared(settings):
    # Browsers' parts are drawn after the commit, from the last parts pushed (tables.live.render).
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

    class Browser:
        seat = 0
        wants_html = True

    rules = GAMES["ligretto"]
    table = _table("ligretto", 4, rules.new_match(4, None, 7), 1)
    room = LiveRoom(table.match.room_id)
    room.listeners.add(Browser())
    render.prepare(room, table)
    assert room.encoded is None


def test_with_other_processes_only_a_room_no_browser_reads_anywhere_is_prepared():
    # Another process's browser socket notes its language for the room (tables.languages)
    # before it draws its table: then this process draws the change after the commit, and
    # prepares nothing (tables.live.render.wants_html). While none did, only streams listen
    # anywhere: the texts are encoded while the row is written, as in one process.
    rules = GAMES["ligretto"]
    table = _table("ligretto", 4, rules.new_match(4, None, 7), 1)
    room = LiveRoom(table.match.room_id)
    render.prepare(room, table, alone=False)
    assert room.encoded is not None and room.encoded.version == table.version
    room = LiveRoom(table.match.room_id)
    languages.note(render.table_group(table.match.room_id), "de")
    render.prepare(room, table, alone=False)
    assert room.encoded is None
