"""Races between people acting at once, on whichever database the run uses.

On SQLite the write lock taken at BEGIN serialises them; on PostgreSQL (`make test-scale`)
the room row's FOR UPDATE lock does.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from lobby import services
from tests.conftest import make_user


@pytest.mark.django_db(transaction=True)
def test_simultaneous_joins_fill_each_seat_exactly_once():
    alice = make_user("alice")
    room = services.create_room(alice, "ligretto", 4)
    players = [make_user(f"p{i}") for i in range(8)]
    barrier = threading.Barrier(len(players))
    outcomes: list[str] = []

    def join(user) -> None:
        barrier.wait()
        try:
            services.join_room(room.pk, user)
            outcomes.append("joined")
        except services.RoomError as refusal:
            outcomes.append(refusal.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=join, args=(user,)) for user in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["joined"] * 3 + ["room_full"] * 5
    indices = sorted(room.seat_set.values_list("index", flat=True))
    assert indices == [0, 1, 2, 3]
