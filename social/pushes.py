"""What the social socket of each open page is told, by group (`social.<user id>`).

Only social sockets join these groups (not the lobby's or a table's), so only they get these
messages: the bell's count changed, the friends list changed (someone came, went, sat down,
a request), the invitations changed. Each socket draws its own fragment in its language.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction


def social_group(user_id: int) -> str:
    return f"social.{user_id}"


def _send(user_ids: Iterable[int], event: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for user_id in set(user_ids):
        async_to_sync(layer.group_send)(social_group(user_id), event)


def bell_changed(user_id: int, notification_id: int = 0) -> None:
    _send([user_id], {"type": "social.bell", "id": notification_id})


def friends_changed(*user_ids: int) -> None:
    _send(user_ids, {"type": "social.friends"})


def friends_changed_on_commit(*user_ids: int) -> None:
    transaction.on_commit(partial(friends_changed, *user_ids))


def invitations_changed(*user_ids: int) -> None:
    _send(user_ids, {"type": "social.invitations"})


def invitations_changed_on_commit(*user_ids: int) -> None:
    transaction.on_commit(partial(invitations_changed, *user_ids))
