"""`{{ card|card }}` and `{{ card|card:"small" }}`: a Ligretto card as HTML, built once per face.

A card is drawn on every push to every table; the same 40 faces come back again and again, so
each is built once (cached) instead of rendering a partial per card.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@lru_cache(maxsize=256)
def _face(color: str, value: int, size: str) -> SafeString:
    small = " small" if size == "small" else ""
    return format_html(
        '<span class="card c-{}{}"><span class="v">{}</span>'
        '<span class="sym" aria-hidden="true"></span></span>',
        color,
        small,
        value,
    )


@register.filter
def card(c: dict[str, Any] | None, size: str = "") -> SafeString:
    """Draw a face-up card (colour, big value, the colour's symbol), or an empty slot."""
    if not c:
        small = " small" if size == "small" else ""
        return format_html('<span class="card none{}" aria-hidden="true"></span>', small)
    return _face(c["color"], c["value"], size)


@register.simple_tag
def short_name(player: dict[str, Any], players: list[dict[str, Any]]) -> str:
    """A short name for a narrow score column that no other player's short name looks like.

    A name of six letters or fewer stays whole; a bot ("Normal bot 3") is its level's initial
    and number ("N3"); a person is the shortest prefix of three letters or more that no other
    player's name starts with (whole, if none).
    """
    name = player["name"]
    if len(name) <= 6:
        return name
    if player.get("bot"):
        words = name.split()
        return f"{words[0][:1]}{words[-1]}" if len(words) > 1 else name[:4]
    others = [p["name"].casefold() for p in players if p is not player and p["name"] != name]
    for n in range(3, len(name)):
        prefix = name[:n].casefold()
        if not any(o.startswith(prefix) for o in others):
            return name[:n] + "…"
    return name


@register.filter
def free_chairs(room: Any) -> range:
    """One item per free seat of a lobby room (drawn as empty chairs around its table)."""
    return range(max(0, room.seats - len(room.seat_set.all())))
