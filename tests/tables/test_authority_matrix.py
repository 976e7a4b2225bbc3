"""Who may make a move, over every transport (issue 18): the authorisation matrix.

For each kind of caller that must not move a seat of alice and bob's table (nobody signed in,
a signed-in visitor, a player of another room, a player who left, a banned player, a revoked
token), a move is tried over the table socket, the Board API's HTTP call and its stream. Every
try is refused in words (or the socket is closed), and the engine's state and the log of
people's moves stay as they were.
"""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser

from api.models import ApiToken
from lobby import services
from moderation import services as moderation
from tables.live import rooms
from tables.models import ActionLog
from tests.api.helpers import Api, stream
from tests.conftest import make_user
from tests.moderation.helpers import make_moderator
from tests.tables.helpers import started_room, table_socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

FLIP = {"type": "flip"}
KINDS = ["anonymous", "visitor", "other_room", "left", "banned", "revoked"]


def _api(token: str | None) -> Api:
    api = Api()
    api.token = token  # Api() with no user issues none: the call goes out as given
    return api


def _state(room_id: int) -> tuple[object, int]:
    """The engine's state and the number of moves people made (presence changes aside)."""
    table = rooms.read(room_id)
    logged = ActionLog.objects.filter(match__room_id=room_id, by_bot=False, refused="").count()
    return table.game.dump(table.state), logged


def _cast() -> dict:
    alice, bob, eve = make_user("alice"), make_user("bob"), make_user("eve")
    carol, dave = make_user("carol"), make_user("dave")
    room = started_room(alice, [bob])
    started_room(carol, [dave])
    _, bob_token = ApiToken.objects.issue(bob, "bot")
    return {
        "room": room,
        "alice": alice,
        "bob": bob,
        "eve": eve,
        "carol": carol,
        "bob_token": bob_token,
    }


def _caller(cast: dict, kind: str) -> tuple[object, str | None]:
    """The user a socket of `kind` was opened as, and the token its API calls carry."""
    if kind == "anonymous":
        return AnonymousUser(), None
    if kind in ("visitor", "other_room"):
        user = cast["eve"] if kind == "visitor" else cast["carol"]
        _, token = ApiToken.objects.issue(user, "mine")
        return user, token
    return cast["bob"], cast["bob_token"]  # left, banned, revoked: bob, seated when he connected


def _take_away(cast: dict, kind: str) -> None:
    """What happens to bob after his sockets opened."""
    room, bob = cast["room"], cast["bob"]
    if kind == "left":
        services.leave_room(room.pk, bob)
    elif kind == "banned":
        moderation.ban(bob, make_moderator("mod"), "cheating")
    elif kind == "revoked":
        ApiToken.objects.filter(user=bob).delete()


async def _table_try(communicator) -> str:  # noqa: ANN001
    """Send a move on a table socket; return the refusal's code, or "closed"."""
    await communicator.send_to(text_data=json.dumps(FLIP))
    while True:
        message = await communicator.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            return "closed"
        text = message["text"]
        if 'id="table-flash"' in text and 'data-code="' in text:
            start = text.index('data-code="') + len('data-code="')
            return text[start : text.index('"', start)]


async def _stream_try(communicator) -> str:  # noqa: ANN001
    """Send a move on an API stream; return the refusal's code, or "closed"."""
    await communicator.send_to(text_data=json.dumps({"type": "action", "action": FLIP}))
    while True:
        message = await communicator.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            return "closed"
        frame = json.loads(message["text"])
        if "error" in frame:
            return frame["error"]["code"]


@pytest.mark.parametrize("kind", KINDS)
async def test_no_one_but_a_seat_holder_moves_that_seat_over_any_transport(kind, settings):
    settings.LEAVER_GRACE = 3600  # a leaver's seat is played by a bot later, not during the test
    cast = await sync_to_async(_cast)()
    room = cast["room"]
    user, token = await sync_to_async(_caller)(cast, kind)
    socket = await table_socket(room.pk, user)
    await socket.receive_output(timeout=5)  # the whole table
    streamed = None
    if token is not None:
        streamed = await stream(room.pk, token)
        await streamed.receive_output(timeout=5)  # its first view
    await sync_to_async(_take_away)(cast, kind)
    before = await sync_to_async(_state)(room.pk)

    # A revoked token is the API's matter: bob's browser session still holds his seat.
    refused = set() if kind == "revoked" else {await _table_try(socket)}
    if streamed is not None:
        refused.add(await _stream_try(streamed))
    answer = await sync_to_async(_api(token).post)(f"rooms/{room.pk}/actions", {"action": FLIP})

    assert answer.status_code in (401, 403, 404), answer.content
    assert answer.json()["error"]["code"] in {"no_token", "bad_token", "not_seated", "not_found"}
    # The socket says why (a spectator, no seat) or is closed (a ban, a revoked token).
    assert refused <= {"spectator", "not_seated", "closed"}, refused
    assert await sync_to_async(_state)(room.pk) == before  # nothing moved, nothing logged
    await socket.disconnect()
    if streamed is not None:
        await streamed.disconnect()


async def test_the_seat_holder_herself_still_moves_over_each_transport():
    # The matrix's other side: the seat's holder is not refused by the same checks.
    cast = await sync_to_async(_cast)()
    room, alice = cast["room"], cast["alice"]
    _, token = await sync_to_async(ApiToken.objects.issue)(alice, "mine")
    before = (await sync_to_async(_state)(room.pk))[1]
    answer = await sync_to_async(_api(token).post)(f"rooms/{room.pk}/actions", {"action": FLIP})
    assert answer.status_code == 200, answer.content
    assert (await sync_to_async(_state)(room.pk))[1] == before + 1
