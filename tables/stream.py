"""One home for a table's transports: what a table's socket does whatever its wire format.

`TableStream` is the base of the browser's table socket (lobby.table_consumers, HTML parts)
and of the Board API's stream (api.consumers, JSON views); each keeps only its wire format:
how a whole table and a change are drawn (`whole`, `frame`, for the socket's Gate) and how a
refusal is sent (`send_refusal`). Everything else is here, once:

- the access rule is handed in by the transport (`may_watch`: tables never imports lobby or
  api, so the layers stay one-way);
- listening to the room (this process's changes and, through the process's one relay,
  another's, all by `deliver`), through the socket's gate (tables.live.outbox.Gate);
- one resume (`missed`: the changes after the version the client says it shows, when this
  process's room pushed every one of them);
- one presence (`count_presence`: the seat whose connection this socket counts);
- one throttle (`act`: the transport's limit, `throttle`, and never more than
  TABLE_MOVES_IN_FLIGHT of one socket's moves in flight: a late move is a wrong move);
- one door for moves (`act` → tables.live.rooms.Rooms.act), the seat judged once, by the room
  (the holder check travels with the move), and a refusal worded in the reader's language.
"""

from __future__ import annotations

import asyncio
import collections
import statistics
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils.translation import gettext as _

from games.engine import Action, IllegalAction
from tables import presence
from tables.live import rooms
from tables.live.equalise import receipt
from tables.live.outbox import Frame, Gate
from tables.live.room import TAKEN_BY, Delivery, holder
from tables.live.rooms import Outcome, Rooms
from tables.pacing import equalise_of
from tables.words import refusal_text, say


def race_of(refusal: IllegalAction) -> dict[str, Any] | None:
    """A lost race's `taken_by` (the winner's name as the reader sees it, in the active
    language) and `earlier_ms`; None for any other refusal, or a race whose winner the room
    no longer knew. Read off the refusal's words (`RaceLost`), so that a refusal forwarded
    from the room's owner process (tables.live.owners) says them too."""
    name, ms = refusal.params.get("name"), refusal.params.get("ms")
    if refusal.template != TAKEN_BY or name is None or not isinstance(ms, int):
        return None
    return {"taken_by": say(name), "earlier_ms": ms}


# An equalised table's pings (docs/fairness.md): a few quick ones when the socket opens, then
# one every PING_SECONDS; its round trip is the median of the last RTT_SAMPLES answered.
PING_SECONDS = 2.0
QUICK_PINGS = 4
RTT_SAMPLES = 5


class TableStream:
    """A table's socket, whatever it speaks (see the module's docstring)."""

    room_id: int
    live_rooms: Rooms  # this process's rooms (of the socket's loop): its moves' one door
    user: Any = None
    seat: int | None = None  # the seat whose presence this socket counts (None: watching)
    language: str = settings.LANGUAGE_CODE  # the reader's: refusals are worded in it
    wants_html = False  # whether its frames are the table's HTML parts (tables.live.render)
    present = False  # this socket counts in its seat's presence
    # When the frame being handled was read (tables.sockets.ReceiveNow): its move's receipt.
    received: int | None = None

    # ------------------------------------------------------------------ the transport's

    async def may_watch(self) -> bool:
        """The access rule, handed in by the transport: may this socket's user see the room?"""
        raise NotImplementedError

    def watching(self) -> tuple[str, str]:
        """A watcher's move refused: its code and sentence on this transport."""
        return "not_seated", _("You have no seat at this table; spectators only watch.")

    async def throttle(self) -> tuple[str, str] | None:
        """The transport's limit on moves: None, or the refusal's (code, sentence)."""
        return None

    async def send_refusal(
        self, code: str, message: str, trigger: str | None, race: dict[str, Any] | None = None
    ) -> None:
        """Send a refused move's code and sentence (worded in the reader's language: the
        transport's handlers run under it); `race`: a lost race's `taken_by`, `earlier_ms`."""
        raise NotImplementedError

    async def whole(self) -> Frame:
        raise NotImplementedError

    async def frame(self, delivery: Delivery, shown: int) -> Frame | None:
        raise NotImplementedError

    async def send_text(self, text: str) -> None:
        raise NotImplementedError

    async def send_ping(self, ping: int) -> None:
        """Ask the client to answer `{"type": "pong", "ping": ping}` at once."""
        raise NotImplementedError

    # ------------------------------------------------------------------ listening

    def open_stream(self, room_id: int) -> None:
        """Before the socket is accepted: its room, its gate, no move in flight, and this
        process's rooms (the live server's, of this loop: its moves go straight to them)."""
        self.room_id = room_id
        self.live_rooms = rooms.bind(asyncio.get_running_loop())
        self.gate = Gate(self)
        self.acting: set[asyncio.Task[Outcome | None]] = set()
        self.pings: dict[int, int] = {}  # a ping's number -> when it was sent (receipt clock)
        self.rtts: collections.deque[int] = collections.deque(maxlen=RTT_SAMPLES)
        self.pinging: asyncio.Task[None] | None = None

    async def listen(self) -> None:
        """Every change of the room comes to `deliver` from now on: this process's straight
        from its room, another's through the process's one relay (tables.live.outbox.Relay),
        never through a group of the socket's own. Before the table is drawn: no change falls
        between the two."""
        await self.live_rooms.listen(self.room_id, self)

    async def close_stream(self) -> None:
        """The socket ends: it listens no more and no longer counts in its seat's presence."""
        if hasattr(self, "room_id"):
            self.live_rooms.unlisten(self.room_id, self)
            if self.pinging is not None:
                self.pinging.cancel()
            await self.count_presence(None)

    # ------------------------------------------------------------------ round trips

    async def start_pings(self) -> None:
        """On an equalised table, measure this socket's round trip with pings from now on
        (tables.live.equalise); other tables send none."""
        table = await rooms.table_now(self.room_id)
        if table is not None and equalise_of(table.match.options) and self.pinging is None:
            self.pinging = asyncio.create_task(self._pings())

    async def _pings(self) -> None:
        number = 0
        try:
            while True:
                number += 1
                self.pings[number] = receipt()
                self.pings.pop(number - RTT_SAMPLES * 2, None)  # unanswered ones are forgotten
                await self.send_ping(number)
                await asyncio.sleep(PING_SECONDS if number >= QUICK_PINGS else PING_SECONDS / 8)
        except Exception:  # the socket closed under it: nothing left to measure
            return

    def pong(self, ping: Any) -> None:
        """A pong came (its frame's receipt is `received`): one round trip measured. Only the
        server's own times count; the client says nothing but the ping's number."""
        sent = self.pings.pop(ping, None) if isinstance(ping, int) else None
        if sent is not None and self.received is not None:
            self.rtts.append(self.received - sent)

    @property
    def rtt(self) -> int | None:
        """This socket's round trip (µs), the median of the last ones measured; None yet."""
        return int(statistics.median(self.rtts)) if self.rtts else None

    async def table_notice(self, event: dict[str, Any]) -> None:
        """A note outside the versioned parts (a rematch was opened), from the relay."""

    def deliver_now(self, delivery: Delivery) -> bool:
        return False  # `deliver` takes it (a transport may send some at once)

    async def deliver(self, delivery: Delivery) -> None:
        await self.gate.offer(delivery)

    async def missed(self, known: int | None) -> list[Delivery] | None:
        """The changes after `known`, the version the client says it shows, if this process
        pushed every one of them (its room keeps the last few); None: send the whole table."""
        room = rooms.get(self.room_id)
        if known is None or room is None or not room.recent:
            return None
        now = await database_sync_to_async(rooms.version_of)(self.room_id)
        return room.missed(known, now) if now is not None else None

    # ------------------------------------------------------------------ presence

    async def count_presence(self, seat: int | None) -> None:
        """Count this socket in `seat`'s presence (None: in none), uncounting the old one."""
        old, was = self.seat, self.present
        self.seat, self.present = seat, seat is not None
        if was and old is not None and old != seat:
            await database_sync_to_async(presence.disconnected)(self.room_id, old)
        if seat is not None and (not was or old != seat):
            await database_sync_to_async(presence.connected)(self.room_id, seat)

    # ------------------------------------------------------------------ moves

    async def act(
        self,
        seat: int | None,
        action: Action,
        trigger: str | None = None,
        wants_view: bool = False,
    ) -> Outcome | None:
        """Take `action` for `seat` to the room (which judges whether this user holds it);
        None when it was refused (the refusal sent, in the reader's language)."""
        received = self.received  # read before any wait: the next frame may be read meanwhile
        if not await self._may_act(seat, trigger):
            return None
        assert seat is not None
        return await self._to_room(seat, action, trigger, wants_view, received)

    async def act_soon(self, seat: int | None, action: Action, trigger: str | None = None) -> None:
        """`act` without waiting for the room (a browser's way: its frames come by the
        deliveries): judged here now, then taken to the room in a task of its own."""
        received = self.received
        if not await self._may_act(seat, trigger):
            return
        assert seat is not None
        task = asyncio.create_task(self._to_room(seat, action, trigger, False, received))
        self.acting.add(task)
        task.add_done_callback(self.acting.discard)

    async def _may_act(self, seat: int | None, trigger: str | None) -> bool:
        """A watcher does not act; the transport's limit, and never more than
        TABLE_MOVES_IN_FLIGHT of this socket's moves at once (a late move is a wrong move)."""
        if seat is None:
            await self.send_refusal(*self.watching(), trigger)
            return False
        limited = await self.throttle()
        if limited is None and len(self.acting) >= settings.TABLE_MOVES_IN_FLIGHT:
            limited = "too_fast", _("Slow down: too many actions at once.")
        if limited is not None:
            await self.send_refusal(*limited, trigger)
            return False
        return True

    async def _to_room(
        self,
        seat: int,
        action: Action,
        trigger: str | None,
        wants_view: bool,
        received: int | None,
    ) -> Outcome | None:
        try:
            return await self.live_rooms.act(
                self.room_id,
                seat,
                action,
                check=holder(seat, self.user),
                wants_view=wants_view,
                received=received,
                rtt=self.rtt if hasattr(self, "rtts") else None,
            )
        except IllegalAction as refusal:
            await self.send_refusal(refusal.code, refusal_text(refusal), trigger, race_of(refusal))
            return None
