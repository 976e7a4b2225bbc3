"""Bots play whole matches through the write path; leavers get a stand-in and their seat back."""

from __future__ import annotations

import pytest

from lobby.models import Room
from tables import play, presence
from tables.driver import MatchBots
from tables.live import render, rooms
from tables.models import ActionLog, Match, RoundScore
from tests.conftest import make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db(transaction=True)


def drive_to_end(room_id: int, limit: int = 200_000) -> int:
    """Step the room's bots (at full speed) until the match ends; return the steps taken."""
    bots = MatchBots(room_id)
    for step in range(limit):
        if bots.step() is None:
            return step
    raise AssertionError(f"the match in room {room_id} did not end in {limit} steps")


def test_a_twelve_seat_ligretto_match_with_bots_plays_to_its_end(settings):
    settings.LEAVER_GRACE = 0  # the host never opens the table: a bot stands in at once
    alice = make_user("alice")
    room = started_room(alice, game="ligretto", bots=11, rounds=2)
    drive_to_end(room.pk)

    match = Match.objects.get(room_id=room.pk)
    assert match.status == Match.Status.FINISHED and match.finished_at is not None
    assert Room.objects.get(pk=room.pk).status == Room.Status.FINISHED
    table = rooms.read(room.pk)
    assert table.state.status == "finished"
    # The score rows agree with the engine's score sheet, round by round and seat by seat.
    for number, points in enumerate(table.state.scores, start=1):
        rows = RoundScore.objects.filter(round__match=match, round__number=number)
        assert [r.points for r in rows.order_by("seat")] == list(points)
    assert match.rounds.count() == 2
    # Every applied action is logged once, in version order, each by a bot; a play that lost
    # a race is logged too, marked refused (L12), at the version it was judged at.
    applied = ActionLog.objects.filter(match=match, refused="")
    versions = list(applied.values_list("version", flat=True))
    assert versions == sorted(set(versions)) and len(versions) > 24
    refused = set(ActionLog.objects.exclude(refused="").values_list("refused", flat=True))
    assert refused <= {"too_slow"}
    assert not ActionLog.objects.filter(match=match, by_bot=False).exists()


def test_a_leaver_is_replaced_after_the_grace_period_and_gets_his_seat_back(settings):
    settings.LEAVER_GRACE = 30
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob])
    presence.connected(room.pk, 0)
    presence.connected(room.pk, 1)
    presence.disconnected(room.pk, 1)

    assert not presence.replace_absent(room.pk)  # within the grace period: still his seat
    settings.LEAVER_GRACE = 0
    assert presence.replace_absent(room.pk) == [1]
    table = rooms.read(room.pk)
    bob_seat = table.players[1]
    assert bob_seat.is_bot and bob_seat.stand_in and table.view(0)["players"][1]["bot"]

    # The stand-in plays for him through the same write path.
    bots = MatchBots(room.pk)
    for _ in range(50):
        bots.step()
        if ActionLog.objects.filter(match__room_id=room.pk, seat=1, by_bot=True).exists():
            break
    assert ActionLog.objects.filter(match__room_id=room.pk, seat=1, by_bot=True).exists()

    presence.connected(room.pk, 1)  # he is back
    table = rooms.read(room.pk)
    assert not table.players[1].is_bot and table.seat_of(bob) == 1
    assert table.view(1)["players"][1] == {
        "seat": 1,
        "name": "bob",
        "bot": False,
        "connected": True,
        "total": table.view(1)["players"][1]["total"],
    }


def test_a_player_who_leaves_the_room_for_good_is_played_by_a_bot_to_the_end():
    from lobby import services

    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob])
    services.leave_room(room.pk, bob)
    table = rooms.read(room.pk)
    assert table.players[1].left and table.players[1].is_bot
    assert table.seat_of(bob) is None  # he watches now
    assert table.players[1].user_id == bob.pk  # the history still knows whose seat it was


def test_the_table_names_players_where_the_engine_names_seats():
    from tests.tables.helpers import set_state

    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob])

    def bob_emptied_his_stack(data):
        data.update(status="round_over", message="Round 1 is over: seat 1 emptied their stack.")
        return data

    set_state(room.pk, bob_emptied_his_stack)
    table = rooms.read(room.pk)
    html = render.render_part(table, table.view(None), "status")
    assert "Round 1 is over: bob emptied their stack." in html
    # The API's view keeps the engine's sentence: seats are what API clients work with.
    assert table.view(0)["message"] == "Round 1 is over: seat 1 emptied their stack."


def test_a_driver_claims_played_rooms_and_leaves_a_room_everyone_left():
    from lobby import services
    from tables.driver import Driver

    alice, bob = make_user("alice"), make_user("bob")
    kept = started_room(alice, game="ligretto", bots=2)
    deserted = started_room(bob, game="ligretto", bots=2)
    services.leave_room(deserted.pk, bob)  # the last human: the room closes
    assert Room.objects.get(pk=deserted.pk).status == Room.Status.CLOSED

    driver = Driver()
    assert driver.claim() == {kept.pk}
    assert Match.objects.get(room_id=kept.pk).driver == driver.id
    other = Driver()
    other.id = "another-host:2:beef"  # another process's driver
    assert other.claim() == set()  # the lease holds: a second driver gets nothing
    driver.release()
    assert Match.objects.get(room_id=kept.pk).driver == ""


def test_sockets_of_a_process_that_died_count_as_gone_and_a_stand_in_comes(settings):
    from datetime import timedelta

    from django.utils import timezone

    from tables.models import Player, Presence

    settings.LEAVER_GRACE = 30
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob])
    presence.connected(room.pk, 0)
    presence.connected(room.pk, 1)
    presence.heartbeat()
    assert not presence.replace_absent(room.pk)  # both renewed just now

    # Bob's socket was on another process, which died a minute ago and renews nothing.
    long_ago = timezone.now() - timedelta(seconds=60)
    Presence.objects.filter(player__seat=1).update(process="dead:1:x", seen_at=long_ago)
    assert presence.replace_absent(room.pk) == [1]
    bob_seat = Player.objects.get(match__room_id=room.pk, seat=1)
    assert bob_seat.connections == 0 and bob_seat.stand_in
    assert not Presence.objects.filter(player=bob_seat).exists()
    view = rooms.read(room.pk).view(None)
    assert view["players"][1]["bot"] and view["players"][0]["connected"]

    presence.connected(room.pk, 1)  # he reconnects to a live process: his seat again
    assert not rooms.read(room.pk).players[1].is_bot


def test_a_driver_reads_a_dead_processs_presence_once_for_all_its_rooms(settings):
    from datetime import timedelta

    from django.utils import timezone

    from tables.driver import Driver
    from tables.models import Player, Presence

    settings.LEAVER_GRACE = 30
    alice, bob, carol, dave = (make_user(n) for n in ("alice", "bob", "carol", "dave"))
    room, calm = started_room(alice, [bob]), started_room(carol, [dave])
    for seat in (0, 1):
        presence.connected(room.pk, seat)
        presence.connected(calm.pk, seat)
    presence.heartbeat()
    driver = Driver()
    assert driver.claim() == {room.pk, calm.pk} and driver.stale == set()

    long_ago = timezone.now() - timedelta(seconds=60)
    Presence.objects.filter(player__match__room_id=room.pk, player__seat=1).update(
        process="dead:1:x", seen_at=long_ago
    )
    driver.claim()
    assert driver.stale == {room.pk}
    for pk in (room.pk, calm.pk):
        MatchBots(pk, driver=driver.id, stale=lambda pk=pk: pk in driver.stale).step()
    assert Player.objects.get(match__room_id=room.pk, seat=1).stand_in
    assert not Player.objects.filter(match__room_id=calm.pk, stand_in=True).exists()


def test_the_action_log_keeps_an_action_without_a_clients_extra_fields():
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob])
    play.act(room.pk, 0, {"type": "flip", "note": "x" * 10_000, "HEADERS": {"a": 1}})
    assert ActionLog.objects.get(match__room_id=room.pk).action == {"type": "flip"}


def test_the_driver_claims_its_leases_locking_the_matches_in_the_order_of_their_ids():
    # A batch of several matches' moves fences them in the order of their ids (store.write_all);
    # the driver's claim locks them in that order too, so the two never wait on each other (one
    # UPDATE alone locked them in its plan's order: PostgreSQL once found a deadlock).
    from datetime import timedelta

    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from tables.live import store

    rooms_ = [
        started_room(make_user(name), game="ligretto", bots=3) for name in ("alice", "bob", "carol")
    ]
    now = timezone.now()
    with CaptureQueriesContext(connection) as queries:
        _lost, rows = store.claim_leases("p1", now, now + timedelta(seconds=30))
    assert {room_id for room_id, driver, _until in rows if driver == "p1"} == {r.pk for r in rooms_}
    # A second driver takes none of them while the lease holds.
    _lost, rows = store.claim_leases("p2", now, now + timedelta(seconds=30))
    assert {driver for _room_id, driver, _until in rows} == {"p1"}
    locks = [q["sql"] for q in queries.captured_queries if "FOR UPDATE" in q["sql"]]
    if connection.features.has_select_for_update:  # PostgreSQL (SQLite locks the whole file)
        table = Match._meta.db_table
        assert len(locks) == 1, locks
        assert locks[0].startswith(f'SELECT "{table}"."id" AS "pk" FROM "{table}"')
        assert locks[0].endswith(f'ORDER BY 1 ASC FOR UPDATE OF "{table}"')  # 1: the id
    else:
        assert locks == []
