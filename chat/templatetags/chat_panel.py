"""`{% chat_panel room_id %}`: the room's chat box, for the room page and the tables."""

from __future__ import annotations

from django import template

from chat import services
from moderation.models import can_moderate

register = template.Library()


@register.inclusion_tag("chat/panel.html", takes_context=True)
def chat_panel(context: template.Context, room_id: int) -> dict:
    user = context.get("user")
    return {
        **services.compose_context(user),
        "room_id": room_id,
        "staff": can_moderate(user),
        "lines": (),  # the socket sends them on connect
    }
