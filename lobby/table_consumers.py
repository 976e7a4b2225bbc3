"""The table's WebSocket: the browser's wire format on the table-stream base (tables.live.stream).

Parse → act → send. On (re)connect it sends the whole table (or, on a resume, what the page
missed); then each change of the room goes through the socket's gate, drawn as the table's
HTML parts in the reader's language. Actions arrive as JSON from htmx's ws-send, are decoded
strictly once (tables.live.stream) and go to the room through the base (`act_soon`: its throttle,
the room's one judgement of the seat); a refusal comes back to this socket only, as a short
note on the card. The access rule it hands the base is the lobby's (lobby.access).
"""

from __future__ import annotations

import time
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils.html import escape
from django.utils.translation import gettext as _

from lobby import access
from tables import languages, presence
from tables.live import render, rooms, stream
from tables.live.room import Delivery, unknown_room
from tables.live.stream import (
    CONNECTED,
    NOT_FOUND,
    NOTHING,
    Frame,
    LiveConsumer,
    ReceiveNow,
    TableStream,
)


class TableConsumer(ReceiveNow, TableStream, LiveConsumer):
    presence = presence  # where its seat's sockets are counted (handed in, as the access rule)
    extras = ""  # what else the room's socket carries (the chat), sent with the first table
    wants_html = True  # its frames are the table's HTML parts (tables.live.render draws them)
    pending: tuple[int, str] | None = None  # this seat's part, waiting for its public frame
    # A token bucket per socket (its `throttle`): people send a few actions a second; a flood
    # is refused here, before it queues for the database and delays everybody else's moves.
    tokens = 0.0
    refilled = 0.0
    # The version a reconnecting page shows (its `v`, when drawn for this seat): it gets what
    # it missed (`missed`) or, when nothing changed, only the live mark, not the whole table.
    known: int | None = None

    async def connect(self) -> None:
        # A move's frame is read straight from the server (no queue and dispatch per frame);
        # frames wait until the whole table is out (`frames_ready`), as they would in Channels.
        self.take_frames()
        self.open_stream(
            int(self.scope["url_route"]["kwargs"]["room_id"]), accepts_with_first_draw=True
        )
        self.tokens, self.refilled = float(settings.TABLE_ACTION_RATE), time.monotonic()
        shown, drawn_for = _shown(self.scope.get("query_string", b""))
        self.user = self.scope.get("user")
        if not await self.may_watch():
            await self.refuse()  # a private room: as if there were none
            return
        seat = await database_sync_to_async(presence.seat_for)(self.room_id, self.user)
        if seat is False:
            await self.refuse()
            return
        seat = _seat(seat)
        # A page drawn for another seat (he was banned, or signed in or out meanwhile) is drawn
        # whole again, whatever its version.
        if drawn_for == ("" if seat is None else str(seat)):
            self.known = shown
        # Pushes render once per language their readers use: say which this one reads.
        languages.note(render.table_group(self.room_id), self.language)
        await self._take_seat(seat)
        self.extras = await self.join_room_extras(self.room_id)  # sent with the first table
        # Every change of the room comes straight here from now on (another process's through
        # this one's relay): before the table is drawn, so that no change falls between.
        await self.listen()
        missed = await self.missed(self.known)
        if missed is not None:
            # The page shows a recent version: what it missed, not the whole table again.
            first, self.extras = self.extras + CONNECTED, ""
            await self.gate.resume(self.known or 0, missed, self._accept_with, first)
        else:
            await self.gate.draw(send=self._accept_with)
        self.known = None
        await self.start_pings()  # accepted: an equalised table measures its round trip
        self.frames_ready()

    async def may_watch(self) -> bool:
        return await database_sync_to_async(access.may_view_id)(
            self.room_id, self.user, self.scope.get("session")
        )

    async def disconnect(self, code: int) -> None:
        # Groups are left by LiveConsumer; the seat's count of open sockets goes down here.
        await self.close_stream()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # One strict parse at the edge: the rules, the chat and the database see checked values.
        try:
            message = stream.loads(text_data if text_data is not None else bytes_data)
            if not isinstance(message, dict):
                raise stream.WireError("bad_frame", "The message must be a JSON object.")
            if message.get("type") == "pong":  # an equalised table's ping answered
                self.pong(message.get("ping"))
                return
            trigger = _trigger(message.get("HEADERS"))
            # A frame for what else the socket carries (the chat), by its fields; a move is not.
            extra = self.room_extras_fields.intersection(message)
            if extra and await self.receive_room_extras(message):
                return
            action = stream.action(message)
        except stream.WireError as refusal:
            await self.send_refusal(refusal.code, refusal.message, None)
            return
        if action["type"] == "sync":
            await self.gate.draw()
            return
        # Its frames come by the deliveries: no view back, and nothing awaited here.
        await self.act_soon(self.seat, action, trigger)

    def watching(self) -> tuple[str, str]:
        return "spectator", _("You are watching this table; only players act.")

    async def throttle(self) -> tuple[str, str] | None:
        rate = settings.TABLE_ACTION_RATE
        now = time.monotonic()
        self.tokens = min(rate, self.tokens + (now - self.refilled) * rate)
        self.refilled = now
        if self.tokens < 1:
            return "too_fast", _("Slow down: too many actions at once.")
        self.tokens -= 1
        return None

    async def access_changed(self, event: dict[str, Any]) -> None:
        # This user left the match, was removed or banned: drop the seat (or the room) now, not
        # at the next connect. The room's own check (tables.live.room.holder) backs this up.
        if event.get("room") != self.room_id:
            return
        if not await database_sync_to_async(access.may_view_id)(
            self.room_id, self.user, self.scope.get("session")
        ):
            await self.close(code=NOT_FOUND)
            return
        seat = await database_sync_to_async(presence.seat_for)(self.room_id, self.user)
        seat = _seat(seat)
        if seat == self.seat:
            return
        await self._take_seat(seat)
        await self.gate.draw()

    async def _take_seat(self, seat: int | None) -> None:
        if seat is not None:
            # Its own part renders in its language (a change from elsewhere brings every
            # seat's part with the room's: this socket takes its own seat's only, as here).
            languages.note(render.seat_group(self.room_id, seat), self.language)
        await self.count_presence(seat)

    # ------------------------------------------------------------------ changes

    async def table_notice(self, event: dict[str, Any]) -> None:
        # A note outside the versioned parts (a rematch was opened): shown as it comes.
        await self.send(text_data=stream.pick(event, self.language))

    # ------------------------------------------------------------------ the gate's

    async def whole(self) -> Frame:
        known, self.known = self.known, None  # only the first draw may skip the table
        watcher = self.user.pk if self.user is not None and self.user.is_authenticated else None
        version, html = await database_sync_to_async(_render_full)(
            self.room_id, self.seat, known, watcher
        )
        self.pending = None
        extras, self.extras = self.extras, ""
        return version, html + extras + CONNECTED

    async def _accept_with(self, text: str) -> None:
        await self.accept()
        await self.send(text_data=text)

    def deliver_now(self, delivery: Delivery) -> bool:
        """The change sent in a plain call, as the gate would send it, when nothing is being
        drawn and the server writes frames at once: True when it needs nothing more (sent
        now, or already shown). False: `deliver` takes it (the whole table, or a socket not
        accepted yet), with nothing changed here."""
        send = self._send_now
        version = delivery.version
        if not send or self.gate.drawing:
            return False
        if self.gate.shows(version):
            return True  # already shown (a whole table overtook it), as the gate judges
        framed, pending = self._framed(delivery, self.gate.version)
        if framed is None:
            return False  # something went missing: the gate draws the whole table
        shown, text = framed
        if text:
            if not send(text):
                return False  # not accepted yet
            self.gate.sent_now(max(self.gate.version, shown))
        self.pending = pending
        return True

    async def frame(self, delivery: Delivery, shown: int) -> Frame | None:
        framed, self.pending = self._framed(delivery, shown)
        return framed

    def _framed(
        self, delivery: Delivery, shown: int
    ) -> tuple[Frame | None, tuple[int, str] | None]:
        """The frame of `delivery` for a page that shows version `shown` (None: something went
        missing), and this seat's part still waiting for its public frame afterwards."""
        version = delivery.version
        pending = self.pending
        mine = delivery.private.get(self.seat) if self.seat is not None else None
        if mine is not None:
            pending = (version, stream.pick(mine, self.language))
        public = delivery.public
        if not public:
            return NOTHING, pending  # an own part alone (another process's): its public follows
        if public.get("drawn") is False:
            return None, pending  # made for API streams alone (tables.live.render.wants_html)
        own = self.seat is not None and self.seat in public["private"]
        if (version != shown + 1 and not public["full"]) or (
            own and (pending is None or pending[0] != version)
        ):
            return None, pending  # something went missing: the whole table again
        html = stream.pick(public, self.language)
        if own and pending is not None:
            html = pending[1] + html
        return (version, html), None

    async def send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def send_ping(self, ping: int) -> None:
        # Answered by static/js/table.js, never drawn (htmx:wsBeforeMessage cancels it).
        await self.send(text_data=f'<template id="table-ping" data-ping="{ping}"></template>')

    async def send_refusal(
        self, code: str, message: str, trigger: str | None, race: dict[str, Any] | None = None
    ) -> None:
        target = escape(trigger) if trigger is not None else ""
        # A lost race's winner and margin as data too (the sentence already says them).
        taken = (
            f' data-taken-by="{escape(race["taken_by"])}" data-earlier-ms="{race["earlier_ms"]}"'
            if race is not None
            else ""
        )
        await self.send(
            text_data=f'<div id="table-flash" class="flash" data-code="{escape(code)}"'
            f' data-target="{target}"{taken}>{escape(message)}</div>'
        )


def _render_full(
    room_id: int, seat: int | None, known: int | None = None, watcher: int | None = None
) -> tuple[int, str]:
    """The whole table for `seat` (`watcher`: a spectator's user id); nothing when the page
    already shows its version (`known`)."""
    table = rooms.read(room_id)
    if table is None:
        raise unknown_room()
    if known == table.version:
        return table.version, ""
    return table.version, render.render_full(table, seat, watcher)


def _shown(query: bytes) -> tuple[int | None, str | None]:
    """The version a reconnecting page says it shows and the seat it was drawn for (`?v=N&s=S`,
    S empty for a spectator's page), or Nones."""
    version: int | None = None
    seat: str | None = None
    for pair in query.decode("latin-1").split("&"):
        name, _, value = pair.partition("=")
        if name == "v" and value.isascii() and value.isdigit() and len(value) <= 12:
            version = int(value)
        elif name == "s" and (value == "" or (value.isascii() and value.isdigit())):
            seat = value[:3]
    return version, seat


def _seat(found: int | bool | None) -> int | None:
    """presence.seat_for's seat, or None (a spectator; False was refused before)."""
    return None if found is None or isinstance(found, bool) else found


def _trigger(headers: Any) -> str | None:
    # htmx's ws-send names the element that sent the frame; the refusal is shown next to it.
    if isinstance(headers, dict):
        trigger = headers.get("HX-Trigger")
        if isinstance(trigger, str) and len(trigger) <= 100:
            return trigger
    return None
