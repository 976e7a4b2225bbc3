"""Template filters of the Allegra table: a card's colour band and a seat's name."""

from __future__ import annotations

from typing import Any

from django import template

from games.allegra.layout import band as _band

register = template.Library()


@register.filter
def band(value: int) -> str:
    """The colour band class of a card value (A2), drawn beside the printed number."""
    return _band(int(value))


@register.filter
def get_item(mapping: dict[Any, Any], key: Any) -> Any:
    """`mapping[key]`, or an empty string (a seat's name by its number)."""
    return mapping.get(key, "") if hasattr(mapping, "get") else ""
