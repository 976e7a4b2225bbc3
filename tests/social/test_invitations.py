"""Invitations: into an open room, into a running one's bot seat, refusals and authority."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.utils import translation

from lobby import services as lobby
from lobby.models import Room, Seat
from social import invitations, services
from social.models import Invitation, Notification
from social.services import SocialError
from tables.models import Player
from tests.conftest import client_for, make_user
from tests.social.helpers import frame_with, social_socket
from tests.tables.helpers import started_room, table_socket


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


def befriend(a, b) -> None:
    services.ask(a, b)
    services.accept(b, a)


@pytest.mark.django_db
def test_a_friend_invited_to_an_open_room_takes_a_free_seat(alice, bob):
    befriend(alice, bob)
    room = lobby.create_room(alice, "ligretto", 3, None, private=True)
    invitation = invitations.invite(alice, bob, room.pk)
    assert Notification.objects.get(user=bob, kind="invitation").params["name"] == "alice"
    answer = client_for(bob).post(f"/invitations/{invitation.pk}/accept/")
    assert answer.status_code == 302 and answer["Location"] == f"/rooms/{room.pk}/"
    assert Seat.objects.filter(
        room=room, user=bob
    ).exists()  # a private room: the invitation is the link
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.ACCEPTED


@pytest.mark.django_db
def test_a_friend_takes_a_running_tables_bot_seat_and_plays_it_once_his_table_opens(alice, bob):
    befriend(alice, bob)
    room = started_room(alice, [], game="ligretto", bots=2)
    invitation = invitations.invite(alice, bob, room.pk)
    invitations.accept(bob, invitation.pk)
    player = Player.objects.get(match__room=room, user=bob)
    assert player.seat == 1 and player.name == "bob"
    assert player.stand_in and player.is_bot  # the bot plays on until his page opens
    assert Seat.objects.get(room=room, index=1).user == bob
    assert Player.objects.filter(match__room=room, user__isnull=True).count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_invitation_shows_live_and_his_table_gives_him_the_seat():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    await sync_to_async(befriend)(alice, bob)
    room = await sync_to_async(started_room)(alice, [], game="ligretto", bots=1)
    page = await social_socket(bob)
    await frame_with(page, 'id="social-live"')
    invitation = await sync_to_async(invitations.invite)(alice, bob, room.pk)
    shown = await frame_with(page, f'id="inv-{invitation.pk}"')
    assert "alice invites you to their Ligretto table." in shown
    await sync_to_async(invitations.accept)(bob, invitation.pk)
    gone = await frame_with(page, 'id="invitation-box"')
    assert f'id="inv-{invitation.pk}"' not in gone
    table = await table_socket(room.pk, bob)
    await table.receive_from(timeout=5)
    player = await sync_to_async(Player.objects.get)(match__room=room, user=bob)
    assert not player.stand_in and not player.is_bot
    await table.disconnect()
    await page.disconnect()


@pytest.mark.django_db
def test_only_friends_seated_senders_and_places_make_an_invitation(alice, bob, carol):
    room = started_room(alice, [bob], game="ligretto")
    with pytest.raises(SocialError) as stranger:
        invitations.invite(alice, carol, room.pk)
    assert stranger.value.code == "not_friends"
    befriend(carol, bob)
    with pytest.raises(SocialError) as not_seated:
        invitations.invite(carol, bob, room.pk)
    assert not_seated.value.code == "not_seated"
    befriend(alice, carol)
    with pytest.raises(SocialError) as full:
        invitations.invite(alice, carol, room.pk)  # two people, no bot
    assert full.value.code == "room_full"


@pytest.mark.django_db
def test_a_blocked_invitation_is_refused_with_a_sentence(alice, bob):
    befriend(alice, bob)
    room = started_room(alice, [], game="ligretto", bots=1)
    services.block(bob, alice)
    with pytest.raises(SocialError) as refused:
        invitations.invite(alice, bob, room.pk)
    assert refused.value.message == "bob does not accept requests or invitations from you."
    answer = client_for(alice).post(f"/rooms/{room.pk}/invite/", {"name": "bob"}, follow=True)
    assert "bob does not accept requests or invitations from you." in answer.text


@pytest.mark.django_db
def test_nobody_answers_someone_elses_invitation(alice, bob, carol):
    befriend(alice, bob)
    room = started_room(alice, [], game="ligretto", bots=1)
    invitation = invitations.invite(alice, bob, room.pk)
    for answer in ("accept", "decline"):
        response = client_for(carol).post(f"/invitations/{invitation.pk}/{answer}/", follow=True)
        assert "There is no such invitation." in response.text
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.PENDING
    assert not Player.objects.filter(match__room=room, user=carol).exists()
    assert client_for(carol).post(f"/invitations/{invitation.pk}/steal/").status_code == 404


@pytest.mark.django_db
def test_an_invitation_is_answered_once(alice, bob):
    befriend(alice, bob)
    room = lobby.create_room(alice, "ligretto", 3, None)
    invitation = invitations.invite(alice, bob, room.pk)
    invitations.decline(bob, invitation.pk)
    with pytest.raises(SocialError) as twice:
        invitations.accept(bob, invitation.pk)
    assert twice.value.code == "answered"


@pytest.mark.django_db
def test_a_rematch_invites_the_same_players(alice, bob, carol, django_capture_on_commit_callbacks):
    room = started_room(alice, [bob, carol], game="ligretto")
    Room.objects.filter(pk=room.pk).update(status=Room.Status.FINISHED)
    with django_capture_on_commit_callbacks(execute=True):
        rematch = lobby.rematch(room.pk, alice)
    sent = Invitation.objects.filter(room=rematch, sender=alice)
    assert set(sent.values_list("recipient__username", flat=True)) == {"bob", "carol"}


@pytest.mark.django_db
def test_every_social_page_wants_a_signed_in_member(client, alice):
    """Visitors are sent to the log-in page by every page and form of the social app."""
    gets = ["/friends/", "/invitations/", "/notifications/", "/account/data/"]
    gets += ["/account/data/export/1/", "/account/data/export/1/download/"]
    posts = ["/friends/ask/", "/friends/alice/ask/", "/invitations/1/accept/", "/rooms/1/invite/"]
    posts += ["/notifications/read/", "/notifications/settings/", "/push/subscribe/"]
    posts += ["/account/data/export/", "/account/delete/"]
    for path in gets:
        assert client.get(path).status_code == 302, path
    for path in posts:
        assert client.post(path).status_code == 302, path
    # Forms are posted, never got (a link preview must change nothing).
    for path in posts:
        assert client_for(alice).get(path).status_code == 405, path
