"""moderation.services: each action, its audit entry (who, what, why) and its refusals."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from lobby import services as lobby
from lobby.models import Room, Seat
from moderation import services
from moderation.models import AuditEntry, Mute, Report, muted_until
from tables.live import rooms as live_rooms
from tables.models import Match
from tests.conftest import make_user
from tests.moderation.helpers import make_moderator
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db

A = AuditEntry.Action


def fresh(user):
    return get_user_model().objects.get(pk=user.pk)


def only_entry() -> AuditEntry:
    (entry,) = AuditEntry.objects.all()
    return entry


# Ban -----------------------------------------------------------------------------------------


def test_a_ban_deactivates_the_user_and_logs_who_banned_whom_and_why(mod, alice):
    services.ban(alice, mod, "  spam   in every room ")
    assert not fresh(alice).is_active
    entry = only_entry()
    assert (entry.moderator, entry.action, entry.user, entry.reason) == (
        mod,
        A.BAN,
        alice,
        "spam in every room",
    )
    assert entry.created_at is not None


def test_a_ban_frees_his_seat_in_an_open_room_and_hands_his_rooms_on(mod, alice, bob):
    hosted = lobby.create_room(alice, "ligretto", 3)
    lobby.join_room(hosted.pk, bob)
    alone = lobby.create_room(alice, "ligretto", 3)
    joined = lobby.create_room(bob, "ligretto", 3)
    lobby.join_room(joined.pk, alice)

    services.ban(alice, mod, "abuse")

    hosted.refresh_from_db()
    assert hosted.host == bob and hosted.status == Room.Status.OPEN
    assert list(hosted.seat_set.values_list("user__username", flat=True)) == ["bob"]
    alone.refresh_from_db()
    assert alone.status == Room.Status.CLOSED and not alone.seat_set.exists()
    assert not Seat.objects.filter(user=alice).exists()


def test_a_ban_mid_match_gives_his_seat_to_a_bot_at_once(mod, alice, bob):
    room = started_room(alice, [bob])
    services.ban(bob, mod, "cheating")

    seat = Seat.objects.get(room=room, index=1)
    assert seat.user is None and seat.is_bot
    table = live_rooms.read(room.pk)
    assert table.players[1].left and table.players[1].is_bot
    assert table.players[1].user_id == bob.pk  # the history still knows whose seat it was
    assert table.seat_of(bob) is None
    assert Room.objects.get(pk=room.pk).status == Room.Status.PLAYING


def test_a_banned_host_of_a_match_hands_it_to_the_other_human(mod, alice, bob):
    room = started_room(alice, [bob])
    services.ban(alice, mod, "abuse")
    assert Room.objects.get(pk=room.pk).host == bob


def test_unban_lets_him_in_again_and_is_logged(mod, alice):
    services.ban(alice, mod, "spam")
    services.unban(alice, mod, "appeal accepted")
    assert fresh(alice).is_active
    assert list(AuditEntry.objects.values_list("action", "reason")) == [
        (A.UNBAN, "appeal accepted"),
        (A.BAN, "spam"),
    ]


def test_banning_twice_or_unbanning_an_active_user_is_refused(mod, alice):
    with pytest.raises(services.ModerationError) as refusal:
        services.unban(alice, mod, "why")
    assert refusal.value.code == "not_banned"
    services.ban(alice, mod, "spam")
    with pytest.raises(services.ModerationError) as refusal:
        services.ban(alice, mod, "again")
    assert refusal.value.code == "already_banned"
    assert AuditEntry.objects.count() == 1


# Mute ----------------------------------------------------------------------------------------


def test_a_mute_lasts_the_minutes_given_and_is_logged(mod, alice):
    before = timezone.now()
    mute = services.mute(alice, mod, 60, reason="insults")
    assert mute.by == mod and mute.reason == "insults"
    assert timedelta(minutes=59) < muted_until(alice) - before <= timedelta(minutes=61)
    entry = only_entry()
    assert (entry.moderator, entry.action, entry.user, entry.reason) == (
        mod,
        A.MUTE,
        alice,
        "insults",
    )


def test_a_mute_until_a_moment_and_unmute(mod, alice):
    until = timezone.now() + timedelta(days=2)
    services.mute(alice, mod, until=until, reason="flood")
    assert muted_until(alice) == until
    assert services.unmute(alice, mod, "he apologised") == 1
    assert muted_until(alice) is None
    assert AuditEntry.objects.first().action == A.UNMUTE
    with pytest.raises(services.ModerationError) as refusal:
        services.unmute(alice, mod, "again")
    assert refusal.value.code == "not_muted"


@pytest.mark.parametrize("minutes", [0, -5, "60", None, True, 10**9])
def test_a_mute_needs_a_sensible_duration(mod, alice, minutes):
    with pytest.raises(services.ModerationError) as refusal:
        services.mute(alice, mod, minutes, reason="flood")
    assert refusal.value.code == "invalid_duration" and refusal.value.status == 400
    assert not Mute.objects.exists() and not AuditEntry.objects.exists()


# Refusals common to every action ---------------------------------------------------------


def test_every_action_needs_a_reason(mod, alice, bob):
    room = started_room(alice, [bob])
    report = services.create_report(alice, bob, room, "rude")
    actions = [
        lambda r: services.ban(bob, mod, r),
        lambda r: services.mute(bob, mod, 60, reason=r),
        lambda r: services.close_room(room, mod, r),
        lambda r: services.resolve_report(report, mod, r),
        lambda r: services.dismiss_report(report, mod, r),
    ]
    for action in actions:
        for empty in ("", "   ", None):
            with pytest.raises(services.ModerationError) as refusal:
                action(empty)
            assert refusal.value.code == "reason_required"
            assert "required" in refusal.value.message
        with pytest.raises(services.ModerationError) as refusal:
            action("x" * 201)
        assert refusal.value.code == "reason_too_long"
    assert not AuditEntry.objects.exists()
    assert fresh(bob).is_active and not Mute.objects.exists()
    assert Room.objects.get(pk=room.pk).status == Room.Status.PLAYING
    assert Report.objects.get().status == Report.Status.OPEN


def test_a_moderator_may_not_ban_or_mute_himself_or_a_superuser(mod):
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    for target, code in ((mod, "own_account"), (root, "superuser")):
        with pytest.raises(services.ModerationError) as refusal:
            services.ban(target, mod, "test")
        assert refusal.value.code == code
        with pytest.raises(services.ModerationError) as refusal:
            services.mute(target, mod, 60, reason="test")
        assert refusal.value.code == code
    assert fresh(mod).is_active and fresh(root).is_active
    assert not AuditEntry.objects.exists() and not Mute.objects.exists()


def test_only_active_staff_with_the_permission_may_moderate(alice, bob):
    staff_without_permission = make_user("staffer", is_staff=True)
    permitted_but_not_staff = make_moderator("mallory")
    permitted_but_not_staff.is_staff = False
    permitted_but_not_staff.save()
    banned_moderator = make_moderator("oscar", is_active=False)
    room = started_room(alice, [bob])
    for who in (alice, fresh(staff_without_permission), fresh(permitted_but_not_staff)):
        who = fresh(who)
        for action in (
            lambda who=who: services.ban(bob, who, "x"),
            lambda who=who: services.unban(bob, who, "x"),
            lambda who=who: services.mute(bob, who, 60, reason="x"),
            lambda who=who: services.unmute(bob, who, "x"),
            lambda who=who: services.close_room(room, who, "x"),
        ):
            with pytest.raises(services.ModerationError) as refusal:
                action()
            assert refusal.value.code == "not_moderator" and refusal.value.status == 403
    assert not services.can_moderate(banned_moderator)
    superuser = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    assert services.can_moderate(superuser)
    assert not AuditEntry.objects.exists() and fresh(bob).is_active


# Rooms ---------------------------------------------------------------------------------------


def test_closing_a_room_stops_its_match_and_tells_why(mod, alice, bob):
    room = started_room(alice, [bob])
    services.close_room(room, mod, "abusive names")
    room.refresh_from_db()
    assert room.status == Room.Status.CLOSED
    assert room.closed_reason == "Closed by a moderator: abusive names"
    match = Match.objects.get(room=room)
    assert match.status == Match.Status.CLOSED and match.closed_reason == room.closed_reason
    entry = only_entry()
    assert (entry.moderator, entry.action, entry.room, entry.reason) == (
        mod,
        A.CLOSE_ROOM,
        room,
        "abusive names",
    )
    with pytest.raises(services.ModerationError) as refusal:
        services.close_room(room, mod, "again")
    assert refusal.value.code == "room_over"
    assert AuditEntry.objects.count() == 1


# Reports -------------------------------------------------------------------------------------


def test_resolving_and_dismissing_reports_are_logged_once(mod, alice, bob, carol):
    room = started_room(alice, [bob, carol], game="ligretto")
    first = services.create_report(alice, bob, room, "insulted me")
    second = services.create_report(carol, bob, room, "I do not like him")
    services.resolve_report(first, mod, "muted him for a day")
    services.dismiss_report(second, mod, "no rule broken")

    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, first.handled_by, first.resolution) == (
        Report.Status.RESOLVED,
        mod,
        "muted him for a day",
    )
    assert first.handled_at is not None
    assert second.status == Report.Status.DISMISSED
    entries = {e.report_id: e for e in AuditEntry.objects.all()}
    assert entries[first.pk].action == A.RESOLVE_REPORT
    assert (entries[first.pk].user, entries[first.pk].room) == (bob, room)
    assert entries[second.pk].action == A.DISMISS_REPORT
    assert entries[second.pk].reason == "no rule broken"

    with pytest.raises(services.ModerationError) as refusal:
        services.dismiss_report(first, mod, "changed my mind")
    assert refusal.value.code == "report_handled"
    assert AuditEntry.objects.count() == 2


def test_a_report_needs_a_reason_a_player_of_the_room_and_not_oneself(alice, bob, carol):
    room = lobby.create_room(alice, "ligretto", 3)
    lobby.join_room(room.pk, bob)
    cases = [
        (alice, bob, "", "reason_required"),
        (alice, bob, "x" * 501, "reason_too_long"),
        (alice, alice, "me", "own_report"),
        (alice, carol, "not here", "not_a_player"),
    ]
    for reporter, reported, reason, code in cases:
        with pytest.raises(services.ModerationError) as refusal:
            services.create_report(reporter, reported, room, reason)
        assert refusal.value.code == code
    assert not Report.objects.exists()

    report = services.create_report(bob, alice, room, "x" * 500)
    assert (report.reporter, report.reported, report.room, report.status) == (
        bob,
        alice,
        room,
        Report.Status.OPEN,
    )
    with pytest.raises(services.ModerationError) as refusal:
        services.create_report(bob, alice, room, "again")
    assert refusal.value.code == "already_reported"


def test_reports_are_rate_limited_per_reporter(alice, bob, carol, settings):
    settings.ROOMS_PER_USER = 100
    rooms = [lobby.create_room(bob, "ligretto", 3) for _ in range(services.REPORTS_PER_USER + 1)]
    for room in rooms[:-1]:
        services.create_report(alice, bob, room, "again and again")
    with pytest.raises(services.ModerationError) as refusal:
        services.create_report(alice, bob, rooms[-1], "once more")
    assert refusal.value.code == "too_many_reports" and refusal.value.status == 429
    # Another reporter is not held back by alice's reports.
    assert services.create_report(carol, bob, rooms[-1], "me too") is not None
    assert Report.objects.count() == services.REPORTS_PER_USER + 1
