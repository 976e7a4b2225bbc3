"""Tables nobody is at leave the lobby (issue 45 item 6): a match with no person and no
spectator left ends, abandoned, within the away grace; a rematch nobody came to expires."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from lobby import services
from lobby.models import Room
from tables import history, play, presence
from tables.driver import MatchBots
from tables.live import rooms
from tables.models import Match, Player
from tests.conftest import make_user
from tests.history.factories import played_match
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db(transaction=True)


def being_played() -> str:
    """The lobby's "Being played" list, as a visitor's page has it."""
    page = Client().get(reverse("lobby:index")).content.decode()
    return page.split('id="playing-rooms-heading"')[1]


class Spectator:
    """A spectator's socket in this process, as the room sees one: it listens, wants nothing."""

    seat = None
    wants_html = False

    def deliver_now(self, delivery: object) -> bool:
        return True

    async def deliver(self, delivery: object) -> None:
        return None


def away_for(room: Room, seconds: float) -> None:
    """The room's people closed their tabs `seconds` ago."""
    Player.objects.filter(match__room=room, user__isnull=False).update(
        away_since=timezone.now() - timedelta(seconds=seconds), connections=0
    )
    rooms.forget(room.pk)  # the rows changed behind the room's back


def test_a_practice_table_nobody_is_at_leaves_being_played_within_the_away_grace(settings):
    settings.END_UNWATCHED = True
    settings.LEAVER_GRACE = 30
    alice = make_user("alice")
    room = started_room(alice, game="ligretto", bots=2)
    away_for(room, 5)  # she closed the tab 5 s ago: within the grace, the table waits
    bots = MatchBots(room.pk)
    bots.step()
    assert Match.objects.get(room=room).status == Match.Status.PLAYING
    assert f'id="room-{room.pk}"' in being_played()

    # The grace is over for her and for the (absent) spectators as the driver saw them.
    settings.LEAVER_GRACE = 0
    away_for(room, 1)
    bots.next_check = 0.0
    assert bots.step() is None  # the driver is done with it
    match = Match.objects.get(room=room)
    room.refresh_from_db()
    assert match.status == Match.Status.CLOSED and room.status == Room.Status.CLOSED
    assert match.closed_reason == room.closed_reason == presence.ABANDONED
    assert f'id="room-{room.pk}"' not in being_played()
    records, _ = history.player_record(alice)
    assert records == []  # abandoned: in no one's record


def test_a_table_with_a_person_or_a_spectator_plays_on(settings):
    settings.END_UNWATCHED = True
    settings.LEAVER_GRACE = 0
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="ligretto", bots=1)
    away_for(room, 1)
    Player.objects.filter(match__room=room, user=bob).update(connections=1, away_since=None)
    rooms.forget(room.pk)
    bots = MatchBots(room.pk)
    bots.step()  # bob is there: nothing ends
    assert Match.objects.get(room=room).status == Match.Status.PLAYING

    away_for(room, 1)  # bob goes too, but a spectator's socket listens to the room
    spectator = Spectator()
    asyncio.run(rooms.here().listen(room.pk, spectator))
    bots.next_check = 0.0
    assert bots.step() is not None
    assert Match.objects.get(room=room).status == Match.Status.PLAYING
    assert f'id="room-{room.pk}"' in being_played()
    rooms.unlisten(room.pk, spectator)


def test_a_started_table_nobody_ever_opened_ends_after_the_grace(settings):
    settings.END_UNWATCHED = True
    settings.LEAVER_GRACE = 30
    alice = make_user("alice")
    room = started_room(alice, game="ligretto-mini", bots=1)
    table = rooms.read(room.pk)
    now = timezone.now()
    # She never opened it: no socket, no away mark; the grace counts from the match's start.
    assert not presence.nobody_there(table, now, 30)
    assert presence.nobody_there(table, now + timedelta(seconds=31), 30)
    # A Board API player moves over HTTP, with no socket: her move counts as being there.
    view = table.view(0)
    action, _ = table.game.bot_choose(view, "normal", random.Random(1))
    assert action is not None
    play.act(room.pk, 0, action)
    later = timezone.now() + timedelta(seconds=29)
    assert not presence.end_unwatched(room.pk, rooms.read(room.pk), later)
    assert presence.end_unwatched(room.pk, rooms.read(room.pk), later + timedelta(seconds=2))
    room.refresh_from_db()
    assert room.status == Room.Status.CLOSED


def test_a_rematch_nobody_came_to_expires_and_leaves_the_lobby(settings, alice, bob):
    settings.REMATCH_EXPIRY = 600
    old = played_match("ligretto-mini", [alice, bob], [[1, 2]], options={"rounds": 1}).room
    waiting = services.rematch(old.pk, alice)
    lobby = Client().get(reverse("lobby:index")).content.decode()
    assert f'id="room-{waiting.pk}"' in lobby  # young: it waits for bob
    Room.objects.filter(pk=waiting.pk).update(created_at=timezone.now() - timedelta(minutes=11))

    lobby = Client().get(reverse("lobby:index")).content.decode()  # the lobby's sweep
    assert f'id="room-{waiting.pk}"' not in lobby
    waiting.refresh_from_db()
    assert waiting.status == Room.Status.CLOSED and waiting.closed_reason == services.EXPIRED


def test_a_rematch_someone_joined_waits_for_its_start(settings, alice, bob):
    settings.REMATCH_EXPIRY = 0
    old = played_match("ligretto-mini", [alice, bob], [[1, 2]], options={"rounds": 1}).room
    waiting = services.rematch(old.pk, alice)
    services.rematch(old.pk, bob)  # bob came: it is a real room now
    assert services.expire_unopened() == []
    waiting.refresh_from_db()
    assert waiting.status == Room.Status.OPEN
