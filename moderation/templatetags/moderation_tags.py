"""`{% moderation_tools room %}`: report buttons for players, and the staff's Moderate panel.

Drawn with the room page and the table page (not pushed): the list of players it offers is
the one the page was loaded with. Only moderators ever get the panel's markup.
"""

from __future__ import annotations

from typing import Any

from django import template

from lobby.models import Room
from moderation import services

register = template.Library()


@register.inclusion_tag("moderation/_tools.html", takes_context=True)
def moderation_tools(context: template.Context, room: Any) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    if not isinstance(room, Room):
        room = Room.objects.filter(pk=room).first()
    signed_in = bool(user is not None and user.is_authenticated and room is not None)
    others = (
        [u for u in services.room_players(room) if u.pk != user.pk] if user and signed_in else []
    )
    moderator = signed_in and services.can_moderate(user)
    return {
        "room": room,
        "others": others,
        "moderator": moderator,
        "can_close": moderator and room.status in (Room.Status.OPEN, Room.Status.PLAYING),
        "report_max": services.REPORT_MAX,
        "reason_max": services.REASON_MAX,
        "csrf_token": context.get("csrf_token"),
    }
