"""What a room page shows to one viewer: shared by the HTTP view and the room's socket."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from lobby.models import Room
from tables.guests import is_member
from tables.words import BOT_LEVEL_LABELS

OPTION_LABELS = {
    "rounds": _("Rounds"),
    "target": _("Target points"),
    "best_of": _("Best of (rounds)"),
    "row_variant": _("Row variant"),
    "clock": _("Clock (seconds for each decision)"),
    "pace": _("Pace (seconds between one player’s plays)"),
    "bot_speed": _("Bot speed"),
    "equalise": _("Latency equalisation"),
}


def room_context(room: Room, user, base_url: str, error: str | None = None) -> dict[str, Any]:
    """Return the template context of `room` as `user` sees it; `base_url` is scheme://host."""
    seats = {seat.index: seat for seat in room.seat_set.select_related("user")}
    signed_in = user is not None and user.is_authenticated
    my_seat = next((s for s in seats.values() if signed_in and s.user_id == user.pk), None)
    is_host = signed_in and room.host_id == user.pk and not room.hostless
    filled = len(seats)
    info = room.game_info
    removed_me = signed_in and my_seat is None and room.removed.filter(pk=user.pk).exists()
    return {
        "room": room,
        "seat_rows": [(i, seats.get(i)) for i in range(room.seats)],
        "option_rows": [
            (OPTION_LABELS.get(key, key), _option_text(value))
            for key, value in room.options.items()
        ],
        "my_seat": my_seat,
        "is_host": is_host,
        "filled": filled,
        "free": room.seats - filled,
        "can_join": is_member(user)
        and room.is_open
        and my_seat is None
        and not removed_me
        and filled < room.seats,
        "can_start": room.is_open
        and filled >= info.min_seats
        and (is_host or (my_seat is not None and filled >= room.seats)),
        # Full: any seated player may start it (lobby.services.may_start).
        "full": room.is_open and filled >= room.seats,
        "min_seats": info.min_seats,
        "bot_levels": [(level, BOT_LEVEL_LABELS.get(level, level)) for level in info.bot_levels]
        if is_host and room.is_open
        else (),
        "invite_url": base_url + room.get_invite_url(),
        "can_remove": is_host and room.is_open,
        "can_close": is_host and room.status in (Room.Status.OPEN, Room.Status.PLAYING),
        "removed_me": removed_me,
        "error": error,
    }


def _option_text(value: Any) -> str:
    if value is None:
        return str(pgettext_lazy("target", "none"))
    if isinstance(value, bool):
        return str(pgettext_lazy("option", "on") if value else pgettext_lazy("option", "off"))
    return str(value)
