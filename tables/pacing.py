"""Paced tables (issue 41): each player's plays at least `pace` seconds apart.

A room's options may ask for a pace (games.registry.SITE_OPTIONS). The room that applies the
moves (tables.live.rooms.apply_here) keeps a `Pacer`: a play that comes sooner than `pace`
after the same seat's last one is not refused; it waits for its turn, one at a time per seat
(a queue of one: a further play while one waits is refused with `pace_queued`). The waiting
play keeps its place until it is applied, its wait for the room's lock included, so that a
later play of the seat never overtakes it. The bots' driver keeps its bots to the pace itself
(tables.driver), so that its thread never waits here.

Times are wall-clock seconds, the clock of the action log's `created_at`: a seat's last play
counts from the moment it was durable, so that its log row is older than the next play's. Until
it is durable, the seat's next play waits (`unsettled`): the log's time of a play is its
batch's, and a writer running behind wrote a play more than a pace after it was applied, then
the next one (applied a pace after the first) 7 ms later (a clean clone's keyboard match).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from django.utils.translation import gettext_noop

from games.registry import bot_speed_of, equalise_of, pace_of
from tables.errors import PlayError

__all__ = ["Pacer", "bot_speed_of", "equalise_of", "pace_of"]

# How often a play looks again while its seat's last one is being written (seconds).
UNSETTLED_LOOK = 0.02


@dataclass(eq=False)  # one a room: told apart by identity (a room built anew has its own)
class Pacer:
    """One room's pace keeping: when each seat last played, and which seat's play waits."""

    played_at: dict[int, float] = field(default_factory=dict)
    waiting: set[int] = field(default_factory=set)
    # The seats whose last play was applied and is not yet durable (or failed): the moment
    # their next play may come counts from that durable moment, not yet known. One at most a
    # seat: its next play waits here until then.
    unsettled: set[int] = field(default_factory=set)

    def turn(self, seat: int, pace: float, queued: bool) -> float:
        """Seconds `seat`'s play must still wait (<= 0: it may play now). Refused
        (`pace_queued`) when another of the seat's plays holds its waiting place (a queue of
        one), even one whose wait is over and that waits for the room's lock; `queued`: this
        play holds it."""
        wait = self.wait_for(seat, pace)
        if seat in self.waiting and not queued:
            raise PlayError(
                "pace_queued",
                gettext_noop("Your last play is still waiting for its turn (a paced table)."),
                429,
                retry_after=max(1, math.ceil(wait + pace)),
            )
        return wait

    def queue(self, seat: int) -> Pacer:
        """`seat`'s early play takes its one waiting place (after `turn`), until `unqueue`."""
        self.waiting.add(seat)
        return self

    def unqueue(self, seat: int) -> None:
        self.waiting.discard(seat)

    def wait_for(self, seat: int, pace: float) -> float:
        """Seconds `seat` must still wait before its next play (<= 0: it may play now)."""
        if not pace:
            return 0.0
        if seat in self.unsettled:
            return min(pace, UNSETTLED_LOOK)
        if seat not in self.played_at:
            return 0.0
        return self.played_at[seat] + pace - time.time()

    def resume(self, played: dict[int, float]) -> None:
        """Go on from each seat's last play as the action log has it (a room built anew)."""
        for seat, at in played.items():
            self.played_at[seat] = max(self.played_at.get(seat, 0.0), at)

    def played(self, seat: int) -> None:
        """`seat` played now (applied, then again once durable: the later moment counts)."""
        self.played_at[seat] = max(self.played_at.get(seat, 0.0), time.time())

    def applied(self, seat: int) -> None:
        """`seat`'s play was applied now; it is being written (`settled` follows, always)."""
        self.played(seat)
        self.unsettled.add(seat)

    def settled(self, seat: int, durable: bool) -> None:
        """`seat`'s applied play was written (`durable`: its moment counts from now) or not."""
        self.unsettled.discard(seat)
        if durable:
            self.played(seat)
