"""No torn reads: whatever a reader gets is the table at the version it is labelled with.

A mover thread plays a match's bots as fast as it can (and counts a player in and out, which
changes the version without a move); meanwhile the Board API's view and the table page are
read over and over. Each answer's content must be exactly the state replayed from the seed
and the action log up to its label (G1), never a move newer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import threading

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.test import Client

from api.models import ApiToken
from games.engine import IllegalAction
from games.registry import GAMES
from tables import current, play, presence
from tables.live import rooms
from tables.models import ActionLog, Match
from tests.api.helpers import Api, stream
from tests.tables.helpers import started_room

# What a view says of the engine's state (the rest is the room's: names, presence, times).
ENGINE_FIELDS = ("center", "tableaus", "legal", "round", "scores", "totals", "message")


def _state_at(match: Match, version: int):
    """The engine state of `match` at `version`: its deal, then every logged move up to it."""
    game = GAMES[match.game]
    state = game.new_match(len(match.players.all()), match.options, match.seed)
    moves = ActionLog.objects.filter(match=match, refused="", version__lte=version)
    for seat, action in moves.order_by("version").values_list("seat", "action"):
        state, _ = game.apply(state, seat, action)
    return state


def _engine_part(view: dict) -> dict:
    return {k: view[k] for k in ENGINE_FIELDS if k in view}


def _play(room_id: int, moves: int, done: threading.Event) -> None:
    rng = random.Random(7)
    try:
        for n in range(moves):
            table = rooms.read(room_id)
            if table.match.status != Match.Status.PLAYING:
                return
            if n % 10 == 0:  # a version without a move
                presence.connected(room_id, 0)
                presence.disconnected(room_id, 0)
            for p in table.players:
                if not p.is_bot:
                    continue
                action, _ = table.game.bot_choose(table.view(p.seat), "fast", rng)
                if action is not None:
                    with contextlib.suppress(IllegalAction):  # too slow, or the round ended
                        play.act(room_id, p.seat, action, by_bot=True)
    finally:
        done.set()
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_reads_while_moves_are_applied_are_never_newer_than_their_label(alice, settings):
    settings.TABLE_COUNTDOWN = 0
    room = started_room(alice, game="ligretto", bots=3, rounds=1)
    match = Match.objects.get(room=room)
    done = threading.Event()
    mover = threading.Thread(target=_play, args=(room.pk, 250, done))
    api, page = Api(alice), Client()
    page.force_login(alice)
    mover.start()
    reads = {"api": 0, "page": 0}
    try:
        while not done.is_set():
            view = api.get(f"rooms/{room.pk}/view").json()
            expected = current.Table(match, [], _state_at(match, view["version"]))
            assert _engine_part(view) == _engine_part(
                expected.game.player_view(expected.state, 0)
            ), f"the API's view labelled {view['version']} is another version's"
            reads["api"] += 1
            # The page template's own context (its partials draw parts of other views).
            response = page.get(f"/rooms/{room.pk}/")
            names = [t.name for t in response.templates]
            drawn = response.context[names.index(expected.game.layout.TEMPLATE)]["view"]
            assert drawn["seat"] == 0
            state = _state_at(match, drawn["version"])
            assert _engine_part(drawn) == _engine_part(expected.game.player_view(state, 0)), (
                f"the page labelled {drawn['version']} is another version's"
            )
            reads["page"] += 1
    finally:
        mover.join(timeout=60)
    assert reads["api"] > 5 and reads["page"] > 5
    assert Match.objects.get(pk=match.pk).version > 50  # the reads really ran beside moves


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_streams_views_while_moves_are_applied_are_never_newer_than_their_label(
    alice, eve, settings
):
    settings.TABLE_COUNTDOWN = 0
    room = await sync_to_async(started_room)(alice, game="ligretto", bots=3, rounds=1)
    match = await sync_to_async(Match.objects.get)(room=room)
    _, token = await sync_to_async(ApiToken.objects.issue)(eve, "tests")
    watcher = await stream(room.pk, token)
    rng = random.Random(3)

    async def play() -> None:
        for _ in range(150):
            table = await rooms.table_now(room.pk)
            if table is None or table.match.status != Match.Status.PLAYING:
                return
            moves = []
            for p in table.players:
                action, _ = table.game.bot_choose(table.view(p.seat), "fast", rng)
                if action is not None:
                    moves.append(rooms.act(room.pk, p.seat, action, by_bot=True))
            await asyncio.gather(*moves, return_exceptions=True)

    mover = asyncio.create_task(play())
    views = []
    while not mover.done() or not await watcher.receive_nothing(timeout=0.3):
        if await watcher.receive_nothing(timeout=0.05):
            continue
        message = json.loads(await watcher.receive_from())
        if message["type"] == "view":
            views.append(message["view"])
    await mover
    await watcher.disconnect()
    # 125 to 222 views alone on this machine; 7 once beside the whole fast suite and the
    # equalisation test: enough to check, as the page and API reads above (more than five).
    assert len(views) > 5

    def check() -> None:
        game = GAMES[match.game]
        for view in views:
            state = _state_at(match, view["version"])
            assert _engine_part(view) == _engine_part(game.player_view(state, None)), (
                f"the stream's view labelled {view['version']} is another version's"
            )

    await sync_to_async(check)()
