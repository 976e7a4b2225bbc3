"""The Board API's live stream: `/ws/api/v1/rooms/{id}/?token=…`, JSON views of one room.

It sends the caller's view at once and after every change (the `table.public` signal that
tables.push sends after each commit), and takes actions through the one write path. A change
is pushed to every socket of the room at once, so the view is built from this process's
cached table when it holds that very version (no query per recipient); only a change made by
another process, or a socket that fell behind, loads the table.
"""

from __future__ import annotations

import json
import secrets
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext as _

from api import auth, views
from api.serialize import room_json
from lobby import access, live
from lobby.models import Room
from tables import current, presence, push, sockets

# How views reached this process's sockets: from the cache, or loaded (for the figures).
stats = {"cached": 0, "loaded": 0}


class ApiStreamConsumer(AsyncWebsocketConsumer):
    room_id: int
    user: Any = None
    seat: int | None = None  # the seat whose presence this socket counts
    match_key: tuple[int, int] | None = None  # current.cache_key of the room's match
    version = 0

    async def connect(self) -> None:
        self.room_id = int(self.scope["url_route"]["kwargs"]["room_id"])
        raw = (parse_qs(self.scope.get("query_string", b"").decode()).get("token") or [""])[0]
        # Accept first: a close code (4401, 4404) only reaches a client on an open socket.
        await self.accept()
        self.user = await database_sync_to_async(auth.user_for_token)(raw)
        if self.user is None:
            await self.close(code=4401)
            return
        invite = (parse_qs(self.scope.get("query_string", b"").decode()).get("invite") or [None])[0]
        if not await database_sync_to_async(_may_watch)(self.room_id, self.user, invite):
            self.user = None
            await self.close(code=4404)
            return
        # Join the groups before the first view, so that no change falls between the two.
        # The token's user's group: a ban (or password change) reaches this socket too.
        await self.channel_layer.group_add(push.table_group(self.room_id), self.channel_name)
        await self.channel_layer.group_add(live.room_group(self.room_id), self.channel_name)
        await self.channel_layer.group_add(sockets.user_group(self.user.pk), self.channel_name)
        await self._send_current()

    async def disconnect(self, code: int) -> None:
        if self.user is None or not hasattr(self, "room_id"):
            return
        await self.channel_layer.group_discard(push.table_group(self.room_id), self.channel_name)
        await self.channel_layer.group_discard(live.room_group(self.room_id), self.channel_name)
        await self.channel_layer.group_discard(sockets.user_group(self.user.pk), self.channel_name)
        if self.seat is not None:
            await database_sync_to_async(presence.disconnected)(self.room_id, self.seat)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            message = json.loads(text_data or "")
        except ValueError:
            message = None
        if not isinstance(message, dict):
            await self._error("bad_message", 'Send a JSON object with a "type".')
            return
        kind = message.get("type")
        if kind == "ready":  # api.md's after-round message, short for the ready action
            message = {"type": "action", "action": {"type": "ready"}}
        elif kind == "sync":
            self.version = 0
            await self._send_current()
            return
        elif kind != "action":
            await self._error("bad_message", 'Messages are {"type": "action", "action": {...}}.')
            return
        action = message.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            await self._error("bad_action", 'An action is an object with a "type".')
            return
        answer = await database_sync_to_async(self._act)(action)
        if "error" in answer:
            await self._error(answer["error"]["code"], answer["error"]["message"])
        else:
            await self._send_view(answer["view"])

    def _act(self, action: dict[str, Any]) -> dict[str, Any]:
        table = current.load_table(self.room_id)
        if table is None:
            return _refusal("not_started", _("This room has not started yet."))
        seat = table.seat_of(self.user)
        if seat is None:
            return _refusal(
                "not_seated", _("You have no seat at this table; spectators only watch.")
            )
        try:
            views.throttle_action(self.user)
        except views.ApiError as refusal:
            return _refusal(refusal.code, refusal.message)
        return views.act(self.room_id, seat, action)

    # ------------------------------------------------------------------ group messages

    async def table_public(self, event: dict[str, Any]) -> None:
        version = event["version"]
        if version <= self.version:
            return  # already sent (the answer to our own action, or a newer load)
        table = _cached(self.match_key, version)
        if table is None:
            # Another process wrote it: the first socket here to load it fills the cache, and
            # the room's other sockets (queued behind it for the database thread) reuse that.
            table = await database_sync_to_async(_cached_or_loaded)(
                self.room_id, self.match_key, version
            )
        else:
            stats["cached"] += 1
        await self._send_table(table)

    async def identity_changed(self, event: dict[str, Any]) -> None:
        # Banned: his tokens no longer work, so neither does this socket. A password change
        # leaves tokens valid; the client reconnects with the same one (1012: try again).
        active = await database_sync_to_async(auth.user_for_token_user_active)(self.user.pk)
        await self.close(code=sockets.RECONNECT if active else 4401)

    async def table_notice(self, event: dict[str, Any]) -> None:
        # A finished table's rematch was opened: say where (the browser gets its own HTML).
        if "rematch" in event:
            notice = {"type": "rematch", "room": event["rematch"], "by": event["by"]}
            await self.send(text_data=json.dumps(notice))

    async def room_changed(self, event: dict[str, Any]) -> None:
        # Before the start the room is all there is; its start deals the first view.
        if self.match_key is None:
            await self._send_current()

    # ------------------------------------------------------------------ sending

    async def _send_current(self) -> None:
        table, room = await database_sync_to_async(_load)(self.room_id, self._base())
        if table is None:
            await self.send(text_data=json.dumps({"type": "room", "room": room}))
            return
        stats["loaded"] += 1
        await self._send_table(table)

    async def _send_table(self, table: current.Table) -> None:
        self.match_key = current.cache_key(table.match)
        seat = table.seat_of(self.user)
        if seat != self.seat:
            await self._count_presence(seat)
        await self._send_view(table.view(seat))

    async def _send_view(self, view: dict[str, Any]) -> None:
        if view["version"] <= self.version:
            return
        self.version = view["version"]
        await self.send(text_data=json.dumps({"type": "view", "view": view}))

    async def _count_presence(self, seat: int | None) -> None:
        # A player's stream is his presence at the table (no stand-in bot while it is open).
        old, self.seat = self.seat, seat
        if old is not None:
            await database_sync_to_async(presence.disconnected)(self.room_id, old)
        if seat is not None:
            await database_sync_to_async(presence.connected)(self.room_id, seat)

    def _base(self) -> str:
        # The browser's address of this site, as the client reached it (for the room's `url`).
        return f"{sockets.site_scheme(self.scope)}://{sockets.site_host(self.scope)}"

    async def _error(self, code: str, message: str) -> None:
        await self.send(
            text_data=json.dumps({"type": "error", "error": {"code": code, "message": message}})
        )


def _refusal(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def _cached(key: tuple[int, int] | None, version: int) -> current.Table | None:
    if key is None or not settings.API_STREAM_CACHE:
        return None
    return current.cached_table(key, version)


def _cached_or_loaded(room_id: int, key: tuple[int, int] | None, version: int) -> current.Table:
    table = _cached(key, version)
    if table is not None:
        stats["cached"] += 1
        return table
    stats["loaded"] += 1
    return current.load_table(room_id)


def _load(room_id: int, base: str) -> tuple[current.Table | None, dict[str, Any] | None]:
    table = current.load_table(room_id)
    if table is not None:
        return table, None
    room = Room.objects.select_related("host").prefetch_related("seat_set__user").get(pk=room_id)
    return None, room_json(room, base=base)


def _may_watch(room_id: int, user: Any, invite: str | None) -> bool:
    """Whether the room exists and `user` may see it (a private one: see lobby.access)."""
    room = Room.objects.filter(pk=room_id).first()
    if room is None:
        return False
    invited = invite is not None and secrets.compare_digest(invite, room.invite_code)
    return access.may_view(room, user, invited)
