"""The chat part of a room's sockets (room page and table): one mixin, so both stay thin.

The routing (cardgames/routing.py) composes it into the lobby's room and table consumers.
Their `join_room_extras(room_id)` in connect() is `chat_join` (it returns the
backlog to send with the view), every decoded message goes to `receive_room_extras(message)`
first, i.e. `chat_receive` (True: it was chat), and they inherit the group handlers
`chat_line` and `chat_hidden`, which forward the rendered bytes,
and `chat_compose`, which redraws this user's chat box when a mute of his begins or ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from channels.db import database_sync_to_async

from chat import hidden, services
from tables import languages
from tables.live import stream

# What a chat frame may carry; the services judge the text itself (length, control characters).
# The text bound is generous (a line is cut at services.MAX_LENGTH), the id an ASCII number.
CHAT_FIELDS = {
    "chat": stream.text(4 * services.MAX_LENGTH),
    "chat_hide": stream.integer(1, 2**53),
    "reason": stream.text(2000),
}

if TYPE_CHECKING:  # what the mixin is mixed into: a live socket (scope, send, join_group)
    from tables.live.stream import LiveConsumer as _Socket
else:
    _Socket = object


class ChatSocket(_Socket):
    chat_room_id: int
    # What a frame for the chat has (`chat_receive`): the table's socket offers it only those.
    room_extras_fields = frozenset({"chat", "chat_hide"})
    # The newest line sent with the backlog: a line pushed between joining the group and
    # reading the backlog is in both, and is shown once.
    chat_seen = 0
    # The authors whose lines this reader blocked (chat.hidden), read when the socket joins.
    chat_unseen: frozenset[int] = frozenset()

    async def chat_join(self, room_id: int) -> str:
        """Join the room's chat group and return the chat's whole view for this socket."""
        self.chat_room_id = room_id
        await self.join_group(services.chat_group(room_id))  # before reading: miss nothing
        languages.note(services.chat_group(room_id), self.language)
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            await self.join_group(services.chat_user_group(user.pk))
        self.chat_unseen = await database_sync_to_async(hidden.unseen_by)(self.scope.get("user"))
        self.chat_seen, html = await database_sync_to_async(services.render_backlog)(
            room_id, self.scope.get("user")
        )
        return html

    async def join_room_extras(self, room_id: int) -> str:
        return await self.chat_join(room_id)

    async def receive_room_extras(self, message: dict[str, Any]) -> bool:
        return await self.chat_receive(message)

    async def chat_receive(self, message: dict[str, Any]) -> bool:
        """Handle a chat line ("chat") or a staff hide ("chat_hide"); False if neither."""
        if "chat" not in message and "chat_hide" not in message:
            return False
        try:
            fields = stream.record(message, CHAT_FIELDS)
        except stream.WireError as refusal:
            await self.refuse_frame(refusal.code, refusal.message)
            return True
        if "chat" in fields:
            await self._chat_call(services.post, self.chat_room_id, fields["chat"])
        else:
            await self._chat_call(services.hide, fields["chat_hide"], fields.get("reason"))
        return True

    async def refuse_frame(self, code: str, sentence: str) -> None:
        # On a room's page the chat's note line is where a refusal shows.
        await self.send(text_data=services.render_note(sentence))

    async def _chat_call(self, action, target: int, value: Any) -> None:  # noqa: ANN001
        user = self.scope.get("user")
        try:
            await database_sync_to_async(_call)(action, target, user, value)
        except services.ChatRefused as refusal:
            html = services.render_note(refusal.message)
            if refusal.muted:  # the box says so from now on, not only this once
                html += await database_sync_to_async(services.render_compose)(user)
            await self.send(text_data=html)
            return
        await self.send(text_data=services.render_note())  # clear an earlier refusal

    async def chat_line(self, event: dict[str, Any]) -> None:
        if event["id"] > self.chat_seen and event.get("author") not in self.chat_unseen:
            await self.send(text_data=stream.pick(event, self.language))

    async def chat_hidden(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["html"])

    async def chat_unseen_changed(self, event: dict[str, Any]) -> None:
        # The reader blocked or unblocked someone: later lines follow his new choice.
        self.chat_unseen = await database_sync_to_async(hidden.unseen_by)(self.scope.get("user"))

    async def chat_compose(self, event: dict[str, Any]) -> None:
        # A mute began or ended: the box shows the form again, or until when it is closed.
        user = self.scope.get("user")
        await self.send(text_data=await database_sync_to_async(services.render_compose)(user))


def _call(action, target: int, user, value: Any) -> None:  # noqa: ANN001
    # post(room_id, user, text) and hide(message_id, moderator, reason) share this shape.
    action(target, user, value)
