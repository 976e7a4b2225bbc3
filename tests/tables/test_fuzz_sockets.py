"""Generated frames on every socket (issue 18): no crash, no close, no ERROR log, one answer each.

Every socket goes through cardgames.asgi.application as in production. A consumer that raises
makes the communicator raise, a close shows as `websocket.close`, and a move task that fails is
logged at ERROR by asyncio: each of these fails the test. Then one test per input class the
issue names, each showing that the refusal is one clear note and that nothing was written.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.models import ApiToken
from cardgames.asgi import application
from chat.models import ChatMessage
from tables.models import ActionLog
from tests.conftest import make_user
from tests.tables.fuzz import values
from tests.tables.helpers import ORIGIN, started_room

pytestmark = pytest.mark.django_db(transaction=True)

# Counted by the tests below and reported in docs/reliability.md; FUZZ_SCALE=10 for a long run.
EXAMPLES = 40 * int(os.environ.get("FUZZ_SCALE", "1"))
FRAMES_PER_EXAMPLE = 8

KEYS = ["type", "from", "to", "index", "pile", "source", "place", "chat", "chat_hide", "reason"]
TYPES = ["play", "flip", "ready", "sync", "draw", "take", "give", "reveal", "swap", "dance", ""]
shaped = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from(TYPES), values)},
    optional={
        **dict.fromkeys(KEYS[1:], values),
        "HEADERS": st.one_of(values, st.fixed_dictionaries({"HX-Trigger": values})),
    },
)


def _dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=True)


frames = st.one_of(
    st.text(max_size=60),
    values.map(_dumps),
    shaped.map(_dumps),
    st.integers(min_value=1, max_value=5000).map(lambda n: "[" * n + "]" * n),
    st.integers(min_value=1, max_value=40).map(lambda n: '{"type": ' * n + "1" + "}" * n),
    st.sampled_from(["NaN", '{"type": "play", "index": NaN}', '{"chat": Infinity}', "x" * 70000]),
    st.binary(max_size=40),
)


async def _open(path: str, user: Any = None) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    if user is not None:
        communicator.scope["user"] = user
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    await communicator.receive_from(timeout=5)  # the whole view, or the stream's first
    return communicator


async def _answered(communicator: WebsocketCommunicator) -> str:
    """The next frame the server sends, which must not be a close."""
    output = await communicator.receive_output(timeout=5)
    assert output["type"] == "websocket.send", output
    return output.get("text", "")


async def _throw(path: str, user: Any, sent: list[str]) -> None:
    communicator = await _open(path, user)
    for frame in sent:
        # send_input: the communicator's send_to refuses an empty frame, a client need not.
        key = "bytes" if isinstance(frame, bytes) else "text"
        await communicator.send_input({"type": "websocket.receive", key: frame})
        await _answered(communicator)
    # Whatever else is still coming (pushes of moves that were legal) is no close either.
    while not await communicator.receive_nothing(timeout=0.05):
        await _answered(communicator)
    await communicator.disconnect()


def _no_errors(caplog: pytest.LogCaptureFixture) -> None:
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


@pytest.fixture
def cast():  # noqa: ANN201 - a pytest fixture
    alice, bob, eve = make_user("alice"), make_user("bob"), make_user("eve")
    room = started_room(alice, [bob], game="allegra")
    token = ApiToken.objects.issue(alice, "fuzz")[1]
    return {"room": room.pk, "alice": alice, "eve": eve, "token": token}


SOCKETS = {
    "table (player)": lambda c: (f"/ws/rooms/{c['room']}/table/", c["alice"]),
    "table (spectator)": lambda c: (f"/ws/rooms/{c['room']}/table/", c["eve"]),
    "room": lambda c: (f"/ws/rooms/{c['room']}/", c["alice"]),
    "lobby": lambda c: ("/ws/lobby/", None),
    "api stream": lambda c: (f"/ws/api/v1/rooms/{c['room']}/?token={c['token']}", None),
}


@pytest.mark.parametrize("socket", SOCKETS)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sent=st.lists(frames, min_size=1, max_size=FRAMES_PER_EXAMPLE))
def test_no_generated_frame_crashes_or_closes_a_socket(cast, caplog, socket, sent):
    path, user = SOCKETS[socket](cast)
    with caplog.at_level(logging.WARNING):
        async_to_sync(_throw)(path, user, sent)
    _no_errors(caplog)


# --------------------------------------------------------------------------- input classes

CLASSES = {
    "deep nesting": '{"type": "play", "place": ' + "[" * 5000 + "]" * 5000 + "}",
    "NaN": '{"type": "flip", "index": NaN}',
    "Infinity": '{"type": "flip", "pile": Infinity}',
    "unicode digits": '{"type": "play", "from": "row", "index": "²"}',
    "wide digits": '{"type": "play", "from": "row", "index": "١"}',
    "wrong JSON type": '{"type": "take", "from": [1, 2], "to": "x"}',
    "object as type": '{"type": {"type": "flip"}}',
    "NUL in a field": '{"type": "fl\\u0000ip"}',
    "NUL in chat": '{"chat": "hello\\u0000world"}',
    "chat as object": '{"chat": {"text": "hi"}}',
    "hide by unicode id": '{"chat_hide": "١", "reason": "spam"}',
    "headers not an object": '{"type": "play", "index": "x", "HEADERS": [1]}',
    "too large": '{"chat": "' + "x" * 20000 + '"}',
    "not an object": "[1, 2, 3]",
}


def _written(room_id: int) -> tuple[int, int]:
    return (
        ActionLog.objects.filter(match__room_id=room_id).count(),
        ChatMessage.objects.filter(room_id=room_id).count(),
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("name", CLASSES)
async def test_each_input_class_gets_one_clear_refusal_and_writes_nothing(cast, caplog, name):
    room = cast["room"]
    before = await sync_to_async(_written)(room)
    communicator = await _open(f"/ws/rooms/{room}/table/", cast["alice"])
    with caplog.at_level(logging.WARNING):
        await communicator.send_to(text_data=CLASSES[name])
        answer = await _answered(communicator)
    if 'id="chat-note"' in answer:  # a chat frame: refused in the chat's own note line
        assert re.search(r'role="status">[^<]+</p>', answer), answer[:300]
    else:
        # The flash is no live region of its own (docs/i18n.md: the table's one live region,
        # #table-announce, says this socket's refusals): the refusal is the flash with its code.
        assert re.search(
            r'id="table-flash" class="flash" data-code="(bad_frame|bad_json|too_large)"', answer
        )
    assert "Traceback" not in answer
    assert await communicator.receive_nothing(timeout=0.1)
    assert await sync_to_async(_written)(room) == before
    await communicator.disconnect()
    _no_errors(caplog)


@pytest.mark.asyncio
@pytest.mark.parametrize("frame", ["nan", "inf"])
async def test_the_stream_refuses_non_finite_numbers_and_logs_nothing_of_them(cast, frame):
    value = {"nan": math.nan, "inf": math.inf}[frame]
    room = cast["room"]
    before = await sync_to_async(_written)(room)
    path = f"/ws/api/v1/rooms/{room}/?token={cast['token']}"
    communicator = await _open(path)
    message = {"type": "action", "action": {"type": "reveal", "place": {"seat": 0, "row": value}}}
    await communicator.send_to(text_data=json.dumps(message, allow_nan=True))
    answer = json.loads(await _answered(communicator))
    while answer["type"] == "view":  # the seat's presence: a change of its own
        answer = json.loads(await _answered(communicator))
    assert answer["type"] == "error" and answer["error"]["code"] == "bad_message"
    assert await sync_to_async(_written)(room) == before
    await communicator.disconnect()


@pytest.mark.asyncio
@pytest.mark.parametrize("invite", ["%C3%A9t%C3%A9", "%00", "%FF%FE", "x" * 300])
async def test_a_non_ascii_or_odd_invite_code_is_just_a_wrong_one(cast, invite):
    # secrets.compare_digest raises TypeError on non-ASCII str: the stream must not.
    room = await sync_to_async(_private_room)(cast["eve"])
    path = f"/ws/api/v1/rooms/{room}/?token={cast['token']}&invite={invite}"
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    output = await communicator.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": 4404}


@pytest.mark.asyncio
@pytest.mark.parametrize("token", ["%C3%A9", "cg_%00", "%FF", "é" * 10])
async def test_a_non_ascii_token_is_just_a_bad_one(cast, token):
    path = f"/ws/api/v1/rooms/{cast['room']}/?token={token}"
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    assert await communicator.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}


def _private_room(host: Any) -> int:
    from lobby import services

    return services.create_room(host, "ligretto-mini", 2, None, private=True).pk
