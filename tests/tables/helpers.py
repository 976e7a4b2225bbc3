"""Rooms with a started match, a way to lay out the cards, and sockets to the table."""

from __future__ import annotations

import contextlib
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from channels.testing import WebsocketCommunicator
from django.conf import settings

from cardgames.asgi import application
from games.registry import GAMES
from lobby import services
from tables import current
from tables.live import rooms
from tables.models import Match

ORIGIN = [(b"origin", b"http://localhost"), (b"host", b"localhost")]


def started_room(host, others=(), game: str = "ligretto-mini", bots: int = 0, **options: Any):
    """Open, fill and start a room: `host` and `others` seated in order, then `bots` bots."""
    seats = 1 + len(others) + bots
    room = services.create_room(host, game, seats, options or None)
    for user in others:
        services.join_room(room.pk, user)
    if bots:
        services.add_bots(room.pk, host, count=bots, level="normal")
    services.start_room(room.pk, host)
    return room


def set_state(room_id: int, change) -> None:
    """Rewrite the current round's state with `change(dump) -> dump` (a new version)."""
    match = Match.objects.get(room_id=room_id)
    rnd = match.rounds.order_by("-number").first()
    data = change(rnd.state)
    game = GAMES[match.game]
    rnd.state = game.dump(game.load(data))
    match.version += 1
    rnd.version = match.version
    rnd.save()
    match.save()
    # Behind the room actor's back: it must read the table again.
    rooms.forget(room_id)


def dumped_state(room_id: int) -> dict[str, Any]:
    """The room's engine state as JSON, as it stands now (the last snapshot plus the log)."""
    table = rooms.read(room_id)
    return table.game.dump(table.state)


def card(color: str, value: int, owner: int) -> list[Any]:
    return [color, value, owner]


def race_layout(data: dict[str, Any]) -> dict[str, Any]:
    """Both players hold a red 4 on row slot 0; one red pile topped by a 3 waits in the centre.

    A green 1 beside it, so that the table is never at a standstill; the stack's top is pinned
    (the slot played from is refilled from it: a red 4 there, from the room's own deal, would
    leave the row unchanged and out of the push)."""
    for seat, player in enumerate(data["players"]):
        player["row"][0] = [card("red", 4, seat)]
        player["row"][1] = [card("green", 1, seat)]
        player["stack"][-1] = card("yellow", 7, seat)
    data["center"] = [
        {"color": "red", "cards": [card("red", v, 0) for v in (1, 2, 3)], "closed": False}
    ]
    data.update(status="playing", scores=[], ready=[], end_reason=None, end_message=None)
    return data


class TableSocket(WebsocketCommunicator):
    """A table socket that remembers the newest table version among the frames read from it."""

    seen = -1

    async def receive_from(self, timeout: float = 1) -> str:
        frame = await super().receive_from(timeout)
        if isinstance(frame, str) and 'data-version="' in frame:
            self.seen = max(self.seen, version_of(frame))
        return frame


async def table_socket(room_id: int, user=None) -> TableSocket:
    communicator = TableSocket(application, f"/ws/rooms/{room_id}/table/", headers=ORIGIN)
    if user is not None:
        communicator.scope["user"] = user
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


def version_of(html: str) -> int:
    start = html.index('data-version="') + len('data-version="')
    return int(html[start : html.index('"', start)])


def table(room_id: int) -> current.Table:
    return rooms.read(room_id)


@contextlib.contextmanager
def two_daphnes(folder: Path, bot_pace: str) -> Iterator[list[tuple[int, Any, Any]]]:
    """Two Daphne processes on this test's PostgreSQL database and the Redis layer (the scale
    suite's), bots at `bot_pace`: [(port, process, log)], stopped at the end."""
    from django.db import connection

    from tests.devserver import free_port, start_daphne, stop

    assert connection.vendor == "postgresql", "set DATABASE_URL to a PostgreSQL database"
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"].startswith("channels_redis"), "REDIS_URL"
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "BOT_PACE": bot_pace,
        "LEAVER_GRACE": "0",
        "END_UNWATCHED": "False",  # stand-ins at once play on tables nobody has open
        "TABLE_COUNTDOWN": "0",
        "DRIVER_LEASE": "2",
    }
    servers = []
    try:
        for name in ("a", "b"):
            port = free_port()
            log = open(folder / f"daphne-{name}.log", "w")  # noqa: SIM115 - closed below
            servers.append((port, start_daphne(port, env, log), log))
        yield servers
    finally:
        for _, process, log in servers:
            if process.poll() is None:
                stop(process)
            log.close()


def wake(port: int) -> None:
    """A process starts its bot driver with the first request it serves."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as answer:
        assert answer.status == 200
