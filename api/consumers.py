"""The Board API's live stream: `/ws/api/v1/rooms/{id}/?token=…`, JSON views of one room.

The API's wire format on the table-stream base (tables.live.stream), which listens, resumes,
counts presence, throttles (with the API's per-user limit, shared with HTTP, handed in) and
takes moves to the room, whose holder check judges the seat once. It sends the caller's view
at once and after every change of the room, through the socket's gate. A change is built from
the very table the room handed over, or this process's memory of that version (no query per
recipient); only a change made by another process, or a socket that fell behind, loads it.
The access rule it hands the base is the lobby's (lobby.access), with the API's invite code.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from api import auth, views
from api.serialize import room_json
from games.engine import View
from games.registry import equalise_of
from lobby import access, live, quickplay, ratelimit
from lobby.models import Room
from tables import current, languages, presence
from tables.live import render, rooms, stream
from tables.live.room import Delivery
from tables.live.stream import Frame, TableStream

# How views reached this process's sockets: from memory, or loaded (for the figures).
stats = {"cached": 0, "loaded": 0}

# What a stream message may carry; the action inside is checked by tables.live.stream.action.
MESSAGE = {
    "type": stream.text(20, ascii_word=True),
    "action": lambda value: value,
    "ping": lambda value: value,  # a pong's: the ping's number (judged by `pong`)
}


class ApiStreamConsumer(stream.ReceiveNow, TableStream, stream.SendNow, AsyncWebsocketConsumer):
    wants_html = False  # its views are JSON, built per seat (no HTML is drawn for it)
    presence = presence  # where its seat's sockets are counted (handed in, as the access rule)
    token_id = 0
    revoked = False  # set when the token is revoked while the socket is open
    invite: str | None = None
    # `language`: the client's (Accept-Language): refusals are worded in it, as on HTTP.
    started = False  # the room's match has started (its first view was sent)
    # The player rows the seat was last looked up in, and that seat (rows change: look again).
    _seated_in: Any = None
    _seat_there: int | None = None

    async def dispatch(self, message: dict[str, Any]) -> None:
        await stream.dispatch(self, message)  # no database hop per frame

    async def connect(self) -> None:
        self.open_stream(int(self.scope["url_route"]["kwargs"]["room_id"]))
        self.language = languages.from_scope(self.scope)
        query = _query(self.scope.get("query_string", b""))
        # Accept first: a close code (4401, 4404) only reaches a client on an open socket.
        self.take_frames()  # its frames wait until the first view is out (frames_ready)
        await self.accept()
        token = await database_sync_to_async(auth.token_for)(query.get("token"))
        if token is None:
            await self.close(code=4401)
            return
        self.user, self.token_id = token.user, token.pk
        self.invite = query.get("invite")
        if not await self.may_watch():
            self.user = None
            await self.close(code=4404)
            return
        if rooms.get(self.room_id) is None:  # not live here: perhaps a quick-play room waiting
            await database_sync_to_async(quickplay.rearm)(self.room_id)
        # Join the groups before the first view, so that no change falls between the two.
        # The token's user's group: a ban (or password change) reaches this socket too; the
        # token's own group: revoking it closes this socket at once.
        for group in self._groups():
            await self.channel_layer.group_add(group, self.channel_name)
        await self.listen()  # every change comes straight here (another process's: the relay)
        stream.opened(self)  # a stopping server tells it first (restarting)
        since = _whole_number(query.get("since"))
        if since is None or await database_sync_to_async(rooms.version_of)(self.room_id) != since:
            await self.gate.draw()
        else:
            self.started = True  # it resumes where it stood: nothing it lacks to send
            self.gate.sent_now(since)
            seat = await database_sync_to_async(_seat_of)(self.room_id, self.user)
            await self.count_presence(seat)
        await self.start_pings()  # an equalised table measures its round trip
        self.frames_ready()

    async def may_watch(self) -> bool:
        return await database_sync_to_async(_may_watch)(self.room_id, self.user, self.invite)

    def _groups(self) -> list[str]:
        return [
            live.room_group(self.room_id),
            stream.user_group(self.user.pk),
            auth.token_group(self.token_id),
        ]

    async def restarting(self) -> None:
        """The server stops: say so, then close with 1012 (reconnect; the game goes on)."""
        # In the client's language (Accept-Language), as the API's other sentences.
        with translation.override(languages.from_scope(self.scope)):
            message = {"type": "restart", "message": _(stream.RESTARTING)}
        await self.send(text_data=json.dumps(message))
        await self.close(code=stream.RECONNECT)

    async def disconnect(self, code: int) -> None:
        stream.closed(self)
        await self.close_stream()
        if self.user is None or not hasattr(self, "room_id"):
            return
        for group in self._groups():
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.user is None or self.revoked:
            return  # closing: the token was refused, revoked or its user banned
        if translation.get_language() == self.language:
            # Its frames' own context speaks it already (the server hands frames over in the
            # context the socket connected in): switching there and back cost more than the
            # rest of the frame's decoding.
            await self._receive(text_data, bytes_data)
            return
        with translation.override(self.language):  # refusals worded per reader, as on HTTP
            await self._receive(text_data, bytes_data)

    async def _receive(self, text_data: str | None, bytes_data: bytes | None) -> None:
        # One strict parse at the edge: only checked values go on to the rules and the log.
        try:
            message = stream.record(
                stream.loads(text_data if text_data is not None else bytes_data),
                MESSAGE,
                code="bad_message",
            )
        except stream.WireError as refusal:
            # The stream's one code for a frame it cannot read (api.md), with the decoder's
            # sentence.
            await self._error("bad_message", refusal.message)
            return
        kind = message.get("type")
        if kind == "pong":  # an equalised table's ping answered (api.md)
            self.pong(message.get("ping"))
            return
        if kind == "ready":  # api.md's after-round message, short for the ready action
            message = {"type": "action", "action": {"type": "ready"}}
        elif kind == "sync":
            self.gate.version = 0
            await self.gate.draw()
            return
        elif kind != "action":
            await self._error("bad_message", 'Messages are {"type": "action", "action": {...}}.')
            return
        try:
            action = stream.action(message.get("action"), code="bad_action")
        except stream.WireError as refusal:
            await self._error(refusal.code, refusal.message)
            return
        if not self.started:
            await self._error("not_started", _("This room has not started yet."))
            return
        # Straight to the room in this loop, for the seat this stream's last view showed: the
        # room's holder check judges it (a seat given up since is refused there).
        seat = self.seat
        outcome = await self.act(seat, action, wants_view=True)
        if outcome is None or seat is None:
            return  # refused (and answered)
        if self.gate.shows(outcome.version) or self.gate.drawing:
            return  # its change reached this socket first (or follows the whole view)
        await self._send_view(outcome.view(seat))

    async def throttle(self) -> tuple[str, str] | None:
        # The API's count of the user's actions, shared with HTTP (the cache's counter, in
        # the loop: never blocking it); worded as HTTP words it only when it refuses.
        window = settings.API_ACTION_WINDOW
        if await ratelimit.ahit(views.ACTIONS, self.user.pk, settings.API_ACTIONS_PER_USER, window):
            return None
        refusal = views.too_many_actions(window)
        return refusal.code, refusal.message

    async def send_refusal(
        self, code: str, message: str, trigger: str | None, race: dict[str, Any] | None = None
    ) -> None:
        await self._error(code, message, race)

    # ------------------------------------------------------------------ changes

    def deliver_now(self, delivery: Delivery) -> bool:
        """The change sent in a plain call, when the room handed over that very table and the
        seat is known from its players (the server writes frames at once): True when it needs
        nothing more (sent now, or before). False: `deliver` takes it."""
        version, table = delivery.version, delivery.table
        if self.gate.shows(version) and not self.gate.drawing:
            return True  # already sent
        send = self._send_now
        if not send or table is None or table.version != version or not self.gate.take_now(version):
            return False
        if table.players is not self._seated_in or self.seat != self._seat_there:
            return False  # the seat is looked up (and presence counted) the usual way
        if not send(render.view_text(self.live_rooms.get(self.room_id), table, self._seat_there)):
            return False  # not accepted yet
        self.gate.sent_now(version)
        return True

    async def token_revoked(self, event: dict[str, Any]) -> None:
        # Revoked on the profile page: this socket spoke for that token, so it stops now. The
        # user stays known: disconnect() still uncounts his presence and leaves the groups.
        self.revoked = True
        await self.close(code=4401)

    async def access_changed(self, event: dict[str, Any]) -> None:
        # Left, removed or banned: a private room may no longer be his to watch; a seat he gave
        # up is no longer his (the next view says so, and _act judges by the table anyway).
        if event.get("room") != self.room_id or self.user is None or self.revoked:
            return
        if not await database_sync_to_async(_may_watch)(self.room_id, self.user, self.invite):
            await self.close(code=4404)
            return
        self.gate.version = 0
        await self.gate.draw()

    async def identity_changed(self, event: dict[str, Any]) -> None:
        # Banned: his tokens no longer work, so neither does this socket. A password change
        # leaves tokens valid; the client reconnects with the same one (1012: try again).
        if self.user is None or self.revoked:
            return
        active = await database_sync_to_async(auth.user_for_token_user_active)(self.user.pk)
        await self.close(code=stream.RECONNECT if active else 4401)

    async def table_notice(self, event: dict[str, Any]) -> None:
        # A finished table's rematch was opened: say where (the browser gets its own HTML).
        if "rematch" in event:
            notice = {"type": "rematch", "room": event["rematch"], "by": event["by"]}
            await self.send(text_data=json.dumps(notice))

    async def user_notice(self, event: dict[str, Any]) -> None:
        # Something for the user wherever his streams are (a new invitation: social.invitations).
        if not self.revoked:
            await self.send(text_data=json.dumps(event["notice"]))

    async def room_changed(self, event: dict[str, Any]) -> None:
        # Before the start the room is all there is; its start deals the first view.
        if not self.started:
            await self.gate.draw()

    # ------------------------------------------------------------------ the gate's

    async def whole(self) -> Frame:
        table, room = await database_sync_to_async(_load)(self.room_id, self._base())
        if table is None:
            return 0, json.dumps({"type": "room", "room": room})
        stats["loaded"] += 1
        return await self._framed(table)

    async def frame(self, delivery: Delivery, shown: int) -> Frame | None:
        version, table = delivery.version, delivery.table
        if table is None or table.version != version:
            table = rooms.durable(self.room_id, version)
            if table is None:
                # Another process wrote it: the first socket here to load it fills the room's
                # memory, and the room's other sockets (queued behind it) reuse that.
                table = await database_sync_to_async(_durable_or_loaded)(self.room_id, version)
            else:
                stats["cached"] += 1
        return await self._framed(table)

    async def _framed(self, table: current.Table) -> Frame:
        if not self.started and self.pinging is None and equalise_of(table.match.options):
            # It opened before the start: an equalised table's pings begin with its first view.
            self.pinging = asyncio.create_task(self._pings())
        self.started = True
        if table.players is not self._seated_in:  # a move shares its table's player rows
            self._seated_in, self._seat_there = table.players, table.seat_of(self.user)
        seat = self._seat_there
        if seat != self.seat:
            await self.count_presence(seat)  # a new version: send that one, not this one
            newer = rooms.newest(self.room_id)
            if newer is not None and newer.version > table.version:
                table = newer
        if table.version <= self.gate.version:
            return 0, ""  # nothing newer than what it shows
        return table.version, render.view_text(self.live_rooms.get(self.room_id), table, seat)

    async def send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def _send_view(self, view: View) -> None:
        if self.gate.shows(view["version"]):
            return
        self.gate.sent_now(view["version"])
        await self.send(text_data=render.encode_message({"type": "view", "view": view}))

    def _base(self) -> str:
        # The browser's address of this site, as the client reached it (for the room's `url`).
        return f"{stream.site_scheme(self.scope)}://{stream.site_host(self.scope)}"

    async def send_ping(self, ping: int) -> None:
        await self.send(text_data=json.dumps({"type": "ping", "ping": ping}))

    async def _error(self, code: str, message: str, race: dict[str, Any] | None = None) -> None:
        error = {"code": code, "message": message, **(race or {})}
        await self.send(text_data=json.dumps({"type": "error", "error": error}))


def _query(raw: bytes) -> dict[str, str]:
    """The query string's first value per name; bytes that are not UTF-8 are replaced."""
    parsed = parse_qs(raw.decode("utf-8", "replace"))
    return {name: values[0] for name, values in parsed.items() if values}


def _whole_number(text: str | None) -> int | None:
    """A query's whole number (`since`), or None when it is missing or not one."""
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 12:
        return None
    return int(text)


def _seat_of(room_id: int, user: Any) -> int | None:
    table = rooms.read(room_id)
    return table.seat_of(user) if table is not None else None


def _durable_or_loaded(room_id: int, version: int) -> current.Table:
    table = rooms.durable(room_id, version)
    if table is not None:
        stats["cached"] += 1
        return table
    stats["loaded"] += 1
    loaded = rooms.read(room_id)
    if loaded is None:
        raise Room.DoesNotExist(f"room {room_id} has no match")
    return loaded


def _load(room_id: int, base: str) -> tuple[current.Table | None, dict[str, Any] | None]:
    table = rooms.read(room_id)
    if table is not None:
        return table, None
    room = Room.objects.select_related("host").prefetch_related("seat_set__user").get(pk=room_id)
    return None, room_json(room, base=base)


def _may_watch(room_id: int, user: Any, invite: str | None) -> bool:
    """Whether the room exists and `user` may see it (a private one: see lobby.access)."""
    room = Room.objects.filter(pk=room_id).first()
    if room is None:
        return False
    invited = stream.same_secret(invite, room.invite_code)
    return access.may_view(room, user, invited)
