"""`user|is_guest`, `user|is_member`: what a page offers a guest (lobby/guests.py) and a member."""

from __future__ import annotations

from typing import Any

from django import template

from tables import guests

register = template.Library()


@register.filter
def is_guest(user: Any) -> bool:
    return guests.is_guest(user)


@register.filter
def is_member(user: Any) -> bool:
    return guests.is_member(user)
