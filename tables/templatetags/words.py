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


@register.simple_tag
def ligretto_message(view: dict, names: dict, english: str | None) -> str | None:
    """`{% ligretto_message view names message as message %}`: the view's message, worded."""
    return words.ligretto_message(view, names, english)


@register.simple_tag
def match_end(options: dict) -> str:
    """`{% match_end view.options %}`: how a Ligretto match with these options ends."""
    return words.describe_end_text(options)


@register.filter
def colour(name: str) -> str:
    """`{{ card.color|colour }}`: a card colour in the page's language."""
    return words.colour(name)


@register.filter(name="verb")
def verb(code: str | None) -> str:
    """`{{ x.verb|verb }}`: what a click on an Allegra place does, in the page's language."""
    return words.verb(code)


@register.filter
def names_of(seats: list, names: dict) -> str:
    """`{{ seats|names_of:names }}`: the seats' player names, comma-separated."""
    return ", ".join(str(names.get(s, s)) for s in seats or ())
