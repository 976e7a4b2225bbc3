"""Friends and blocks: the services' rules, the pages, and the chat lines a block hides."""

from __future__ import annotations

import pytest
from django.utils import translation

from chat import hidden
from chat import services as chat
from social import services
from social.models import Block, Friendship, Invitation, Notification
from social.services import SocialError
from tests.conftest import client_for, make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    # The refusals' sentences are read in English here, whatever an earlier test activated.
    with translation.override("en"):
        yield


def test_a_request_accepted_makes_friends_both_ways(alice, bob):
    services.ask(alice, bob)
    assert services.relation(alice, bob) == "asked"
    assert services.relation(bob, alice) == "asking"
    services.accept(bob, alice)
    assert services.friend_ids(alice.pk) == {bob.pk}
    assert services.friend_ids(bob.pk) == {alice.pk}
    assert services.relation(bob, alice) == "friend"


def test_asking_back_accepts_and_asking_twice_is_refused(alice, bob, carol):
    services.ask(alice, bob)
    with pytest.raises(SocialError) as twice:
        services.ask(alice, bob)
    assert twice.value.code == "already_asked"
    services.ask(bob, alice)  # he asks back: that is a yes
    assert Friendship.objects.get().status == Friendship.Status.ACCEPTED
    with pytest.raises(SocialError) as again:
        services.ask(bob, alice)
    assert again.value.code == "already_friends"


def test_decline_and_end(alice, bob):
    services.ask(alice, bob)
    services.decline(bob, alice)
    assert not Friendship.objects.exists()
    with pytest.raises(SocialError):
        services.decline(bob, alice)  # nothing left to answer
    services.ask(alice, bob)
    services.accept(bob, alice)
    services.end(bob, alice)  # either side may end it
    assert services.friend_ids(alice.pk) == set()


def test_nobody_answers_a_request_made_to_someone_else(alice, bob, carol):
    services.ask(alice, bob)
    with pytest.raises(SocialError) as refused:
        services.accept(carol, alice)
    assert refused.value.status == 404
    assert Friendship.objects.get().status == Friendship.Status.PENDING


def test_a_request_notifies_its_recipient(alice, bob):
    services.ask(alice, bob)
    note = Notification.objects.get(user=bob)
    assert note.kind == "friend_request" and note.params["name"] == "alice"


def test_a_block_refuses_requests_both_ways_with_a_sentence(alice, bob):
    services.ask(alice, bob)
    services.accept(bob, alice)
    services.block(bob, alice)
    assert services.friend_ids(bob.pk) == set()  # the friendship ended
    with pytest.raises(SocialError) as refused:
        services.ask(alice, bob)
    assert refused.value.status == 403
    assert "does not accept requests or invitations from you" in refused.value.message
    with pytest.raises(SocialError) as own:
        services.ask(bob, alice)
    assert "unblock them first" in own.value.message
    services.unblock(bob, alice)
    services.ask(alice, bob)
    assert Friendship.objects.filter(status="pending").count() == 1


def test_a_block_ends_pending_invitations(alice, bob):
    room = started_room(alice, [], bots=1)
    services.ask(alice, bob)
    services.accept(bob, alice)
    invitation = Invitation.objects.create(room=room, sender=alice, recipient=bob)
    services.block(bob, alice)
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.WITHDRAWN


def test_the_chat_hides_a_blocked_players_lines_from_the_blocker_only(alice, bob, carol):
    room = started_room(alice, [bob, carol], game="ligretto")
    chat.post(room.pk, bob, "hello all")
    chat.post(room.pk, carol, "hi")
    services.block(alice, bob)
    assert hidden.unseen_by(alice) == frozenset({bob.pk})
    assert hidden.unseen_by(carol) == frozenset()
    _seen, for_alice = chat.render_backlog(room.pk, alice)
    _seen, for_carol = chat.render_backlog(room.pk, carol)
    assert "hello all" not in for_alice and "hi" in for_alice
    assert "hello all" in for_carol


def test_the_friends_page_and_the_player_page_work_the_buttons(alice, bob):
    page = client_for(alice).get(f"/players/{bob.username}/")
    assert 'id="ask-friend-button"' in page.text
    client_for(alice).post(
        f"/friends/{bob.username}/ask/", HTTP_REFERER=f"/players/{bob.username}/"
    )
    friends = client_for(bob).get("/friends/")
    assert 'id="request-alice"' in friends.text
    client_for(bob).post("/friends/alice/accept/")
    friends = client_for(bob).get("/friends/")
    assert 'id="friend-alice"' in friends.text and 'data-state="offline"' in friends.text


def test_asking_by_name_and_refusals_say_why(alice, bob):
    answer = client_for(alice).post("/friends/ask/", {"name": "BOB"}, follow=True)
    assert "Request sent to bob." in answer.text
    answer = client_for(alice).post("/friends/ask/", {"name": "nobody"}, follow=True)
    assert "There is no player of that name." in answer.text
    client_for(bob).post("/friends/alice/block/")
    answer = client_for(alice).post("/friends/ask/", {"name": "bob"}, follow=True)
    assert "bob does not accept requests or invitations from you." in answer.text
    assert Block.objects.filter(blocker=bob, blocked=alice).exists()


def test_friends_pages_need_an_account(client, alice):
    assert client.get("/friends/").status_code == 302  # to the log-in page
    assert client.post("/friends/alice/ask/").status_code == 302
    assert client_for(alice).post("/friends/alice/explode/").status_code == 404


def test_nobody_befriends_himself(alice):
    with pytest.raises(SocialError) as refused:
        services.ask(alice, alice)
    assert refused.value.code == "yourself"


def test_whereabouts_say_online_at_a_table_or_last_seen(alice, bob):
    make_user("zed")
    where = services.whereabouts({alice.pk})
    assert where[alice.pk].state == "offline" and where[alice.pk].last_seen is None
