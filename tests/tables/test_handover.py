"""What a takeover charges nobody for, and presence as the sum of every process's sockets.

A process that stops gracefully releases its leases with the moment it handed them over
(`Match.paused_at`); one that dies leaves a lease that runs out. The driver that claims such a
room next moves an away player's grace and a countdown on by the time the room had no owner
(tables.driver.resume). A seat's sockets are the sum of its presence rows, so a dead process
takes only its own sockets with it (tables.presence). The real processes: tests/deploy.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tables import presence
from tables.driver import Driver, release_all
from tables.models import Match, Player, Presence
from tests.conftest import make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db(transaction=True)


def _room_of_two():
    return started_room(make_user("alice"), [make_user("bob")])


def test_a_room_handed_over_gives_its_away_player_the_time_nobody_owned_it(settings):
    settings.LEAVER_GRACE = 30
    room = _room_of_two()
    now = timezone.now()
    # Bob has been away for 20 s; his room's owner handed it over 10 s ago.
    Player.objects.filter(match__room=room, seat=1).update(away_since=now - timedelta(seconds=20))
    Player.objects.filter(match__room=room, seat=0).update(away_since=None)
    Match.objects.filter(room=room).update(
        driver="", driver_until=None, paused_at=now - timedelta(seconds=10)
    )
    driver = Driver()
    assert driver.claim() == {room.pk}
    bob = Player.objects.get(match__room=room, seat=1)
    # He is charged the 10 s before the handover, not the 10 s after it.
    away = (timezone.now() - bob.away_since).total_seconds()
    assert 9 < away < 12, away
    assert Player.objects.get(match__room=room, seat=0).away_since is None
    assert Match.objects.get(room=room).paused_at is None  # claimed: no pause any more
    assert presence.replace_absent(room.pk) is None  # nobody is due a stand-in


def test_a_dead_owners_room_counts_its_pause_from_the_lease_s_last_renewal(settings):
    settings.LEAVER_GRACE = 30
    settings.DRIVER_LEASE = 5
    room = _room_of_two()
    now = timezone.now()
    Player.objects.filter(match__room=room, seat=1).update(away_since=now - timedelta(seconds=25))
    Player.objects.filter(match__room=room, seat=0).update(away_since=None)
    # Its owner renewed the lease last 12 s ago and died: the lease ran out 7 s ago.
    Match.objects.filter(room=room).update(
        driver="dead:1:x", driver_until=now - timedelta(seconds=7), paused_at=None
    )
    Driver().claim()
    bob = Player.objects.get(match__room=room, seat=1)
    away = (timezone.now() - bob.away_since).total_seconds()
    assert 12 < away < 15, away  # 25 s away, less the 12 s the room had no owner


def test_a_countdown_goes_on_where_it_stood_after_a_handover(settings):
    room = _room_of_two()
    now = timezone.now()
    # The countdown had 2 s to go when the room was handed over, 4 s ago.
    Match.objects.filter(room=room).update(
        starts_at=now - timedelta(seconds=2), paused_at=now - timedelta(seconds=4), driver=""
    )
    Driver().claim()
    left = (Match.objects.get(room=room).starts_at - timezone.now()).total_seconds()
    assert 1 < left <= 2, left


def test_a_new_match_claimed_for_the_first_time_is_not_moved():
    room = _room_of_two()
    starts_at = Match.objects.get(room=room).starts_at
    Driver().claim()
    assert Match.objects.get(room=room).starts_at == starts_at


def test_release_all_marks_the_handover_and_frees_the_lease():
    room = _room_of_two()
    driver = Driver()
    driver.claim()
    assert release_all(driver.id) == [room.pk]
    match = Match.objects.get(room=room)
    assert match.driver == "" and match.driver_until is None and match.paused_at is not None


def test_a_dead_process_takes_only_its_own_sockets_with_it(settings):
    settings.LEAVER_GRACE = 30
    room = _room_of_two()
    # Bob's page had a socket on a process that died, and has reconnected to this one.
    presence.connected(room.pk, 1)
    bob = Player.objects.get(match__room=room, seat=1)
    long_ago = timezone.now() - timedelta(seconds=60)
    Presence.objects.create(player=bob, process="dead:1:x", sockets=1, seen_at=long_ago)
    Player.objects.filter(pk=bob.pk).update(connections=2)
    presence.replace_absent(room.pk)
    bob.refresh_from_db()
    assert bob.connections == 1 and bob.away_since is None and not bob.stand_in


def test_a_late_heartbeat_never_sweeps_this_processs_own_sockets(settings):
    """The heartbeat shares the driver's thread: a long takeover can hold it past the lease.
    This process's own rows then look old, but its sockets are open: they stay counted."""
    settings.LEAVER_GRACE = 30
    room = _room_of_two()
    presence.connected(room.pk, 1)
    long_ago = timezone.now() - timedelta(seconds=60)
    Presence.objects.filter(process=presence.PROCESS).update(seen_at=long_ago)
    assert room.pk not in presence.stale_rooms()
    assert presence.replace_absent(room.pk) in (None, [])
    bob = Player.objects.get(match__room=room, seat=1)
    assert bob.connections == 1 and bob.away_since is None and not bob.stand_in
    assert Presence.objects.filter(process=presence.PROCESS, player=bob).exists()


def test_a_stopping_process_uncounts_its_sockets_at_once_and_only_those():
    room = _room_of_two()
    presence.connected(room.pk, 0)
    presence.connected(room.pk, 1)
    alice = Player.objects.get(match__room=room, seat=0)
    # Alice also has a page on another process, which stays.
    Presence.objects.create(player=alice, process="other:2:y", sockets=1, seen_at=timezone.now())
    version = Match.objects.get(room=room).version
    assert presence.leave_process() == [room.pk]
    alice.refresh_from_db()
    bob = Player.objects.get(match__room=room, seat=1)
    assert alice.connections == 1 and alice.away_since is None
    assert bob.connections == 0 and bob.away_since is not None  # his grace runs from now
    assert not Presence.objects.filter(process=presence.PROCESS).exists()
    assert Match.objects.get(room=room).version == version + 1
