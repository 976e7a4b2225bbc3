"""A match whose humans all left stops at once, tells its watchers why, and counts for no one."""

from __future__ import annotations

import pytest
from django.utils import translation

from lobby import services
from lobby.models import Room
from tables import history
from tables.live import render, rooms
from tables.models import Match
from tests.conftest import make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db


def test_when_the_last_human_leaves_the_match_is_abandoned_at_once():
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="ligretto", bots=1)
    services.leave_room(room.pk, alice)
    match = Match.objects.get(room=room)
    assert match.status == Match.Status.PLAYING  # bob plays on with two bots

    services.leave_room(room.pk, bob)
    room.refresh_from_db()
    match.refresh_from_db()
    assert room.status == Room.Status.CLOSED
    assert match.status == Match.Status.CLOSED
    assert match.closed_reason == room.closed_reason == services.ABANDONED

    # Anyone watching gets the reason instead of a frozen "play!" (the same parts a socket gets).
    table = rooms.read(room.pk)
    assert table.view(None)["status"] == "closed"
    html = render.render_full(table, None)
    assert services.ABANDONED in html and "play!" not in html
    # Closed: no winner, in no one's record or on any leaderboard.
    for user in (alice, bob):
        records, _ = history.player_record(user)
        assert records == []
    assert history.leaderboard("ligretto") == []


def test_a_ban_of_the_last_human_abandons_the_match_too():
    alice = make_user("alice")
    room = started_room(alice, [], game="ligretto", bots=1)
    services.vacate_seats(alice)
    assert Match.objects.get(room=room).status == Match.Status.CLOSED


def test_an_abandoned_tables_reason_is_worded_for_each_reader():
    alice = make_user("alice")
    room = started_room(alice, [], game="ligretto", bots=1)
    services.leave_room(room.pk, alice)
    table = rooms.read(room.pk)
    with translation.override("ru"):
        html = render.render_full(table, None)
        russian = translation.gettext(services.ABANDONED)
    assert russian != services.ABANDONED and russian in html
    assert services.ABANDONED not in html
