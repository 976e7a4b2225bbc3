"""Latency equalisation (issue 42, docs/fairness.md): near-simultaneous plays in sending order.

A room with the option on holds each play a window (settings.EQUALISE_WINDOW_MS, 40 ms) after
it reached the server, then applies the held plays in order of their estimated sending time:
the receipt minus half the round trip its socket's pings measured (`estimate`; capped by the
window, never a time a client claims).
Holding every play exactly the window is what makes the order right: a play that arrives after
one was applied was received at least a window later, so no estimate of it can come first.
Tables without the option never come here: their plays settle by arrival, with no hold.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time

from django.conf import settings

Turn = tuple[int, int]  # (estimated sending time, the order it came in): a held play's place


def receipt() -> int:
    """Now on the clock receipt times are kept in: microseconds of the monotonic clock (one
    clock for every process of a machine; never a time a client claims)."""
    return time.monotonic_ns() // 1000


def window_us() -> int:
    """The window (µs): plays received within it may be reordered (docs/fairness.md)."""
    return int(settings.EQUALISE_WINDOW_MS) * 1000


def estimate(received: int, rtt: int | None, window: int) -> int:
    """When a play received at `received` was sent, as the server estimates it: half its
    socket's measured round trip earlier (none measured: its receipt), at most `window`."""
    return received - min(max(rtt or 0, 0) // 2, window)


class Equaliser:
    """One room's held plays, released one at a time in order of estimated sending time."""

    def __init__(self, window: int | None = None) -> None:
        self.window = window_us() if window is None else window
        self.held: list[Turn] = []
        self.order = itertools.count()
        self.wakers: list[asyncio.Future[None]] = []

    async def wait_turn(self, received: int, rtt: int | None) -> Turn:
        """Hold a play received at `received` until it is its turn: the window has passed
        and no held play was sent before it. Call `done` with the turn once it is applied."""
        turn = (estimate(received, rtt, self.window), next(self.order))
        heapq.heappush(self.held, turn)
        try:
            wait = (received + self.window - receipt()) / 1_000_000
            if wait > 0:
                await asyncio.sleep(wait)
            while self.held[0] != turn:
                waker = asyncio.get_running_loop().create_future()
                self.wakers.append(waker)
                await waker
        except BaseException:
            self.done(turn)
            raise
        return turn

    def done(self, turn: Turn) -> None:
        """The play of `turn` was applied (or refused): the next one may go."""
        if turn in self.held:
            self.held.remove(turn)
            heapq.heapify(self.held)
        wakers, self.wakers = self.wakers, []
        for waker in wakers:
            if not waker.done():
                waker.set_result(None)
