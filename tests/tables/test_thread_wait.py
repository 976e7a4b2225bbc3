"""A thread that hands a move to the server loop waits for it at most THREAD_WAIT seconds: a loop
that stopped answering (the server is shutting down) must not hold a request thread, and with
it the process, for ever."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tables import play
from tables.live import rooms


@pytest.mark.django_db
def test_a_move_from_a_thread_is_refused_when_the_loop_does_not_answer(settings):
    settings.THREAD_WAIT = 0.2
    loop = asyncio.new_event_loop()
    release = threading.Event()
    running = threading.Event()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        rooms.bind(loop)
        loop.call_soon(running.set)
        loop.call_soon(release.wait)  # the loop is stuck, as one that stops at shutdown
        loop.run_forever()

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    assert running.wait(5)
    try:
        with pytest.raises(play.PlayError) as refused:
            play.act(1, 0, {"type": "flip"})
        assert refused.value.code == "unavailable" and refused.value.status == 503
    finally:
        release.set()
        # What was handed over meanwhile runs (and ends) before the loop stops.
        asyncio.run_coroutine_threadsafe(asyncio.sleep(0.1), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        server.join(5)
        loop.close()


@pytest.mark.django_db
def test_once_the_server_stops_a_move_is_refused_and_never_written_inline(monkeypatch):
    """After the graceful stop the loop ends (no server loop any more): a request thread still
    running must not write its move inline, behind the room's next owner (tables.play.abandon)."""
    from tables.models import ActionLog
    from tests.conftest import make_user
    from tests.tables.helpers import started_room

    room = started_room(make_user("alice"), [make_user("bob")], game="ligretto-mini")
    assert rooms.serving_loop() is None  # no server here: the move would be written inline
    play.abandon()  # this test's own live server stops (tests/conftest.py)
    with pytest.raises(play.PlayError) as refused:
        play.act(room.pk, 0, {"type": "flip"})
    assert refused.value.code == "unavailable" and refused.value.status == 503
    with pytest.raises(play.PlayError):
        play.touch(room.pk, lambda table: True)
    assert not ActionLog.objects.filter(match__room_id=room.pk).exists()
