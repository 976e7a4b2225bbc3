"""A stopping process hands its rooms over: real Daphne processes, the real PostgreSQL and Redis.

On SIGTERM a process tells its streams that the server restarts (then closes them with 1012),
writes what it took, releases its leases and tells the other processes, one of which claims
each room at once (cardgames.lifecycle). These tests stop an owner mid-play and check what the
issue of deploys asks: nothing acknowledged lost, the process gone within a bounded time even
with HTTP moves in flight, a player whose socket is open never marked away nor replaced after
a takeover (a SIGTERM or a SIGKILL), and the bots of a room going on as soon as its new owner
has it. Run by `make test-scale` (fails, never skips, without the services).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
import time
from typing import Any

import pytest
import websockets
from django.db import connections

from tables.models import ActionLog, Match, Player
from tests.conftest import make_user
from tests.devserver import stop_within
from tests.tables.helpers import started_room
from tests.tables.test_scale_owners import (
    FLIP,
    LEASE,
    Server,
    Stream,
    _act,
    _log,
    _other_knows_the_owner,
    _owned_by,
    _settle,
    _token,
    _wait,
)
from tests.tables.test_scale_owners import (
    servers as servers,  # the fixture
)

pytestmark = [pytest.mark.scale, pytest.mark.django_db(transaction=True)]

READY = {"type": "ready"}
GRACE = 3.0  # SHUTDOWN_GRACE of the processes (the default)
# A stopped process is gone within its grace, its applications' end and Python's exit; a bound
# on a wait (a hang fails the test), not a measure of speed.
EXIT_BOUND = GRACE + 5.0


def _fresh(query: Any) -> Any:
    try:
        return query()
    finally:
        connections.close_all()


def _player(room_id: int, seat: int) -> Player:
    return _fresh(lambda: Player.objects.get(match__room_id=room_id, seat=seat))


def _driver(room_id: int) -> str:
    return _fresh(lambda: Match.objects.get(room_id=room_id).driver)


def _stop(server: Server) -> float:
    """SIGTERM `server`; return the seconds it took to exit."""
    return stop_within(server.process, EXIT_BOUND)


class Mover:
    """Flips for one seat over HTTP in a thread, as fast as answers come, on the first of
    `ports` that answers (what a proxy does when a process is gone); keeps what was accepted."""

    def __init__(self, ports: list[int], room_id: int, token: str, seat: int) -> None:
        self.ports, self.room_id, self.token, self.seat = ports, room_id, token, seat
        self.acked: list[int] = []
        self.refused: list[str] = []
        self.longest = 0.0  # the longest time between two accepted moves
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        last = time.monotonic()
        action = FLIP
        while not self.done.is_set():
            for port in self.ports:
                status, body = _act(port, self.room_id, self.token, action)
                if status:
                    break
            # Refused: the round may be over (the bots won it): ready for the next, then on.
            action = READY if status != 200 and action is FLIP else FLIP
            if status == 200:
                now = time.monotonic()
                self.longest = max(self.longest, now - last)
                last = now
                self.acked.append(body["view"]["version"])
            elif status:
                self.refused.append(body["error"]["code"])
            time.sleep(0.02)

    def __enter__(self) -> Mover:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.done.set()
        self.thread.join(timeout=30)


async def _notice_then_close(uri: str, started: asyncio.Event) -> tuple[list[dict], int | None]:
    """A stream's messages until the server closes it, and its close code."""
    messages: list[dict] = []
    async with websockets.connect(uri, origin="http://localhost", max_size=None) as socket:
        started.set()
        try:
            async for frame in socket:
                messages.append(json.loads(frame))
        except websockets.ConnectionClosed:
            pass
        return messages, socket.close_code


def test_a_sigterm_hands_the_room_over_at_once_and_loses_nothing(servers):
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="ligretto", bots=2, rounds=5)
    ta, tb = _token(alice), _token(bob)
    env = {"LEAVER_GRACE": "30"}  # a stand-in after 30 s away, as on the site
    owner = servers.start("owner", BOT_PACE="1", **env)  # bots at a person's pace
    _owned_by(owner, room.pk)
    other = servers.start("other", BOT_PACE="1", **env)
    _other_knows_the_owner()
    uri = f"ws://127.0.0.1:{owner.port}/ws/api/v1/rooms/{room.pk}/?token={ta}"

    async def run() -> tuple[list[dict], int | None, float, Mover, Mover]:
        opened = asyncio.Event()
        watch = asyncio.create_task(_notice_then_close(uri, opened))
        await opened.wait()
        async with Stream(other.port, room.pk, tb) as sb:
            await _settle(room.pk, sb)
            with (
                Mover([owner.port, other.port], room.pk, ta, 0) as ma,
                Mover([other.port], room.pk, tb, 1) as mb,
            ):
                await asyncio.sleep(1.0)
                took = await asyncio.to_thread(_stop, owner)
                await asyncio.to_thread(_wait, lambda: _driver(room.pk) == _id_of(other), "claim")
                await asyncio.sleep(2.0)  # play goes on at the other process
            messages, code = await watch
        return messages, code, took, ma, mb

    messages, code, took, ma, mb = asyncio.run(run())
    print(
        f"\nSIGTERM to exit: {took:.2f} s; longest wait between accepted moves:"
        f" alice {ma.longest:.2f} s, bob {mb.longest:.2f} s"
    )
    # The stream was told before its socket closed, with the code that says: come back.
    assert messages[-1]["type"] == "restart", messages[-3:]
    assert messages[-1]["message"]
    assert code == 1012
    # Nothing acknowledged is lost: every accepted version is in the log, once.
    log = _fresh(lambda: _log(room.pk))
    for version in ma.acked + mb.acked:
        assert version in log
    assert ma.acked and mb.acked, (ma.refused[-5:], mb.refused[-5:])
    # Both kept playing after the stop, and nobody got a stand-in for it.
    after = _fresh(lambda: ActionLog.objects.filter(match__room_id=room.pk, refused="").count())
    assert after >= len(ma.acked) + len(mb.acked)
    for seat in (0, 1):
        assert not _player(room.pk, seat).stand_in


def _id_of(server: Server) -> str:
    """The process id as leases name it ("host:pid:hex"): found from the database."""
    drivers = _fresh(lambda: list(Match.objects.values_list("driver", flat=True)))
    for driver in drivers:
        if driver and int(driver.split(":")[1]) == server.process.pid:
            server.id = driver
    return server.id or f"?:{server.process.pid}"


def test_the_new_owners_bots_play_on_as_soon_as_it_has_the_room(servers):
    alice = make_user("alice")
    room = started_room(alice, [], game="ligretto", bots=3, rounds=20)
    # Alice left: a bot plays her seat too, so no round ever waits for a person's ready.
    Player.objects.filter(match__room=room, seat=0).update(left=True, bot_level="normal")
    owner = servers.start("owner", BOT_PACE="0.05")
    _owned_by(owner, room.pk)
    other = servers.start("other", BOT_PACE="0.05")
    _other_knows_the_owner()
    time.sleep(1.0)
    _stop(owner)
    _wait(lambda: _driver(room.pk) == _id_of(other), "the other process never claimed the room")
    claimed = time.monotonic()

    def bots_moved() -> bool:
        rows = ActionLog.objects.filter(match__room_id=room.pk, by_bot=True, driver=other.id)
        return _fresh(rows.exists)

    _wait(bots_moved, "the new owner's bots never moved", seconds=10)
    took = time.monotonic() - claimed
    print(f"\nfirst bot move by the new owner {took:.2f} s after its claim was seen")
    # The bound: within a second of the new owner taking the room (measured here from
    # when this test saw the claim, which it polls every 0.1 s).
    assert took <= 1.0, took


# After a SIGKILL takeover the connected player was once marked away (away_since set) on
# 5 December. Its likely cause was mended that evening (7717fb1: a process's sweep took its own
# presence rows for a dead process's when its heartbeat, which shares the driver's thread with
# the takeover, was late). The case was kept as a non-strict expected failure until runs showed
# it gone: it passed in every run recorded since (docs/performance.md, loaded runs among them)
# and in 10 runs in a row of its own on 7 December; it is a plain test again.
@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_after_a_takeover_a_player_whose_socket_is_open_is_never_away_nor_replaced(servers, how):
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="ligretto-mini", rounds=5)
    # A new match counts its humans away from its start until their pages connect; here their
    # streams connect only once both processes run, which took longer than the short grace on
    # a loaded machine: stand-ins then played the whole match before the takeover (CI). The
    # claim is about players whose sockets are open, so they start as present.
    Player.objects.filter(match__room_id=room.pk).update(away_since=None)
    ta, tb = _token(alice), _token(bob)
    env = {"LEAVER_GRACE": "4"}  # short: a wrong stand-in would show within the test
    owner = servers.start("owner", **env)
    _owned_by(owner, room.pk)
    other = servers.start("other", **env)
    _other_knows_the_owner()

    async def run() -> None:
        # Both players' streams on the other process: open all along.
        async with Stream(other.port, room.pk, ta) as sa, Stream(other.port, room.pk, tb) as sb:
            await _settle(room.pk, sa, sb)
            if how == "SIGTERM":
                await asyncio.to_thread(_stop, owner)
            else:
                os.kill(owner.process.pid, signal.SIGKILL)
                owner.process.wait()
            await asyncio.to_thread(
                _wait, lambda: _driver(room.pk) == _id_of(other), "no takeover", 20
            )
            # Past the dead owner's lease (its presence rows are swept) and past the grace.
            end = time.monotonic() + LEASE + 5.0
            while time.monotonic() < end:
                for seat in (0, 1):
                    player = await asyncio.to_thread(_player, room.pk, seat)
                    assert player.connections >= 1, (seat, player.connections)
                    assert player.away_since is None, (seat, player.away_since)
                    assert not player.stand_in, seat
                await asyncio.sleep(0.25)
            # And the players still play, at their new owner.
            status, body = await asyncio.to_thread(_act, other.port, room.pk, ta, FLIP)
            assert status == 200, body

    asyncio.run(run())


def test_a_process_with_http_moves_in_flight_exits_soon_after_sigterm(servers):
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="ligretto-mini", rounds=20)
    ta, tb = _token(alice), _token(bob)
    only = servers.start("only")
    _owned_by(only, room.pk)
    movers = [Mover([only.port], room.pk, token, seat) for seat, token in ((0, ta), (1, tb))]
    for mover in movers:
        mover.thread.start()
    _wait(lambda: all(m.acked for m in movers), "no move was accepted")
    took = _stop(only)
    for mover in movers:
        mover.__exit__()
    print(f"\nSIGTERM to exit with moves in flight: {took:.2f} s")
    log = _fresh(lambda: _log(room.pk))
    for mover in movers:
        for version in mover.acked:
            assert version in log
