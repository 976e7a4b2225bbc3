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
