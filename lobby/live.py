"""Tell live pages that something changed, over the channel layer.

The lobby's room list is public and the same for everyone: it is rendered once here and the
HTML is broadcast. A room page differs per viewer (his buttons), so the room's group only gets a
signal and each connection renders its own view.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.template.loader import render_to_string

from lobby.models import Room

LOBBY_GROUP = "lobby"


def room_group(room_id: int) -> str:
    return f"room.{room_id}"


def listed_rooms() -> dict[str, list[Room]]:
    """Return the rooms the lobby lists: open ones to join, playing ones to watch."""
    rooms = (
        Room.objects.filter(status__in=[Room.Status.OPEN, Room.Status.PLAYING])
        .select_related("host")
        .prefetch_related("seat_set__user")
        .order_by("-created_at")[:100]
    )
    listed: dict[str, list[Room]] = {"open_rooms": [], "playing_rooms": []}
    for room in rooms:
        listed["open_rooms" if room.is_open else "playing_rooms"].append(room)
    return listed


def render_room_list() -> str:
    return render_to_string("lobby/index.html#room-list", listed_rooms())


def lobby_changed() -> None:
    _group_send(LOBBY_GROUP, {"type": "lobby.update", "html": render_room_list()})


def room_changed(room_id: int) -> None:
    _group_send(room_group(room_id), {"type": "room.changed"})


def _group_send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)
