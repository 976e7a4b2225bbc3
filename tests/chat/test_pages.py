"""The chat panel on the room page and the tables, and the ChatMessage admin (staff only)."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from chat import services
from chat.models import ChatMessage
from lobby import services as rooms
from moderation.models import AuditEntry, Mute
from tests.conftest import client_for, make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/chat/chatmessage/"


@pytest.fixture
def moderator(db):
    return make_user("mia", is_staff=True, is_superuser=True)


def test_the_room_page_has_the_panel_with_the_form_and_reactions(client, alice, bob):
    room = rooms.create_room(alice, "ligretto", 4)
    html = client_for(bob).get(room.get_absolute_url()).content.decode()
    assert 'id="chat"' in html and 'id="chat-form"' in html and 'id="chat-log"' in html
    for reaction in services.REACTIONS:
        assert f'name="chat" value="{reaction}"' in html
    assert "css/chat.css" in html and "js/chat.js" in html
    assert "data-staff" not in html
    # Outside the part the room's socket re-renders per viewer.
    assert html.index('id="room-live"') < html.index('id="chat"')
    guest = client.get(room.get_absolute_url()).content.decode()
    assert 'id="chat-closed"' in guest and 'id="chat-form"' not in guest


@pytest.mark.parametrize("game", ["ligretto-mini", "allegra"])
def test_both_tables_have_the_panel_beside_the_table(game, alice, bob, moderator):
    room = started_room(alice, [bob], game=game)
    html = client_for(bob).get(room.get_absolute_url()).content.decode()
    side = html[html.index('class="table-side"') :]
    assert 'id="chat-form"' in side
    assert (
        'data-staff="true"' in client_for(moderator).get(room.get_absolute_url()).content.decode()
    )


def test_a_muted_player_sees_why_in_the_panel(alice, bob, moderator):
    room = rooms.create_room(alice, "ligretto", 4)
    Mute.objects.create(
        user=bob, until=timezone.now() + datetime.timedelta(hours=1), reason="x", by=moderator
    )
    html = client_for(bob).get(room.get_absolute_url()).content.decode()
    assert 'id="chat-muted"' in html and "You are muted until" in html
    assert 'id="chat-form"' not in html


def test_the_hide_view_wants_staff_a_reason_and_a_post(client, alice, bob, moderator):
    room = rooms.create_room(alice, "ligretto", 4)
    line = services.post(room.pk, alice, "hello")
    url = f"/chat/messages/{line.pk}/hide/"
    assert client.post(url, headers={"HX-Prompt": "x"}).status_code == 403
    assert client_for(bob).post(url, headers={"HX-Prompt": "x"}).status_code == 403
    assert client_for(moderator).get(url).status_code == 405
    refused = client_for(moderator).post(url)
    assert refused.status_code == 400 and b"Say why" in refused.content
    assert (
        client_for(moderator).post("/chat/messages/999/hide/", {"reason": "x"}).status_code == 404
    )
    line.refresh_from_db()
    assert not line.hidden and not AuditEntry.objects.exists()
    assert client_for(moderator).post(url, {"reason": "spam"}).status_code == 204
    line.refresh_from_db()
    assert line.hidden and AuditEntry.objects.get().reason == "spam"


def _lines(alice, bob):
    room = rooms.create_room(alice, "ligretto", 4)
    return room, [services.post(room.pk, alice, "hello"), services.post(room.pk, bob, "rude")]


def test_the_admin_lists_searches_and_links(alice, bob, moderator):
    room, _ = _lines(alice, bob)
    staff = client_for(moderator)
    page = staff.get(CHANGELIST).content.decode()
    assert f'href="/admin/lobby/room/{room.pk}/change/"' in page
    assert f'href="/admin/auth/user/{bob.pk}/change/"' in page
    found = staff.get(CHANGELIST, {"q": "rude"}).content.decode()
    assert "rude" in found and "hello" not in found
    by_name = staff.get(CHANGELIST, {"q": "alice"}).content.decode()
    assert "hello" in by_name and "rude" not in by_name
    assert "rude" in staff.get(CHANGELIST, {"hidden__exact": "0"}).content.decode()


def test_the_admin_action_asks_a_reason_then_hides_and_logs(alice, bob, moderator):
    room, (hello, rude) = _lines(alice, bob)
    staff = client_for(moderator)
    data = {"action": "hide_selected", "_selected_action": [rude.pk]}
    form = staff.post(CHANGELIST, data)
    assert form.status_code == 200 and b"Hide the messages" in form.content
    rude.refresh_from_db()
    assert not rude.hidden  # nothing yet: a reason first
    done = staff.post(CHANGELIST, {**data, "apply": "1", "reason": "insults bob's mother"})
    assert done.status_code == 302
    rude.refresh_from_db()
    hello.refresh_from_db()
    assert rude.hidden and rude.hidden_by == moderator and not hello.hidden
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.reason, entry.message, entry.user, entry.room) == (
        AuditEntry.Action.HIDE_MESSAGE,
        "insults bob's mother",
        rude,
        bob,
        room,
    )


def test_the_admin_is_for_staff_only(client, alice, bob):
    _room, (_hello, rude) = _lines(alice, bob)
    data = {"action": "hide_selected", "_selected_action": [rude.pk], "apply": "1", "reason": "x"}
    # Not signed in, or signed in without staff: the admin sends both to its login page.
    for visitor in (client, client_for(bob)):
        assert visitor.get(CHANGELIST).status_code == 302
        response = visitor.post(CHANGELIST, data)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    # Staff without the permission to change messages has no such action.
    helper = make_user("hal", is_staff=True)
    helper.user_permissions.add(Permission.objects.get(codename="view_chatmessage"))
    assert client_for(helper).get(CHANGELIST).status_code == 200
    client_for(helper).post(CHANGELIST, data)
    rude.refresh_from_db()
    assert not rude.hidden and not AuditEntry.objects.exists()
    assert not ChatMessage.objects.filter(hidden=True).exists()


def test_nobody_adds_edits_or_deletes_a_line_in_the_admin(alice, bob, moderator):
    _room, (hello, _rude) = _lines(alice, bob)
    staff = client_for(moderator)
    assert staff.get(f"{CHANGELIST}add/").status_code == 403
    assert staff.get(f"{CHANGELIST}{hello.pk}/delete/").status_code == 403
    staff.post(f"{CHANGELIST}{hello.pk}/change/", {"text": "edited", "hidden": "on"})
    hello.refresh_from_db()
    assert hello.text == "hello" and not hello.hidden
