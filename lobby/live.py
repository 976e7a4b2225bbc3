"""Tell live pages that something changed, over the channel layer.

The lobby's room list is public and the same for everyone: a change is rendered once here and
the HTML is broadcast. Only the changed room's entry goes out (the whole list costs ~20 KB per
socket per change, which slow sockets pile up); the whole list is sent on (re)connect only.
A room page differs per viewer (his buttons), so the room's group only gets a signal and each
connection renders its own view.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.template.loader import render_to_string

from lobby.models import Room

LOBBY_GROUP = "lobby"


def room_group(room_id: int) -> str:
    return f"room.{room_id}"


# Each list shows this many rooms, newest first.
LIST_SIZE = 100
_ORDER = {
    # New rooms and newly started games both land at the top of their list.
    "open-rooms": (Room.Status.OPEN, ("-created_at", "-pk")),
    "playing-rooms": (Room.Status.PLAYING, ("-started_at", "-pk")),
}


def _rooms():  # noqa: ANN202 - a Room queryset
    return Room.objects.select_related("host").prefetch_related("seat_set__user")


def listed_rooms() -> dict[str, list[Room]]:
    """Return the rooms the lobby lists: open ones to join, playing ones to watch."""
    status, order = _ORDER["open-rooms"]
    open_rooms = list(_rooms().filter(status=status).order_by(*order)[:LIST_SIZE])
    status, order = _ORDER["playing-rooms"]
    playing_rooms = list(_rooms().filter(status=status).order_by(*order)[:LIST_SIZE])
    return {"open_rooms": open_rooms, "playing_rooms": playing_rooms}


def render_room_list() -> str:
    return render_to_string("lobby/index.html#room-list", listed_rooms())


def render_room_change(room_id: int) -> str:
    """Render what a lobby socket needs after `room_id` changed: its entry, put in place."""
    lists = {
        name: list(
            Room.objects.filter(status=status)
            .order_by(*order)
            .values_list("pk", flat=True)[: LIST_SIZE + 1]
        )
        for name, (status, order) in _ORDER.items()
    }
    # (room id, list it shows in or None, id of the entry it goes before or None for the end)
    placements: list[tuple[int, str | None, int | None]] = []
    for name, ids in lists.items():
        if len(ids) > LIST_SIZE:
            placements.append((ids[LIST_SIZE], None, None))  # pushed off the end
        if len(ids) >= LIST_SIZE:
            placements.append((ids[LIST_SIZE - 1], name, None))  # maybe back in view
    where: tuple[int, str | None, int | None] = (room_id, None, None)
    for name, ids in lists.items():
        shown = ids[:LIST_SIZE]
        if room_id in shown:
            i = shown.index(room_id)
            where = (room_id, name, shown[i + 1] if i + 1 < len(shown) else None)
    # Ends of the lists first, so that an entry's successor is in place when it is inserted.
    placements = [p for p in placements if p[0] != room_id] + [where]
    rooms = _rooms().in_bulk([p[0] for p in placements if p[1] is not None])
    context = {
        "placements": [
            {"room_id": pk, "list": name, "before": before, "room": rooms.get(pk) if name else None}
            for pk, name, before in placements
        ],
        "open_empty": not lists["open-rooms"],
        "playing_empty": not lists["playing-rooms"],
    }
    return render_to_string("lobby/index.html#room-change", context)


def lobby_changed(room_id: int | None = None) -> None:
    """Tell every lobby page that `room_id` changed (None: send the whole list again)."""
    html = render_room_list() if room_id is None else render_room_change(room_id)
    _group_send(LOBBY_GROUP, {"type": "lobby.update", "html": html})


def room_changed(room_id: int) -> None:
    _group_send(room_group(room_id), {"type": "room.changed"})


def _group_send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)
