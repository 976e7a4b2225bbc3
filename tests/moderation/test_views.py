"""The site's side: report buttons on the room page and the table, the staff's Moderate panel."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from lobby import services as lobby
from moderation.models import AuditEntry, Mute, Report
from tests.conftest import client_for, make_user
from tests.moderation.helpers import make_moderator
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db


def page(client, room) -> str:
    response = client.get(room.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def follow_messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_a_player_sees_a_report_button_for_each_other_human_not_for_himself_nor_bots(alice, bob):
    room = lobby.create_room(alice, "ligretto", 4)
    lobby.join_room(room.pk, bob)
    lobby.add_bots(room.pk, alice, count=1)
    html = page(client_for(alice), room)
    assert 'id="report-players"' in html
    assert f'action="/rooms/{room.pk}/report/{bob.pk}/"' in html
    assert f'action="/rooms/{room.pk}/report/{alice.pk}/"' not in html
    assert html.count('class="report"') == 1  # bob only: the bot has no account to report
    assert 'id="moderate-panel"' not in html


def test_the_table_has_the_report_buttons_too(alice, bob):
    room = started_room(alice, [bob])
    html = page(client_for(bob), room)
    assert 'id="lg-me" class="me' in html  # the table page
    assert f'action="/rooms/{room.pk}/report/{alice.pk}/"' in html
    assert f'action="/rooms/{room.pk}/report/{bob.pk}/"' not in html


def test_an_anonymous_visitor_gets_no_report_button_and_cannot_report(alice, bob):
    room = lobby.create_room(alice, "ligretto", 4)
    lobby.join_room(room.pk, bob)
    assert 'id="report-players"' not in page(client_for_nobody(), room)
    response = client_for_nobody().post(f"/rooms/{room.pk}/report/{bob.pk}/", {"reason": "rude"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not Report.objects.exists()


def client_for_nobody():
    from django.test import Client

    return Client()


def test_a_report_from_the_room_page_reaches_the_queue(alice, bob, eve):
    room = started_room(alice, [bob])
    response = client_for(eve).post(
        f"/rooms/{room.pk}/report/{bob.pk}/", {"reason": "  called me <b>names</b> "}, follow=True
    )
    assert response.redirect_chain[-1][0] == room.get_absolute_url()
    assert follow_messages(response) == [
        "Thank you: your report of bob is in the moderators' queue."
    ]
    report = Report.objects.get()
    assert (report.reporter, report.reported, report.room, report.reason) == (
        eve,
        bob,
        room,
        "called me <b>names</b>",
    )
    assert report.status == Report.Status.OPEN


def test_a_report_without_a_reason_is_refused_with_a_sentence(alice, bob):
    room = started_room(alice, [bob])
    response = client_for(alice).post(
        f"/rooms/{room.pk}/report/{bob.pk}/", {"reason": " "}, follow=True
    )
    assert follow_messages(response) == ["Say what happened: a reason is required."]
    assert not Report.objects.exists()


# The staff's panel ---------------------------------------------------------------------------


def test_the_moderate_panel_is_rendered_only_for_moderators(alice, bob):
    room = started_room(alice, [bob])
    mod = make_moderator("mod")
    staffer = make_user("staffer", is_staff=True)  # staff, but without the permission
    html = page(client_for(mod), room)
    assert 'id="moderate-panel"' in html
    assert f'action="/moderation/rooms/{room.pk}/ban/{bob.pk}/"' in html
    assert f'action="/moderation/rooms/{room.pk}/mute/{alice.pk}/"' in html
    assert f'action="/moderation/rooms/{room.pk}/close/"' in html
    for user in (alice, bob, staffer):
        assert "moderate-panel" not in page(client_for(user), room)
        assert "/moderation/" not in page(client_for(user), room)


def test_a_moderator_bans_mutes_and_closes_from_the_panel(alice, bob, carol):
    room = started_room(alice, [bob, carol], game="ligretto")
    mod = client_for(make_moderator("mod"))

    response = mod.post(
        f"/moderation/rooms/{room.pk}/mute/{carol.pk}/", {"reason": "flood"}, follow=True
    )
    assert follow_messages(response) == ["carol is muted for an hour."]
    assert Mute.objects.get().user == carol

    response = mod.post(
        f"/moderation/rooms/{room.pk}/ban/{bob.pk}/", {"reason": "cheating"}, follow=True
    )
    assert follow_messages(response) == ["bob is banned; bots took their seats."]
    assert not get_user_model().objects.get(pk=bob.pk).is_active

    response = mod.post(f"/moderation/rooms/{room.pk}/close/", {"reason": "enough"}, follow=True)
    assert follow_messages(response) == [f"Room #{room.pk} is closed; its players see why."]
    room.refresh_from_db()
    assert room.status == "closed" and room.closed_reason == "Closed by a moderator: enough"
    assert list(AuditEntry.objects.values_list("action", "reason").order_by("pk")) == [
        ("mute", "flood"),
        ("ban", "cheating"),
        ("close_room", "enough"),
    ]


def test_a_panel_action_without_a_reason_changes_nothing_and_says_why(alice, bob):
    room = started_room(alice, [bob])
    mod = client_for(make_moderator("mod"))
    response = mod.post(f"/moderation/rooms/{room.pk}/ban/{bob.pk}/", {}, follow=True)
    assert follow_messages(response) == ["A reason is required for every action."]
    assert get_user_model().objects.get(pk=bob.pk).is_active
    assert not AuditEntry.objects.exists()


def test_the_panel_refuses_a_superuser_target_with_a_sentence(alice, bob):
    room = started_room(alice, [bob])
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    mod = client_for(make_moderator("mod"))
    response = mod.post(f"/moderation/rooms/{room.pk}/ban/{root.pk}/", {"reason": "x"}, follow=True)
    assert follow_messages(response) == ["Superusers cannot be banned or muted."]
    assert get_user_model().objects.get(pk=root.pk).is_active


def test_the_allegra_table_has_the_report_buttons_and_the_panel(alice, bob):
    room = started_room(alice, [bob], game="allegra")
    html = page(client_for(alice), room)
    assert "allegra" in html and f'action="/rooms/{room.pk}/report/{bob.pk}/"' in html
    html = page(client_for(make_moderator("mod")), room)
    assert f'action="/moderation/rooms/{room.pk}/ban/{alice.pk}/"' in html


def test_an_outsider_cannot_report_in_a_private_room(alice, bob, eve):
    room = lobby.create_room(alice, "ligretto", 3, private=True)
    lobby.join_room(room.pk, bob, invited=True)
    response = client_for(eve).post(f"/rooms/{room.pk}/report/{bob.pk}/", {"reason": "rude"})
    assert response.status_code == 404 and not Report.objects.exists()
    # Its players can.
    client_for(alice).post(f"/rooms/{room.pk}/report/{bob.pk}/", {"reason": "rude"})
    assert Report.objects.get().reporter == alice
