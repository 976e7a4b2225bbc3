"""Races between people acting at once, on whichever database the run uses.

On SQLite the write lock taken at BEGIN serialises them; on PostgreSQL (`make test-scale`)
the room row's FOR UPDATE lock does.
"""

from __future__ import annotations

import threading
from functools import partial

import pytest
from django.db import connections

from games.engine import IllegalAction
from lobby import services
from lobby.models import Room
from tables import play
from tests.conftest import make_user
from tests.tables.helpers import set_state, started_room


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


def _at_once(*calls) -> list[str]:
    """Run each call in its own thread, released together; return each one's outcome."""
    barrier = threading.Barrier(len(calls))
    outcomes = [""] * len(calls)

    def run(i: int) -> None:
        barrier.wait()
        try:
            calls[i]()
            outcomes[i] = "done"
        except (IllegalAction, services.RoomError) as refusal:
            outcomes[i] = refusal.code
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def _last_card(data):
    data["players"][0]["stack"] = [["yellow", 1, 0]]
    return data


@pytest.mark.django_db(transaction=True)
def test_closing_a_room_as_its_last_move_ends_the_match_settles_one_of_the_two():
    # The move locks the match, then the room (the match ends); the close must take them in the
    # same order, or PostgreSQL may find the two waiting on each other (a deadlock).
    alice, bob = make_user("alice"), make_user("bob")
    for _ in range(6):
        room = started_room(alice, [bob], game="ligretto-mini")
        set_state(room.pk, _last_card)
        play.act(room.pk, 0, {"type": "play", "from": "stack"})  # the round (and only one) ends
        play.act(room.pk, 0, {"type": "ready"})
        ready, close = _at_once(
            partial(play.act, room.pk, 1, {"type": "ready"}),  # the match ends: room finished
            partial(services.close_room, room.pk, alice, "time to go"),
        )
        status = Room.objects.get(pk=room.pk).status
        assert (ready, close, status) in (
            ("done", "room_over", "finished"),
            ("room_closed", "done", "closed"),
        )
