"""A socket's gate (tables.live.stream.Gate) on its own, with a socket that only records."""

from __future__ import annotations

import pytest

from tables.live.room import Delivery
from tables.live.stream import Frame, Gate

pytestmark = [pytest.mark.asyncio, pytest.mark.any_store]


class Recorder:
    """A socket whose whole table is at `version` (a stream: "" when nothing is newer)."""

    def __init__(self) -> None:
        self.version = 5
        self.sent: list[str] = []
        self.gate = Gate(self)

    async def whole(self) -> Frame:
        if self.version <= self.gate.version:
            return 0, ""  # what a stream's whole answers when it shows this already
        return self.version, f"whole {self.version}"

    async def frame(self, delivery: Delivery, shown: int) -> Frame | None:
        return delivery.version, f"change {delivery.version}"

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        if text == "whole 5" and len(self.sent) == 1:
            await self.gate.draw()  # asked again while the first draw is out: a redraw


async def test_a_redraw_with_nothing_newer_sends_nothing_and_keeps_the_version():
    socket = Recorder()
    await socket.gate.draw()
    # The redraw found nothing newer: no empty frame went out, and the socket still shows 5
    # (an empty frame once reached a Board API client, and the version fell back to 0).
    assert socket.sent == ["whole 5"]
    assert socket.gate.version == 5
    await socket.gate.offer(Delivery(1, 6, {}))
    assert socket.sent == ["whole 5", "change 6"]


class Connecting(Recorder):
    """A socket that its first draw accepts (the browser's table socket): sending anything
    before that is an error, as Daphne's "Socket has not been accepted"."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = Gate(self, opened=False)
        self.accepted = False

    async def send_text(self, text: str) -> None:
        if not self.accepted:
            raise ValueError("Socket has not been accepted, so cannot send over it")
        self.sent.append(text)

    async def accept_with(self, text: str) -> None:
        self.accepted = True
        self.sent.append("accept")
        self.sent.append(text)


async def test_a_change_that_comes_while_the_socket_connects_waits_for_its_accept():
    socket = Connecting()
    # The socket listens before it is drawn: a change reaches it first. It waits (it once
    # started a draw that failed, and the socket's own first draw never sent the accept).
    await socket.gate.offer(Delivery(1, 6, {}))
    await socket.gate.draw()  # a sync or a seat change meanwhile: nothing goes out either
    assert socket.sent == []
    await socket.gate.draw(send=socket.accept_with)
    assert socket.sent == ["accept", "whole 5", "change 6"]
    assert socket.gate.version == 6


async def test_a_reconnecting_socket_gets_its_accept_first_then_what_it_missed_and_what_came():
    socket = Connecting()
    await socket.gate.offer(Delivery(1, 6, {}))  # came while it connected
    await socket.gate.resume(4, [Delivery(1, 5, {})], socket.accept_with, "live")
    assert socket.sent == ["accept", "live", "change 5", "change 6"]
    assert socket.gate.version == 6
