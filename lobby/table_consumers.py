"""The table's WebSocket: thin transport between one browser and tables.play / tables.push.

On (re)connect it sends the whole table; then it forwards the bytes each change pushes (the
room's public parts, and this seat's own part), checking versions: a socket that sees a gap
gets the whole table again. Actions arrive as JSON from htmx's ws-send, are decoded strictly
(tables.wire) and go through the one write path with a check that this user still holds the seat
(tables.authority); a refusal comes back to this socket only, as a short note on the card.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils.html import escape
from django.utils.translation import gettext as _

from games.engine import IllegalAction
from lobby import access
from tables import authority, current, languages, play, presence, push, wire
from tables.sockets import CONNECTED, NOT_FOUND, LiveConsumer, ReceiveNow
from tables.words import refusal_text


class TableConsumer(ReceiveNow, LiveConsumer):
    room_id: int
    seat: int | None = None
    version = 0
    pending: tuple[int, str] | None = None  # this seat's part, waiting for its public frame
    drawing = False  # the whole table is being drawn and sent (`_send_whole`)
    redraw = False  # asked for again while drawing
    # A token bucket per socket: people send a few actions a second; a flood is refused here,
    # before it queues for the database and delays everybody else's moves.
    tokens = 0.0
    refilled = 0.0

    async def connect(self) -> None:
        # A move's frame is read straight from the server (no queue and dispatch per frame);
        # frames wait until the whole table is out (`frames_ready`), as they would in Channels.
        self.take_frames()
        self.tokens, self.refilled = float(settings.TABLE_ACTION_RATE), time.monotonic()
        self.held: list[tuple[bool, dict[str, Any], Any]] = []  # pushes during a drawing
        self.acting: set[asyncio.Task] = set()
        self.room_id = int(self.scope["url_route"]["kwargs"]["room_id"])
        self.user = self.scope.get("user")
        if not await database_sync_to_async(access.may_view_id)(
            self.room_id, self.user, self.scope.get("session")
        ):
            await self.refuse()  # a private room: as if there were none
            return
        seat = await database_sync_to_async(presence.seat_for)(self.room_id, self.user)
        if seat is False:
            await self.refuse()
            return
        self.seat = seat
        # Pushes render once per language their readers use: say which this one reads.
        languages.note(push.table_group(self.room_id), self.language)
        if seat is not None:
            languages.note(push.seat_group(self.room_id, seat), self.language)
        # Join the groups before rendering, so that no change falls between the two.
        await self.join_group(push.table_group(self.room_id))
        if self.seat is not None:
            await self.join_group(push.seat_group(self.room_id, self.seat))
            self.present = True
            await database_sync_to_async(presence.connected)(self.room_id, self.seat)
        self.drawing = True  # pushes from here on wait until the whole table is out
        push.listen(self.room_id, self)  # this process's changes come straight here
        await self._send_whole(await self.join_room_extras(self.room_id), accept=True)
        self.frames_ready()

    async def disconnect(self, code: int) -> None:
        # Groups are left by LiveConsumer; the seat's count of open sockets goes down here.
        if hasattr(self, "room_id"):
            push.unlisten(self.room_id, self)
        if getattr(self, "present", False):
            self.present = False
            await database_sync_to_async(presence.disconnected)(self.room_id, self.seat)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # One strict parse at the edge: the rules, the chat and the database see checked values.
        try:
            message = wire.loads(text_data if text_data is not None else bytes_data)
            if not isinstance(message, dict):
                raise wire.WireError("bad_frame", "The message must be a JSON object.")
            trigger = _trigger(message.get("HEADERS"))
            if await self.receive_room_extras(message):
                return
            action = wire.action(message)
        except wire.WireError as refusal:
            await self._refused(refusal.code, refusal.message, None)
            return
        if action["type"] == "sync":
            await self._send_full()
            return
        if self.seat is None:
            await self._refused(
                "spectator", _("You are watching this table; only players act."), None
            )
            return
        if not self._take_token():
            await self._refused("too_fast", _("Slow down: too many actions at once."), trigger)
            return
        if len(self.acting) >= settings.TABLE_MOVES_IN_FLIGHT:
            # Never queue a socket's moves behind each other: a late move is a wrong move.
            await self._refused("too_fast", _("Slow down: too many actions at once."), trigger)
            return
        task = asyncio.create_task(self._act(action, trigger))
        self.acting.add(task)
        task.add_done_callback(self.acting.discard)

    async def _act(self, action: dict[str, Any], trigger: Any) -> None:
        try:
            # Its frames come by the pushes: no view back from a room owned elsewhere.
            await play.act_async(
                self.room_id,
                self.seat,
                action,
                check=authority.holder(self.seat, self.user),
                wants_view=False,
            )
        except IllegalAction as refusal:
            await self._refused(refusal.code, refusal_text(refusal), trigger)

    def _take_token(self) -> bool:
        rate = settings.TABLE_ACTION_RATE
        now = time.monotonic()
        self.tokens = min(rate, self.tokens + (now - self.refilled) * rate)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def access_changed(self, event: dict[str, Any]) -> None:
        # This user left the match, was removed or banned: drop the seat (or the room) now, not
        # at the next connect. The write path's own check (tables.authority) backs this up.
        if event.get("room") != self.room_id:
            return
        if not await database_sync_to_async(access.may_view_id)(
            self.room_id, self.user, self.scope.get("session")
        ):
            await self.close(code=NOT_FOUND)
            return
        seat = await database_sync_to_async(presence.seat_for)(self.room_id, self.user)
        seat = None if seat is False else seat
        if seat == self.seat:
            return
        old, self.seat = self.seat, seat
        if old is not None:
            await self.leave_group(push.seat_group(self.room_id, old))
            if getattr(self, "present", False):
                self.present = False
                await database_sync_to_async(presence.disconnected)(self.room_id, old)
        if seat is not None:
            languages.note(push.seat_group(self.room_id, seat), self.language)
            await self.join_group(push.seat_group(self.room_id, seat))
            self.present = True
            await database_sync_to_async(presence.connected)(self.room_id, seat)
        await self._send_full()

    # A change arrives by the group only from another process; this one's come by push_*.
    async def table_private(self, event: dict[str, Any]) -> None:
        if not push.from_here(event):
            await self.push_private(event)

    async def table_public(self, event: dict[str, Any]) -> None:
        if not push.from_here(event):
            await self.push_public(event)

    async def push_private(self, event: dict[str, Any]) -> None:
        if event.get("seat") != self.seat:
            return  # another seat's part (this socket gave that seat up meanwhile): never kept
        if self.drawing:
            self.held.append((True, event, None))
            return
        self.pending = (event["version"], languages.pick(event, self.language))

    async def push_public(self, event: dict[str, Any], table: Any = None) -> None:
        version = event["version"]
        if self.drawing:
            self.held.append((False, event, table))  # after the whole table (_send_whole)
            return
        if version <= self.version:
            return  # already shown (a full render overtook it)
        own = self.seat is not None and self.seat in event["private"]
        if (version != self.version + 1 and not event["full"]) or (
            own and (self.pending is None or self.pending[0] != version)
        ):
            await self._send_full()  # something went missing: the whole table again
            return
        html = languages.pick(event, self.language)
        if own and self.pending is not None:
            html = self.pending[1] + html
        self.pending = None
        self.version = version
        await self.send(text_data=html)

    async def table_notice(self, event: dict[str, Any]) -> None:
        # A note outside the versioned parts (a rematch was opened): shown as it comes.
        await self.send(text_data=languages.pick(event, self.language))

    async def _send_full(self) -> None:
        if self.drawing:
            # Already drawing the whole table (a sync, a seat change meanwhile): it draws
            # once more when that is out, with what is true then.
            self.redraw = True
            return
        await self._send_whole()

    async def _send_whole(self, extras: str = "", accept: bool = False) -> None:
        """Send the whole table; the changes pushed meanwhile follow it, never go before it.

        The table is drawn in the database thread while changes keep coming: each is held
        (`push_private`, `push_public`) and, once the table is out, those newer than it are
        handled as they would have been. Sent at once instead, a frame with every public part
        (nothing before it to compare with, so no gap to see) could go out before the older
        whole table, and the page showed that until the next change.
        """
        self.drawing = True
        try:
            while True:
                self.redraw = False
                version, html = await database_sync_to_async(_render_full)(self.room_id, self.seat)
                self.version, self.pending = version, None
                if accept:
                    await self.send_view(html + extras)  # accepts the socket first
                    accept = False
                else:
                    await self.send(text_data=html + CONNECTED)
                if not self.redraw:
                    break
        finally:
            self.drawing = False
            held, self.held = self.held, []
        for private, event, table in held:
            if event["version"] <= self.version:
                continue  # in the table that went out
            if private:
                await self.push_private(event)
            else:
                await self.push_public(event, table)

    async def _refused(self, code: str, message: str, trigger: Any) -> None:
        target = escape(trigger) if isinstance(trigger, str) else ""
        await self.send(
            text_data=f'<div id="table-flash" class="flash" data-code="{escape(code)}"'
            f' data-target="{target}">{escape(message)}</div>'
        )


def _render_full(room_id: int, seat: int | None) -> tuple[int, str]:
    table = current.load_table(room_id)
    return table.version, push.render_full(table, seat)


def _trigger(headers: Any) -> str | None:
    # htmx's ws-send names the element that sent the frame; the refusal is shown next to it.
    if isinstance(headers, dict):
        trigger = headers.get("HX-Trigger")
        if isinstance(trigger, str) and len(trigger) <= 100:
            return trigger
    return None
