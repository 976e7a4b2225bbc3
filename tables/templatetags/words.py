"""`{{ slug|game_name }}`: a game's name in the page's language."""

from __future__ import annotations

from django import template

from tables import words

register = template.Library()


@register.filter
def game_name(slug: str) -> str:
    return words.game_name(slug)
