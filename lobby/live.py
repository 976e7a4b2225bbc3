"""Tell live pages that something changed, over the channel layer.

The lobby's room list is public and the same for everyone: a change is rendered once here and
the HTML is broadcast. Only the changed room's entry goes out (the whole list costs ~20 KB per
socket per change, which slow sockets pile up); the whole list is sent on (re)connect only.
A room page differs per viewer (his buttons), so the room's group only gets a signal and each
connection renders its own view.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from statistics import mean

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db.models import Case, Count, F, QuerySet, When
from django.template.loader import render_to_string
from django.utils.translation import gettext

from games.registry import GAMES
from lobby.models import Room
from tables import languages, ratings
from tables.live.render import render_each
from tables.words import game_name

LOBBY_GROUP = "lobby"


def room_group(room_id: int) -> str:
    return f"room.{room_id}"


# Each list shows this many rooms.
LIST_SIZE = 100


def _open_rooms(game: str):  # noqa: ANN202 - a Room queryset
    # Public rooms of one game, those with a free seat first, newest first within each.
    return (
        Room.objects.filter(status=Room.Status.OPEN, private=False, game=game)
        .annotate(taken=Count("seat_set"))
        .annotate(full=Case(When(taken__gte=F("seats"), then=1), default=0))
        .order_by("full", "-created_at", "-pk")
    )


def _playing_rooms():  # noqa: ANN202 - a Room queryset
    # Newly started games land at the top.
    return Room.objects.filter(status=Room.Status.PLAYING, private=False).order_by(
        "-started_at", "-pk"
    )


def _lists() -> dict[str, QuerySet[Room]]:
    """Every list the lobby shows, by its element id: open rooms per game, then games to watch."""
    lists: dict[str, QuerySet[Room]] = {f"open-{slug}": _open_rooms(slug) for slug in GAMES}
    lists["playing-rooms"] = _playing_rooms()
    return lists


# What an empty list says (its marker is always last; new entries go before it). Read per call,
# in the active language: games registered at start-up (EXTRA_GAMES) come after this module is
# imported.
def _empty_text(list_id: str) -> str:
    if list_id == "playing-rooms":
        return gettext("No games in progress.")
    slug = list_id.removeprefix("open-")
    return gettext("No open %(game)s rooms yet.") % {"game": game_name(slug)}


def _rooms():  # noqa: ANN202 - a Room queryset
    return Room.objects.select_related("host").prefetch_related("seat_set__user")


def attach_ratings(rooms: Iterable[Room]) -> None:
    """Set `room.rating`: the mean shown rating of its seated people in its game (or None).

    One query per game for all the rooms; the seats must be prefetched (`_rooms`).
    """
    by_game: dict[str, list[Room]] = defaultdict(list)
    for room in rooms:
        # A paced table's players are rated among themselves (tables.ratings.rating_key).
        by_game[ratings.rating_key(room.game, room.options)].append(room)
    for game, group in by_game.items():
        people = [s.user_id for r in group for s in r.seat_set.all() if s.user_id]
        shown = ratings.ratings_of(people, game)
        for room in group:
            values = [shown[s.user_id].value for s in room.seat_set.all() if s.user_id]
            room.rating = round(mean(values)) if values else None  # type: ignore[attr-defined]


def listed_rooms() -> dict[str, object]:
    """Return what the lobby lists: open public rooms per game to join, playing ones to watch."""
    shown = {
        name: list(qs.values_list("pk", flat=True)[:LIST_SIZE]) for name, qs in _lists().items()
    }
    rooms = _rooms().in_bulk([pk for ids in shown.values() for pk in ids])
    attach_ratings(rooms.values())
    open_lists = [
        {
            "id": f"open-{slug}",
            "name": game_name(slug),
            "empty_text": _empty_text(f"open-{slug}"),
            "rooms": [rooms[pk] for pk in shown[f"open-{slug}"]],
        }
        for slug, game in GAMES.items()
    ]
    return {
        "open_lists": open_lists,
        "playing_rooms": [rooms[pk] for pk in shown["playing-rooms"]],
        "playing_empty_text": _empty_text("playing-rooms"),
    }


def render_room_list() -> str:
    return render_to_string("lobby/index.html#room-list", listed_rooms())


def render_room_change(room_id: int) -> str:
    """Render what a lobby socket needs after `room_id` changed: its entry, put in place."""
    lists = {
        name: list(qs.values_list("pk", flat=True)[: LIST_SIZE + 1])
        for name, qs in _lists().items()
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
    attach_ratings(rooms.values())
    context = {
        "placements": [
            {"room_id": pk, "list": name, "before": before, "room": rooms.get(pk) if name else None}
            for pk, name, before in placements
        ],
        "empties": [(name, _empty_text(name), not ids) for name, ids in lists.items()],
    }
    return render_to_string("lobby/index.html#room-change", context)


def lobby_changed(room_id: int | None = None) -> None:
    """Tell every lobby page that `room_id` changed (None: send the whole list again)."""
    if room_id is not None and Room.objects.filter(pk=room_id, private=True).exists():
        return  # never listed: the lobby does not even learn that its number is in use
    # The same bytes for every socket that reads one language: rendered once per language.
    by_language = render_each(
        languages.present(LOBBY_GROUP),
        render_room_list if room_id is None else lambda: render_room_change(room_id),
    )
    html = by_language.pop(settings.LANGUAGE_CODE)
    _group_send(LOBBY_GROUP, {"type": "lobby.update", "html": html, "translations": by_language})


def room_changed(room_id: int) -> None:
    _group_send(room_group(room_id), {"type": "room.changed"})


def _group_send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)
