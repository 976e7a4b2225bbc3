"""Invitations: into an open room, into a running one's bot seat, refusals and authority."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.utils import translation

from lobby import services as lobby
from lobby.models import Room, Seat
from social import invitations, services
from social.models import Invitation, Notification
from social.services import SocialError
from tables import play
from tables.models import Player
from tests.conftest import client_for, make_user
from tests.social.helpers import frame_with, social_socket
from tests.tables.helpers import set_state, started_room, table_socket


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


def _round_over(data):
    data.update(status="round_over", scores=[[0] * len(data["players"])], ready=[])
    return data


def _everyone_ready(room_id: int, seats: int) -> None:
    """The round is over and every seat says ready: the last ready deals the next round."""
    set_state(room_id, _round_over)
    for seat in range(seats):
        play.act(room_id, seat, {"type": "ready"}, by_bot=seat != 0)


@pytest.mark.django_db
def test_a_friend_takes_a_running_tables_bot_seat_at_the_next_round(alice, bob):
    befriend(alice, bob)
    room = started_room(alice, [], game="ligretto", bots=2)
    invitation = invitations.invite(alice, bob, room.pk)
    invitations.accept(bob, invitation.pk)
    # Nobody joins mid-round: the bot plays on, bob watches, and his table page says why.
    player = Player.objects.get(match__room=room, seat=1)
    assert player.user_id is None and player.is_bot and player.claimed_by == bob
    assert not Seat.objects.filter(room=room, user=bob).exists()
    page = client_for(bob).get(f"/rooms/{room.pk}/").content.decode()
    assert 'id="seat-claim"' in page
    assert "You take a bot's seat at this table at the next round." in page
    assert 'id="seat-claim"' not in client_for(alice).get(f"/rooms/{room.pk}/").content.decode()

    _everyone_ready(room.pk, 3)
    player.refresh_from_db()
    assert player.user == bob and player.name == "bob" and not player.is_bot
    assert Seat.objects.get(room=room, index=1).user == bob
    assert Player.objects.filter(match__room=room, user__isnull=True).count() == 1
    assert 'id="lg-me" class="me' in client_for(bob).get(f"/rooms/{room.pk}/").content.decode()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_invitation_shows_live_and_his_open_table_seats_him_with_the_next_round():
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
    # His table opens as a spectator's, saying that he sits at the next round.
    table = await table_socket(room.pk, bob)
    first = await frame_with(table, 'id="table-version"')
    assert 'id="seat-claim"' in first and 'class="watching"' in first
    await sync_to_async(_everyone_ready)(room.pk, 2)
    # The deal seats him: his open page draws his own cards, and his socket counts.
    mine = await frame_with(table, 'id="lg-me" class="me')
    assert 'id="seat-claim"' not in mine
    for _ in range(50):
        player = await sync_to_async(Player.objects.get)(match__room=room, seat=1)
        if player.connections:
            break
        await asyncio.sleep(0.05)
    assert player.user_id == bob.pk and player.connections == 1
    assert not player.is_bot and player.away_since is None
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
