"""The admin a moderator works from: reason pages for every action, the audit log, the links."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from moderation import services
from moderation.models import AuditEntry, Mute, Report, muted_until
from tests.conftest import client_for
from tests.moderation.helpers import make_moderator
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db

USERS = "/admin/auth/user/"
REPORTS = "/admin/moderation/report/"
AUDIT = "/admin/moderation/auditentry/"
ROOMS = "/admin/lobby/room/"


def active(user) -> bool:
    return get_user_model().objects.get(pk=user.pk).is_active


def run_action(client, url: str, action: str, objects, reason: str | None):
    """Pick `action` for `objects` on the list, then answer its reason page (None: don't)."""
    ids = [str(o.pk) for o in objects]
    first = client.post(url, {"action": action, "_selected_action": ids, "index": "0"})
    assert first.status_code == 200, first.content[:300]
    assert b'id="moderation-reason"' in first.content
    if reason is None:
        return first
    return client.post(
        url, {"action": action, "_selected_action": ids, "apply": "1", "reason": reason}
    )


def action_names(listing) -> set[str]:
    form = listing.context["action_form"]
    return {name for name, _ in form.fields["action"].choices} if form else set()


@pytest.fixture
def mod_client(mod):
    return client_for(mod)


def test_banning_from_the_users_list_asks_a_reason_and_logs_it(mod, mod_client, alice, bob):
    page = run_action(mod_client, USERS, "ban_users", [alice, bob], None)
    assert b"alice" in page.content and b"bob" in page.content
    assert active(alice) and not AuditEntry.objects.exists()  # nothing before the reason

    done = run_action(mod_client, USERS, "ban_users", [alice, bob], "spam ring")
    assert done.status_code == 302
    assert not active(alice) and not active(bob)
    assert sorted(AuditEntry.objects.values_list("user__username", "action", "reason")) == [
        ("alice", "ban", "spam ring"),
        ("bob", "ban", "spam ring"),
    ]
    assert set(AuditEntry.objects.values_list("moderator", flat=True)) == {mod.pk}

    run_action(mod_client, USERS, "unban_users", [alice], "appeal")
    assert active(alice) and not active(bob)


def test_an_empty_reason_shows_the_form_again_and_changes_nothing(mod_client, alice):
    again = run_action(mod_client, USERS, "ban_users", [alice], "   ")
    assert again.status_code == 200 and b"This field is required" in again.content
    assert active(alice) and not AuditEntry.objects.exists()


def test_a_refusal_is_reported_per_user_and_the_others_are_done(mod, mod_client, alice):
    response = run_action(mod_client, USERS, "ban_users", [alice, mod], "test")
    assert response.status_code == 302
    shown = [str(m) for m in client_messages(mod_client)]
    assert "Ban: done for 1." in shown
    assert "mod: You cannot do that to your own account." in shown
    assert active(mod) and not active(alice)


def client_messages(client):
    return client.get(USERS).context["messages"]


def test_mute_for_an_hour_and_a_day_then_unmute(mod_client, alice, bob):
    run_action(mod_client, USERS, "mute_1h", [alice], "flood")
    run_action(mod_client, USERS, "mute_24h", [bob], "insults")
    hour = muted_until(alice) - timezone.now()
    day = muted_until(bob) - timezone.now()
    assert 3500 < hour.total_seconds() <= 3600 and 86300 < day.total_seconds() <= 86400
    listing = mod_client.get(USERS + "?muted=yes").context["cl"].result_list
    assert sorted(u.username for u in listing) == ["alice", "bob"]

    run_action(mod_client, USERS, "unmute_users", [alice], "ok now")
    assert muted_until(alice) is None and muted_until(bob) is not None
    assert list(AuditEntry.objects.values_list("action", flat=True).order_by("pk")) == [
        "mute",
        "mute",
        "unmute",
    ]
    # The filters both ways: users muted now or not, mutes still running or over.
    unmuted = mod_client.get(USERS + "?muted=no").context["cl"].result_list
    assert "alice" in {u.username for u in unmuted} and "bob" not in {u.username for u in unmuted}
    mutes = "/admin/moderation/mute/"
    running = mod_client.get(mutes + "?active=yes").context["cl"].result_list
    over = mod_client.get(mutes + "?active=no").context["cl"].result_list
    assert [m.user.username for m in running] == ["bob"]
    assert [m.user.username for m in over] == ["alice"]


def test_the_users_list_links_to_his_rooms_reports_and_audit(mod, mod_client, alice, bob):
    room = started_room(alice, [bob])
    services.create_report(alice, bob, room, "rude")
    services.mute(bob, mod, 60, reason="rude")
    html = mod_client.get(USERS + "?q=bob").content.decode()
    assert "Muted until" in html
    for link in (
        f"{ROOMS}?seat_set__user__id__exact={bob.pk}",
        f"{REPORTS}?reported__id__exact={bob.pk}",
        f"{AUDIT}?user__id__exact={bob.pk}",
    ):
        assert link in html
    # The links work: each list is filtered, not refused (?e=1).
    rooms = mod_client.get(f"{ROOMS}?seat_set__user__id__exact={bob.pk}")
    assert rooms.status_code == 200 and rooms.context["cl"].result_count == 1
    received = mod_client.get(f"{REPORTS}?reported__id__exact={bob.pk}")
    assert received.context["cl"].result_count == 1
    audit = mod_client.get(f"{AUDIT}?user__id__exact={bob.pk}")
    assert audit.context["cl"].result_count == 1
    change = mod_client.get(f"{USERS}{bob.pk}/change/").content.decode()
    for link in (
        f"{ROOMS}?seat_set__user__id__exact={bob.pk}",
        f"{ROOMS}?host__id__exact={bob.pk}",
        f"{REPORTS}?reported__id__exact={bob.pk}",
        f"{REPORTS}?reporter__id__exact={bob.pk}",
        f"/admin/moderation/mute/?user__id__exact={bob.pk}",
        f"{AUDIT}?user__id__exact={bob.pk}",
        f"{AUDIT}?moderator__id__exact={bob.pk}",
        f"/admin/chat/chatmessage/?user__id__exact={bob.pk}",
    ):
        assert link in change
        assert mod_client.get(link.replace("&amp;", "&")).status_code == 200, link


def test_the_report_queue_resolves_and_dismisses_with_a_note(mod, mod_client, alice, bob, carol):
    room = started_room(alice, [bob, carol], game="ligretto")
    first = services.create_report(alice, bob, room, "insults")
    second = services.create_report(carol, alice, room, "slow")
    listing = mod_client.get(REPORTS + "?status__exact=open")
    assert listing.context["cl"].result_count == 2
    html = listing.content.decode()
    assert f"/admin/auth/user/{bob.pk}/change/" in html
    assert f"/admin/lobby/room/{room.pk}/change/" in html
    assert mod_client.get(REPORTS + "?q=insults").context["cl"].result_count == 1

    run_action(mod_client, REPORTS, "resolve_reports", [first], "muted him")
    run_action(mod_client, REPORTS, "dismiss_reports", [second], "not against a rule")
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, first.resolution, first.handled_by) == ("resolved", "muted him", mod)
    assert second.status == "dismissed"
    entry = AuditEntry.objects.get(report=first)
    assert (entry.action, entry.reason, entry.moderator, entry.user) == (
        "resolve_report",
        "muted him",
        mod,
        bob,
    )
    assert mod_client.get(REPORTS + "?status__exact=open").context["cl"].result_count == 0
    # Reports are evidence: nobody adds or deletes them in the admin.
    assert mod_client.get(REPORTS + "add/").status_code == 403
    assert mod_client.get(f"{REPORTS}{first.pk}/delete/").status_code == 403


def test_the_audit_log_is_read_only_for_everyone_superusers_included(mod, alice):
    services.ban(alice, mod, "spam")
    entry = AuditEntry.objects.get()
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    for client in (client_for(root), client_for(mod)):
        listing = client.get(AUDIT + "?action__exact=ban")
        assert listing.status_code == 200 and listing.context["cl"].result_count == 1
        html = listing.content.decode()
        assert f"/admin/auth/user/{alice.pk}/change/" in html and "spam" in html
        assert client.get(AUDIT + "add/").status_code == 403
        assert client.get(f"{AUDIT}{entry.pk}/delete/").status_code == 403
        view = client.get(f"{AUDIT}{entry.pk}/change/")
        assert view.status_code == 200 and b'name="_save"' not in view.content
        assert client.post(f"{AUDIT}{entry.pk}/change/", {"reason": "edited"}).status_code == 403
        assert "delete_selected" not in action_names(listing)
    entry.refresh_from_db()
    assert entry.reason == "spam" and AuditEntry.objects.count() == 1
    assert mod_client_search(client_for(mod), "spam") == 1
    assert mod_client_search(client_for(mod), "alice") == 1


def mod_client_search(client, q: str) -> int:
    return client.get(AUDIT + f"?q={q}").context["cl"].result_count


def test_a_room_is_closed_from_its_admin_list_and_links_to_its_reports(mod, mod_client, alice, bob):
    room = started_room(alice, [bob])
    services.create_report(alice, bob, room, "rude")
    run_action(mod_client, ROOMS, "close_rooms", [room], "spam room")
    room.refresh_from_db()
    assert room.status == "closed" and room.closed_reason == "Closed by a moderator: spam room"
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.room, entry.reason) == ("close_room", room, "spam room")
    change = mod_client.get(f"{ROOMS}{room.pk}/change/").content.decode()
    assert f"{REPORTS}?room__id__exact={room.pk}" in change
    assert f"{AUDIT}?room__id__exact={room.pk}" in change
    assert f"/admin/chat/chatmessage/?room__id__exact={room.pk}" in change
    assert mod_client.get(f"/admin/chat/chatmessage/?room__id__exact={room.pk}").status_code == 200
    assert mod_client.get(f"{AUDIT}?room__id__exact={room.pk}").context["cl"].result_count == 1
    assert mod_client.get(f"{REPORTS}?room__id__exact={room.pk}").context["cl"].result_count == 1


def test_staff_without_the_permission_get_no_moderation_actions(alice):
    staffer = make_moderator("staffer")
    staffer.user_permissions.remove(*staffer.user_permissions.filter(codename="moderate"))
    client = client_for(get_user_model().objects.get(pk=staffer.pk))
    listing = client.get(USERS)
    assert listing.status_code == 200
    assert not {"ban_users", "unban_users", "mute_1h", "unmute_users"} & action_names(listing)
    # Posting the action anyway does nothing.
    client.post(
        USERS, {"action": "ban_users", "_selected_action": [alice.pk], "apply": "1", "reason": "x"}
    )
    assert active(alice) and not AuditEntry.objects.exists() and not Mute.objects.exists()
    assert not Report.objects.exists()


def test_the_user_form_cannot_ban_around_the_audit_log(alice):
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    client = client_for(root)
    form = client.get(f"{USERS}{alice.pk}/change/")
    assert b'name="is_active"' not in form.content  # shown, not editable
    fields = {
        "username": "alice",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "10:00:00",
        "is_staff": "on",
    }
    assert client.post(f"{USERS}{alice.pk}/change/", fields).status_code == 302
    alice = get_user_model().objects.get(pk=alice.pk)
    assert alice.is_staff and alice.is_active  # the other fields still save
