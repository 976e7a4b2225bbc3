"""The WebSocket frames cardgames.server writes and reads itself (RFC 6455), apart from the
server so that they can be imported (and tested) without installing its event loop."""

from __future__ import annotations

import struct


def text_frame(payload: bytes) -> bytes:
    """One whole WebSocket text frame from a server (RFC 6455 5.2: FIN, opcode 1, no mask)."""
    size = len(payload)
    if size < 126:
        return bytes((0x81, size)) + payload
    if size < 65536:
        return struct.pack("!BBH", 0x81, 126, size) + payload
    return struct.pack("!BBQ", 0x81, 127, size) + payload


def small_text_frames(data: bytes) -> list[bytes] | None:
    """The payloads of `data` if it is whole small text frames from a client, else None.

    Small: unfragmented, masked (RFC 6455 5.3), no extension bits, at most 125 bytes, valid
    UTF-8. None means "not only such frames": the caller leaves all of `data` to autobahn.
    """
    payloads = []
    at, end = 0, len(data)
    while at < end:
        if end - at < 6 or data[at] != 0x81:  # FIN + text, no RSV bits
            return None
        size = data[at + 1]
        if size & 0x80 == 0 or (size := size & 0x7F) > 125 or at + 6 + size > end:
            return None  # unmasked (a protocol error autobahn answers), long, or split
        mask = data[at + 2 : at + 6]
        masked = data[at + 6 : at + 6 + size]
        key = int.from_bytes((mask * (size // 4 + 1))[:size], "little")
        payload = (int.from_bytes(masked, "little") ^ key).to_bytes(size, "little")
        try:
            payload.decode()
        except UnicodeDecodeError:
            return None  # autobahn fails the connection with 1007
        payloads.append(payload)
        at += 6 + size
    return payloads
