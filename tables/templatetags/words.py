"""`{{ slug|game_name }}` and `{{ sentence|say }}`: the site's words in the page's language."""

from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.utils import dateformat, timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from games.registry import GAMES
from tables import words

register = template.Library()


@register.filter(name="say")
def say(sentence: object) -> str:
    """`{{ status.detail|say }}`: a pure layout's Sentence in the page's language."""
    return words.say(sentence)


@register.filter
def game_name(slug: str) -> str:
    return words.game_name(slug)


@register.filter
def bot_level(level: str) -> str:
    """A bot level's name in the page's language (its code, for a level we have no word for)."""
    return str(words.BOT_LEVEL_LABELS.get(level, level))


@register.simple_tag
def ligretto_message(view: dict, names: dict, english: str | None) -> str | None:
    """`{% ligretto_message view names message as message %}`: the view's message, worded."""
    return words.ligretto_message(view, names, english)


@register.simple_tag
def match_end(options: dict) -> str:
    """`{% match_end view.options %}`: how a Ligretto match with these options ends."""
    return words.describe_end_text(GAMES["ligretto"], options)


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


@register.simple_tag
def clock_time(iso: str | None) -> SafeString:
    """`{% clock_time view.clock.deadline as until %}`: a deadline (ISO text) to the second, in
    the reader's own zone once the page's script ran (static/js/site.js), UTC until then."""
    if not iso:
        return mark_safe("")  # noqa: S308
    moment = datetime.fromisoformat(iso)
    return format_html(
        '<time datetime="{}" data-local="hms">{} UTC</time>',
        iso,
        moment.astimezone(UTC).strftime("%H:%M:%S"),
    )


@register.simple_tag
def local_time(moment: datetime | None) -> SafeString:
    """`{% local_time when as stamp %}`: a <time> that the page's script shows in the reader's
    own zone (static/js/site.js), UTC until then; safe, so that a translated sentence may hold
    it (`{% blocktranslate with date=stamp %}Finished {{ date }}.{% endblocktranslate %}`)."""
    if moment is None:
        return mark_safe("")  # noqa: S308
    if timezone.is_aware(moment):
        moment = timezone.localtime(moment)  # as the `date` filter does
    return format_html(
        '<time datetime="{}" data-local="datetime">{} UTC</time>',
        dateformat.format(moment, "c"),
        dateformat.format(moment, "j M Y H:i"),
    )
