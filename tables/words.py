"""The site's words for what the pure engines say in codes and English templates.

An engine refuses with `IllegalAction(code, template, **params)` and says what happened (a round's
end, a game's name, how a match ends) in `games.engine.Sentence`s; the engines import no Django,
so the reader's language is applied here, at the edge. No game is named here: each says its
own words through its registry entry.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, ngettext, pgettext_lazy

from games.engine import IllegalAction, Sentence
from games.registry import GAMES, Game

# The bots' levels as the pages say them (the engines' codes stay English).
BOT_LEVEL_LABELS = {
    "easy": pgettext_lazy("bot level", "easy"),
    "normal": pgettext_lazy("bot level", "normal"),
    "fast": pgettext_lazy("bot level", "fast"),
}


def game_name(slug: str) -> str:
    """The game's name in the active language (its registry entry's `title`)."""
    return say(GAMES[slug].title)


def worded(template: str, params: dict[str, Any] | None, fallback: str) -> str:
    """`template` in the active language, filled with `params`; `fallback` if there is none."""
    if not template:
        return fallback
    if params:
        params = {k: say(v) if isinstance(v, Sentence) else v for k, v in params.items()}
    translated = gettext(template)
    try:
        return translated % params if params else translated
    except (KeyError, TypeError, ValueError):
        return fallback  # a translation that lost a hole must not break a refusal


def say(sentence: Any) -> str:
    """A Sentence (or a plain string, as it is) in the active language."""
    if isinstance(sentence, Sentence) and sentence.plural is not None:
        template = ngettext(sentence.template, sentence.plural, sentence.amount)
        try:
            return template % {
                k: say(v) if isinstance(v, Sentence) else v for k, v in sentence.params.items()
            }
        except (KeyError, TypeError, ValueError):
            return str(sentence)
    if isinstance(sentence, Sentence):
        return worded(sentence.template, sentence.params, str(sentence))
    return "" if sentence is None else str(sentence)


def refusal_text(refusal: IllegalAction) -> str:
    """The refusal's sentence in the active language."""
    return worded(refusal.template, refusal.params, refusal.message)


CARD_COLOURS = {
    "red": pgettext_lazy("card colour", "red"),
    "yellow": pgettext_lazy("card colour", "yellow"),
    "green": pgettext_lazy("card colour", "green"),
    "blue": pgettext_lazy("card colour", "blue"),
}


# What a click on an Allegra place does (the layout's `verb`, an action type).
PLACE_VERBS = {
    "reveal": pgettext_lazy("place action", "reveal"),
    "swap": pgettext_lazy("place action", "swap"),
    "place": pgettext_lazy("place action", "place"),
}


def verb(code: str | None) -> str:
    return str(PLACE_VERBS.get(code or "", code or ""))


def colour(name: str) -> str:
    """A Ligretto card colour in the active language."""
    return str(CARD_COLOURS.get(name, name))


def seats_in_words(game: Game) -> str:
    """The seat counts `game` takes ("2 to 6"), in the active language."""
    low, high = game.min_seats, game.max_seats
    if low == high:
        return str(low)
    return gettext("%(low)d to %(high)d") % {"low": low, "high": high}


def describe_end_text(game: Game, options: dict[str, Any]) -> str:
    """How a match of `game` with these checked options ends, in the active language."""
    return say(game.describe_end(options))
