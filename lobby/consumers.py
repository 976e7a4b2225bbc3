"""WebSocket transport for the lobby list and the room pages: join a group, forward renders."""

from __future__ import annotations

import json

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from lobby import access, live
from lobby.models import Room
from lobby.roomview import room_context
from tables import languages
from tables.sockets import LiveConsumer


class LobbyConsumer(LiveConsumer):
    groups = [live.LOBBY_GROUP]  # joined before connect(), so no change is missed

    async def connect(self) -> None:
        # The ws extension never replays what was missed: send the whole list on (re)connect.
        languages.note(live.LOBBY_GROUP, self.language)
        await self.send_view(await database_sync_to_async(live.render_room_list)())

    async def lobby_update(self, event: dict) -> None:
        await self.send(text_data=languages.pick(event, self.language))


class RoomConsumer(LiveConsumer):
    async def connect(self) -> None:
        self.room_id = int(self.scope["url_route"]["kwargs"]["room_id"])
        if not await database_sync_to_async(access.may_view_id)(
            self.room_id, self.scope.get("user"), self.scope.get("session")
        ):
            await self.refuse()  # a private room: as if there were none
            return
        # Join the group before rendering, so that no change falls between the two.
        await self.join_group(live.room_group(self.room_id))
        html = await self._render()
        if html is None:
            await self.refuse()
            return
        await self.send_view(html + await self.join_room_extras(self.room_id))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # The room page sends nothing but chat (its buttons are plain HTTP posts).
        try:
            message = json.loads(text_data or "")
        except ValueError:
            return
        if isinstance(message, dict):
            await self.receive_room_extras(message)

    async def room_changed(self, event: dict) -> None:
        html = await self._render()
        if html is not None:
            await self.send(text_data=html)

    @database_sync_to_async
    def _render(self) -> str | None:
        room = Room.objects.filter(pk=self.room_id).select_related("host").first()
        if room is None:
            return None
        context = room_context(room, self.scope["user"], self.base_url())
        return render_to_string("lobby/room.html#live", context)
