"""The Board API's friends, invitations and notifications, the stream's invitation notice, and
that nobody reaches someone else's."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.utils import translation

from social import invitations, services
from social.models import Invitation, Notification
from tests.api.helpers import Api, error_code, next_of, stream
from tests.conftest import make_user
from tests.tables.helpers import started_room


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


@pytest.mark.django_db
def test_friends_through_the_api(alice, bob):
    a, b = Api(alice), Api(bob)
    asked = a.post("friends/ask", {"username": "bob"})
    assert asked.status_code == 200 and asked.json()["asked"] == ["bob"]
    assert b.get("friends").json()["requests"] == ["alice"]
    listed = b.post("friends/accept", {"username": "alice"}).json()
    assert listed["friends"][0] == {
        "username": "alice",
        "state": "offline",
        "room": None,
        "last_seen": None,
    }
    assert error_code(a.post("friends/ask", {"username": "bob"})) == "already_friends"
    assert a.post("friends/explode", {"username": "bob"}).status_code == 404
    assert error_code(a.post("friends/ask", {"username": "nobody"})) == "no_such_player"
    assert error_code(a.post("friends/ask", {"name": "bob"})) == "bad_request"
    assert error_code(a.post("friends/ask", {"username": ""})) == "no_such_player"
    assert Api(token="cg_nothing").get("friends").status_code == 401


@pytest.mark.django_db
def test_a_blocked_request_is_refused_with_its_sentence(alice, bob):
    Api(bob).post("friends/block", {"username": "alice"})
    refused = Api(alice).post("friends/ask", {"username": "bob"})
    assert refused.status_code == 403
    assert (
        refused.json()["error"]["message"]
        == "bob does not accept requests or invitations from you."
    )


@pytest.mark.django_db
def test_invitations_through_the_api_and_only_the_recipient_answers(alice, bob, carol):
    services.ask(alice, bob)
    services.accept(bob, alice)
    room = started_room(alice, [], game="ligretto", bots=1)
    made = Api(alice).post("invitations", {"username": "bob", "room": room.pk})
    assert made.status_code == 201 and made.json()["status"] == "pending"
    number = made.json()["id"]
    assert [i["id"] for i in Api(bob).get("invitations").json()["invitations"]] == [number]
    assert Api(carol).get("invitations").json()["invitations"] == []
    stolen = Api(carol).post("invitations/accept", {"id": number})
    assert stolen.status_code == 404 and error_code(stolen) == "no_such_invitation"
    assert (
        error_code(Api(alice).post("invitations/decline", {"id": number})) == "no_such_invitation"
    )
    taken = Api(bob).post("invitations/accept", {"id": number})
    assert taken.status_code == 200 and taken.json()["status"] == "accepted"
    assert Invitation.objects.get().status == "accepted"


@pytest.mark.django_db
def test_notifications_through_the_api_are_ones_own(alice, bob):
    services.ask(alice, bob)
    mine = Api(bob).get("notifications").json()
    assert (
        mine["unread"] == 1 and mine["notifications"][0]["text"] == "alice asks to be your friend."
    )
    number = mine["notifications"][0]["id"]
    assert Api(alice).get("notifications").json()["notifications"] == []
    Api(alice).post("notifications/read", {"id": number})  # not hers: nothing happens
    assert Notification.objects.get(pk=number).read_at is None
    assert Api(bob).post("notifications/read", {}).json()["unread"] == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_stream_tells_an_api_client_of_a_new_invitation():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    await sync_to_async(services.ask)(alice, bob)
    await sync_to_async(services.accept)(bob, alice)
    bobs_room = await sync_to_async(started_room)(bob, [], game="ligretto", bots=1)
    alices_room = await sync_to_async(started_room)(alice, [], game="ligretto", bots=1)
    token = (await sync_to_async(lambda: Api(bob))()).token
    socket = await stream(bobs_room.pk, token)
    await next_of(socket, "view")
    made = await sync_to_async(invitations.invite)(alice, bob, alices_room.pk)
    notice = await next_of(socket, "invitation")
    assert notice["invitation"] == {
        "id": made.pk,
        "room": alices_room.pk,
        "game": "ligretto",
        "sender": "alice",
        "recipient": "bob",
        "status": "pending",
    }
    await socket.disconnect()


@pytest.mark.django_db
def test_numbers_beyond_any_row_are_refused_not_a_500(alice):
    api = Api(alice)
    for path, body in (
        ("invitations", {"username": "alice", "room": 2**70}),
        ("invitations/accept", {"id": 2**64}),
        ("notifications/read", {"id": 2**63}),
    ):
        answer = api.post(path, body)
        assert answer.status_code == 400 and error_code(answer) == "bad_request", path
