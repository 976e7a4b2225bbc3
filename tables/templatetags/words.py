"""`{% load words %}`: the site's words in the page's language
(`{{ slug|game_name }}`, `{{ sentence|say }}`, times), and the cards of both games, drawn one
way (games/cards.py's `draw`, which Allegra's layout also calls): `{{ c|card }}` /
`{{ c|card:"small" }}` for Ligretto, `{% face classes value label %}` for a loose card (a
pile's top, the discard, the drawn card); and the small helpers of the table pages (short
names, a lobby room's chairs)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import template
from django.utils import dateformat, formats, timezone
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from games import registry
from games.cards import colour_card, draw
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


# --------------------------------------------------------------------------- cards


@register.filter
def card(c: dict[str, Any] | None, size: str = "") -> SafeString:
    """A Ligretto card face up (colour, big value, the colour's symbol), or an empty slot."""
    return mark_safe(colour_card(c, size == "small"))  # noqa: S308


@register.filter
def place_card(x: dict[str, Any]) -> SafeString:
    """A place of a grid game's layout (`seat`, `row`, `col`, `cell`, `gone`, their colour
    bands `band` / `gone_band`, and a Sentence `label`): face down, face up, a card leaving,
    or empty; named for screen readers in the page's language (the layout's own `html` is the
    English one), found by tests by `data-place`."""
    place = f"{x['seat']}-{x['row']}-{x['col']}"
    attrs = f' data-place="{place}" role="img" aria-label="{escape(words.say(x["label"]))}"'
    cell, gone = x["cell"], x["gone"]
    if cell is not None and "hidden" in cell:
        return mark_safe(draw("back", None, attrs))  # noqa: S308
    if cell is not None:
        return mark_safe(draw(escape(x["band"]), cell["value"], attrs))  # noqa: S308
    if gone is not None:
        classes = f"gone vanish {escape(x['gone_band'])}"
        return mark_safe(draw(classes, gone, attrs, sym=False))  # noqa: S308
    return mark_safe(draw("gone", None, attrs))  # noqa: S308


@register.simple_tag
def face(classes: str, value: int, label: str = "") -> SafeString:
    """A loose face-up card in a template (a pile's top, the discard, the drawn card), named
    `label` and its value ("discard top 7") for screen readers."""
    # Enough for a double-quoted attribute; an apostrophe stays one ("knocker's hand card").
    text = str(label).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    attrs = f' aria-label="{text} {int(value)}"' if label else ""
    return mark_safe(draw(escape(classes), value, attrs))  # noqa: S308


@register.filter
def get_item(mapping: dict[Any, Any], key: Any) -> Any:
    """`mapping[key]`, or an empty string (a seat's name by its number)."""
    return mapping.get(key, "") if hasattr(mapping, "get") else ""


@register.simple_tag
def short_name(player: dict[str, Any], players: list[dict[str, Any]]) -> str:
    """A short name for a narrow score column that no other player's short name looks like.

    A bot's long name ("Normal bot 3") is its level's initial and number ("N3"); the people's
    names (a stand-in's person's too: his seat says "bot", his name is his) are all cut at one
    length (six letters, or as many as tell two of them apart), so the columns read evenly;
    the column's title holds the whole name.
    """
    name = player["name"]
    if _named_bot(player):
        parts = name.split()
        return name if len(name) <= 6 else f"{parts[0][:1]}{parts[-1]}"
    width = even_width([p["name"] for p in players if not _named_bot(p)])
    return name if len(name) <= width else name[:width] + "…"


def _named_bot(player: dict[str, Any]) -> bool:
    """A bot's seat with a bot's name (its level's words and a number; no username has a
    space), not a person's seat a stand-in plays."""
    parts = player["name"].split()
    return bool(player.get("bot")) and len(parts) > 1 and parts[-1].isdigit()


def even_width(names: list[str]) -> int:
    """The one length, six letters at least, at which no two of `names` begin alike."""
    folded = {name.casefold() for name in names}
    longest = max((len(name) for name in folded), default=0)
    for width in range(6, longest):
        if len({name[:width] for name in folded}) == len(folded):
            return width
    return max(longest, 6)


@register.filter
def free_chairs(room: Any) -> range:
    """One item per free seat of a lobby room (drawn as empty chairs around its table)."""
    return range(max(0, room.seats - len(room.seat_set.all())))
