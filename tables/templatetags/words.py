"""`{{ slug|game_name }}` and `{{ sentence|say }}`: the site's words in the page's language."""

from __future__ import annotations

from django import template

from tables import words

register = template.Library()


@register.filter(name="say")
def say(sentence: object) -> str:
    """`{{ status.detail|say }}`: a pure layout's Sentence in the page's language."""
    return words.say(sentence)


@register.filter
def game_name(slug: str) -> str:
    return words.game_name(slug)
