"""cardgames.server's own WebSocket framing, checked against the `websockets` library's.

The server writes a push's text frame itself (`text_frame`) and reads a move's small frames
itself (`small_text_frames`); everything else is autobahn's. Both must agree with RFC 6455 as
another implementation reads and writes it. A real server using both is tested in
tests/lobby/test_hardening_server.py and by every browser test.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from cardgames.frames import small_text_frames, text_frame

OP_TEXT, OP_BINARY, OP_PING = Opcode.TEXT, Opcode.BINARY, Opcode.PING


def parse_server_frame(data: bytes) -> Frame:
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    parser = Frame.parse(reader.read_exact, mask=False)
    with pytest.raises(StopIteration) as done:
        next(parser)
    return done.value.value


def client_frame(payload: bytes, opcode=OP_TEXT, fin: bool = True) -> bytes:
    return Frame(opcode, payload, fin=fin).serialize(mask=True)


@pytest.mark.parametrize("size", [0, 1, 125, 126, 1000, 65535, 65536, 70_000])
def test_a_pushed_text_frame_is_the_frame_another_implementation_writes(size):
    payload = ("é" * size).encode()[:size]
    frame = text_frame(payload)
    assert frame == Frame(OP_TEXT, payload).serialize(mask=False)
    parsed = parse_server_frame(frame)
    assert parsed.opcode == OP_TEXT and parsed.fin and parsed.data == payload


# At most 31 characters: 124 bytes of UTF-8 at the most, a small frame whatever they are.
@given(st.lists(st.text(max_size=31), min_size=1, max_size=5))
def test_small_client_text_frames_are_read_as_another_implementation_masks_them(texts):
    payloads = [t.encode() for t in texts]
    data = b"".join(client_frame(p) for p in payloads)
    assert small_text_frames(data) == payloads


@pytest.mark.parametrize(
    "data",
    [
        client_frame(b"x" * 126),  # long: autobahn's
        client_frame(b"\xff\xfe"),  # not UTF-8: autobahn answers 1007
        client_frame(b"{}", opcode=OP_BINARY),
        client_frame(b"", opcode=OP_PING),
        client_frame(b"half", fin=False),  # fragmented
        Frame(OP_TEXT, b"unmasked").serialize(mask=False),  # a protocol error: autobahn's
        client_frame(b'{"type": "flip"}')[:-3],  # split across reads
        client_frame(b'{"type": "flip"}') + client_frame(b"x" * 200),  # one of them long
        client_frame(b'{"type": "flip"}') + b"\x81",  # the next one only begun
    ],
    # Named, not by their bytes: the masks are random, and every worker must collect the same.
    ids=["long", "utf8", "binary", "ping", "fragment", "unmasked", "split", "2nd-long", "begun"],
)
def test_anything_else_is_left_whole_to_autobahn(data):
    assert small_text_frames(data) is None


def test_random_masks_unmask_exactly():
    for size in range(126):
        payload = os.urandom(size).hex()[:size].encode()
        assert small_text_frames(client_frame(payload)) == [payload]
