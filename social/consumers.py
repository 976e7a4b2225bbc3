"""The social socket every signed-in page opens (`ws/social/`): the bell, the friends list,
invitations, and whether the page is visible.

Its connection is the user's presence (`Connection`): online while one is open, at a table
while a table page of a room where he holds a seat is open (`?room=N`, checked here, never
taken on the page's word), visible while the page says so (`{"visible": true|false}`, sent
by static/js/social.js on the Page Visibility API's changes). It joins `social.<user id>`
(social.pushes) and draws, on each message there, its own fragments in its reader's language.
It sends no `#live-status` (the table's and the room's sockets own that id): its marker is
`#social-live`.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import IntegrityError
from django.utils import timezone

from social import pushes, render
from social.models import Connection, Settings
from social.services import PAGE_LIFETIME, friend_ids
from tables.guests import is_member
from tables.live import stream
from tables.live.owners import PROCESS
from tables.live.stream import LiveConsumer
from tables.models import Player

FORBIDDEN = 4403


class SocialConsumer(LiveConsumer):
    user_id = 0
    shows_friends = False

    async def connect(self) -> None:
        user: Any = self.scope.get("user")
        if not await database_sync_to_async(_member)(user):
            await self.refuse(FORBIDDEN)  # guests and visitors have no friends list
            return
        self.user_id = user.pk
        query = _query(self.scope)
        self.shows_friends = query.get("friends") == "1"
        room_id = stream.ascii_int(query.get("room"), 1, 2**53)
        await self.join_group(pushes.social_group(user.pk))
        first = await database_sync_to_async(_opened)(
            user.pk, self.channel_name, room_id, self.language
        )
        if first:
            await _tell_friends(user.pk)
        await self.accept()
        await self.send(text_data=await self._draw(bell=True) + render.MARKER)

    async def disconnect(self, code: int) -> None:
        if self.user_id and await database_sync_to_async(_closed)(self.user_id, self.channel_name):
            await _tell_friends(self.user_id)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            message = stream.loads(text_data if text_data is not None else bytes_data)
            if not isinstance(message, dict) or set(message) != {"visible"}:
                raise stream.WireError("bad_frame", 'This socket takes {"visible": true|false}.')
            visible = message["visible"]
            if not isinstance(visible, bool):
                raise stream.WireError("bad_frame", "visible is true or false.")
        except stream.WireError as refusal:
            await self.refuse_frame(refusal.code, refusal.message)
            return
        await database_sync_to_async(_visible)(self.channel_name, visible)

    async def refuse_frame(self, code: str, sentence: str) -> None:
        await self.send(text_data=render.note(code, sentence))

    async def social_bell(self, event: dict[str, Any]) -> None:
        await self.send(text_data=await self._draw(bell=True))

    async def social_friends(self, event: dict[str, Any]) -> None:
        if self.shows_friends:
            await self.send(text_data=await self._draw(friends=True))

    async def social_invitations(self, event: dict[str, Any]) -> None:
        await self.send(text_data=await self._draw(invitations=True))

    async def _draw(
        self, bell: bool = False, friends: bool = False, invitations: bool = False
    ) -> str:
        return await database_sync_to_async(render.parts)(
            self.user_id,
            bell=bell,
            friends=friends or (bell and self.shows_friends),
            invitations=invitations or bell,
            csrf=self.scope.get("cookies", {}).get(settings.CSRF_COOKIE_NAME, ""),
        )


def _member(user: Any) -> bool:
    return is_member(user) and bool(user.is_active)


def _query(scope: dict) -> dict[str, str]:
    from urllib.parse import parse_qsl

    raw = scope.get("query_string", b"")
    try:
        return dict(parse_qsl(raw.decode("ascii"), max_num_fields=5))
    except (UnicodeDecodeError, ValueError):
        return {}


def _opened(user_id: int, channel: str, room_id: int | None, language: str) -> bool:
    """Count this page; True when it is his first (he just came online or sat down)."""
    if (
        room_id is not None
        and not Player.objects.filter(match__room_id=room_id, user_id=user_id, left=False).exists()
    ):
        room_id = None  # not his table: watching is not "at a table"
    # Rows a dead process left (older than any socket lives) go when their user comes back.
    Connection.objects.filter(
        user_id=user_id, opened_at__lt=timezone.now() - PAGE_LIFETIME
    ).delete()
    was = set(Connection.objects.filter(user_id=user_id).values_list("room_id", flat=True))
    try:
        Connection.objects.create(
            user_id=user_id, channel=channel, process=PROCESS, room_id=room_id
        )
    except IntegrityError:
        return False
    Settings.objects.update_or_create(
        user_id=user_id, defaults={"last_seen": timezone.now(), "language": language}
    )
    return not was or (room_id is not None and room_id not in was)


def _closed(user_id: int, channel: str) -> bool:
    gone, _rows = Connection.objects.filter(channel=channel).delete()
    Settings.objects.update_or_create(user_id=user_id, defaults={"last_seen": timezone.now()})
    return bool(gone)


def _visible(channel: str, visible: bool) -> None:
    Connection.objects.filter(channel=channel).update(visible=visible)


async def _tell_friends(user_id: int) -> None:
    """Someone came, went or sat down: his friends' lists draw him again."""
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        return
    for friend in await database_sync_to_async(friend_ids)(user_id):
        await layer.group_send(pushes.social_group(friend), {"type": "social.friends"})
