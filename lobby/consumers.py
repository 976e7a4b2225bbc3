"""WebSocket transport for the lobby list and the room pages: join a group, forward renders."""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from lobby import live
from lobby.models import Room
from lobby.roomview import room_context

# Browser tests and people alike wait for this before trusting the page to be live.
CONNECTED = '<span id="live-status" class="live" data-connected="true">live</span>'


class LobbyConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        await self.channel_layer.group_add(live.LOBBY_GROUP, self.channel_name)
        await self.accept()
        # The ws extension never replays what was missed: send the whole list on (re)connect.
        html = await database_sync_to_async(live.render_room_list)()
        await self.send(text_data=html + CONNECTED)

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(live.LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        pass  # the lobby socket only listens

    async def lobby_update(self, event: dict) -> None:
        await self.send(text_data=event["html"])


class RoomConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.room_id = int(self.scope["url_route"]["kwargs"]["room_id"])
        # Join the group before rendering, so that no change falls between the two.
        await self.channel_layer.group_add(live.room_group(self.room_id), self.channel_name)
        html = await self._render()
        if html is None:
            await self.close(code=4404)
            return
        await self.accept()
        await self.send(text_data=html + CONNECTED)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "room_id"):
            await self.channel_layer.group_discard(live.room_group(self.room_id), self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        pass  # actions go through HTTP posts (and later the table's own socket)

    async def room_changed(self, event: dict) -> None:
        html = await self._render()
        if html is not None:
            await self.send(text_data=html)

    @database_sync_to_async
    def _render(self) -> str | None:
        room = Room.objects.filter(pk=self.room_id).select_related("host").first()
        if room is None:
            return None
        context = room_context(room, self.scope["user"], self._base_url())
        return render_to_string("lobby/room.html#live", context)

    def _base_url(self) -> str:
        headers = dict(self.scope.get("headers", []))
        host = headers.get(b"host", b"localhost").decode("latin-1")
        scheme = "https" if self.scope.get("scheme") == "wss" else "http"
        return f"{scheme}://{host}"
