"""What a reconnecting page missed (`LiveRoom.missed`), at the moment a change is durable (the
match row counts it) but not pushed yet: the room here applied it, so its push will reach the
socket that asks (it listens already), and the page gets the changes before it, not the whole
table. A change this room did not apply (made elsewhere, or before the room was read here) is
still missing: the whole table."""

from __future__ import annotations

import pytest

from tables.live import rooms
from tables.live.room import Delivery, LiveRoom
from tests.conftest import make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db


def _room_read_at(version: int | None = None) -> tuple[LiveRoom, int]:
    """A live room of a started match, its table read from the database; the version read."""
    room = started_room(make_user("alice"), [make_user("bob")])
    table = rooms.read(room.pk)
    assert table is not None
    if version is not None:
        table.match.version = version
    live = LiveRoom(room.pk)
    live.loaded(table)
    return live, table.version


def _pushed(live: LiveRoom, *versions: int) -> None:
    for version in versions:
        live.pushed_change(Delivery(live.room_id, version, {"parts": {}}))


def _applied(live: LiveRoom, version: int) -> None:
    """The room applied moves up to `version` (in memory; durable, not yet pushed)."""
    assert live.table is not None
    live.table.match.version = version


def test_a_change_durable_but_not_yet_pushed_here_comes_with_the_push():
    live, read = _room_read_at()
    _pushed(live, read + 1, read + 2, read + 3)
    _applied(live, read + 4)
    missed = live.missed(read + 1, read + 4)  # the row says 4: its push is on its way
    assert missed is not None
    assert [d.version for d in missed] == [read + 2, read + 3]


def test_nothing_pushed_since_the_page_and_the_rest_in_flight_is_nothing_to_send():
    live, read = _room_read_at()
    _pushed(live, read + 1)
    _applied(live, read + 2)
    assert live.missed(read + 1, read + 2) == []


def test_a_change_this_room_did_not_apply_is_missing():
    live, read = _room_read_at()
    _pushed(live, read + 1, read + 2)
    # The row is at 4, this room's table at 2: 3 and 4 were made by another process.
    assert live.missed(read, read + 4) is None


def test_a_change_made_before_the_room_was_read_here_is_missing():
    live, read = _room_read_at(version=10)
    # Nothing was pushed from here since it was read at 10 (an old push, 5, is kept): the
    # page at 5 missed 6 to 10, which no push here will bring.
    _pushed(live, 5)
    _applied(live, 12)
    assert live.missed(5, 12) is None


def test_every_change_pushed_here_is_sent_in_order():
    live, read = _room_read_at()
    _pushed(live, read + 1, read + 2, read + 3)
    missed = live.missed(read, read + 3)
    assert missed is not None
    assert [d.version for d in missed] == [read + 1, read + 2, read + 3]
    assert live.missed(read + 3, read + 3) == []
    assert live.missed(read + 4, read + 3) is None  # a page ahead of the row: drawn afresh
