"""WebSocket transport for the lobby list and the room pages: join a group, forward renders."""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from lobby import access, live, quickplay
from lobby.models import Room
from lobby.roomview import room_context
from tables import languages
from tables.live import rooms, stream
from tables.live.stream import NOT_FOUND, LiveConsumer


class LobbyConsumer(LiveConsumer):
    groups = [live.LOBBY_GROUP]  # joined before connect(), so no change is missed

    async def connect(self) -> None:
        # The ws extension never replays what was missed: send the whole list on (re)connect.
        languages.note(live.LOBBY_GROUP, self.language)
        await self.send_view(await database_sync_to_async(live.render_room_list)())

    async def lobby_update(self, event: dict) -> None:
        await self.send(text_data=stream.pick(event, self.language))


class RoomConsumer(LiveConsumer):
    async def connect(self) -> None:
        self.room_id = int(self.scope["url_route"]["kwargs"]["room_id"])
        if not await database_sync_to_async(access.may_view_id)(
            self.room_id, self.scope.get("user"), self.scope.get("session")
        ):
            await self.refuse()  # a private room: as if there were none
            return
        # A quick-play room still waiting: its fill goes on here if the process that opened
        # it has stopped (this page reconnected after a deploy).
        if rooms.get(self.room_id) is None:  # a live match is no waiting room
            await database_sync_to_async(quickplay.rearm)(self.room_id)
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
            message = stream.loads(text_data if text_data is not None else bytes_data)
            if not isinstance(message, dict):
                raise stream.WireError("bad_frame", "The message must be a JSON object.")
        except stream.WireError as refusal:
            await self.refuse_frame(refusal.code, refusal.message)
            return
        if not await self.receive_room_extras(message):
            await self.refuse_frame("bad_frame", "This page only sends chat lines.")

    async def access_changed(self, event: dict) -> None:
        # Removed by the host from a private room: its page is no longer his to watch.
        if event.get("room") != self.room_id:
            return
        if not await database_sync_to_async(access.may_view_id)(
            self.room_id, self.scope.get("user"), self.scope.get("session")
        ):
            await self.close(code=NOT_FOUND)
            return
        await self.room_changed(event)

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
