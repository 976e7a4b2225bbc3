"""`{{ slug|game_name }}` and `{{ sentence|say }}`: the site's words in the page's language."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import dateformat, formats, timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from games import registry
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


@register.filter
def player_name(player: words.Named) -> str:
    """`{{ p|player_name }}`: a seat's name in the page's language (a bot's level is worded)."""
    return words.player_name(player)


@register.filter
def term(code: str | None, context: str) -> str:
    """`{{ pile.color|term:"card colour" }}`: a game's word for a code (its layout's `TERMS`)
    in the page's language."""
    return words.term(context, code or "")


@register.simple_tag
def games_listed(joined: str = "and") -> str:
    """`{% games_listed "or" as names %}`: every registered game's name in the page's
    language as one list ("A, B and C", or with "or", "A, B or C")."""
    return words.games_listed(alternatives=joined == "or")


@register.simple_tag
def default_game() -> str:
    """`{% default_game as slug %}`: the game the site offers first (a link to one game's
    page from a page about none)."""
    return registry.DEFAULT_GAME


@register.filter
def names_of(seats: list, names: dict) -> str:
    """`{{ seats|names_of:names }}`: the seats' player names as one list ("A, B and C")."""
    return words.listed([str(names.get(s, s)) for s in seats or ()])


@register.simple_tag
def clock_time(iso: str | None) -> SafeString:
    """`{% clock_time view.clock.deadline as until %}`: a deadline (ISO text) to the second, in
    the reader's zone (as `local_time`), rewritten in the browser's by the page's script."""
    if not iso:
        return mark_safe("")  # noqa: S308
    moment = timezone.localtime(datetime.fromisoformat(iso))
    return format_html(
        '<time datetime="{}" data-local="hms" data-zone="{}">{}</time>',
        iso,
        timezone.get_current_timezone_name(),
        moment.strftime("%H:%M:%S"),
    )


@register.simple_tag
def local_time(moment: datetime | None, form: str = "DATETIME_FORMAT") -> SafeString:
    """`{% local_time when as stamp %}` (`{% local_time when "TIME_FORMAT" %}`: the time alone):
    a <time> written with Django's localisation of the
    page's language in the reader's zone (lobby.locale.zone_for, UTC with the zone's name
    until his browser said it); a page drawn in another zone than the browser's has it
    rewritten in the browser's (static/js/site.js). Safe, so that a translated sentence may
    hold it (`{% blocktranslate with date=stamp %}Finished {{ date }}.{% endblocktranslate %}`)."""
    if moment is None:
        return mark_safe("")  # noqa: S308
    if timezone.is_aware(moment):
        moment = timezone.localtime(moment)  # as the `date` filter does
    zone = timezone.get_current_timezone_name()
    return format_html(
        '<time datetime="{}" data-local="{}" data-zone="{}">{} {}</time>',
        dateformat.format(moment, "c"),
        "time" if form == "TIME_FORMAT" else "datetime",
        zone,
        formats.date_format(moment, form),
        moment.strftime("%Z") or zone,
    )
