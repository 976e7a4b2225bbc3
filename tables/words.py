"""The site's words for what the pure engines say in codes and English templates.

An engine refuses with `IllegalAction(code, template, **params)` and ends a round with an event
whose `message` has a `message_template` and `message_params` beside it; the engines import no
Django, so the reader's language is applied here, at the edge.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import get_language, gettext, ngettext, pgettext_lazy

from games.engine import IllegalAction, Sentence
from games.registry import GAMES, Game

# The games' names as their players say them in each language (the engines keep the English).
GAME_NAMES = {
    "ligretto-mini": pgettext_lazy("game", "Ligretto Mini"),
    "ligretto": pgettext_lazy("game", "Ligretto"),
    "allegra": pgettext_lazy("game", "Allegra"),
}

# The bots' levels as the pages say them (the engines' codes stay English).
BOT_LEVEL_LABELS = {
    "easy": pgettext_lazy("bot level", "easy"),
    "normal": pgettext_lazy("bot level", "normal"),
    "fast": pgettext_lazy("bot level", "fast"),
}


def game_name(slug: str) -> str:
    """The game's name in the active language."""
    return str(GAME_NAMES[slug]) if slug in GAME_NAMES else GAMES[slug].name


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


def _ligretto_end(options: dict[str, Any]) -> str:
    rounds, target = options["rounds"], options.get("target")
    if rounds == 1:
        return gettext("One round; the highest score wins.")
    if target is None:
        return ngettext(
            "A fixed %(rounds)d round; the highest total wins.",
            "A fixed %(rounds)d rounds; the highest total wins.",
            rounds,
        ) % {"rounds": rounds}
    return ngettext(
        "First to %(target)d points, or after round %(rounds)d, whichever comes first.",
        "First to %(target)d points, or after round %(rounds)d, whichever comes first.",
        target,
    ) % {"target": target, "rounds": rounds}


def _allegra_end(options: dict[str, Any]) -> str:
    rounds = options["rounds"]
    if rounds == 1:
        return gettext("One round; the lowest score wins.")
    return ngettext(
        "A fixed %(rounds)d round; the lowest total wins.",
        "A fixed %(rounds)d rounds; the lowest total wins.",
        rounds,
    ) % {"rounds": rounds}


# The site's own rules packages, worded here; the rules' describe_end stays the English one
# and is what a game registered from elsewhere (EXTRA_GAMES) says.
_END_WORDS = {"games.ligretto": _ligretto_end, "games.allegra": _allegra_end}


def describe_end_text(game: Game, options: dict[str, Any]) -> str:
    """How a match of `game` with these checked options ends, in the active language."""
    words = _END_WORDS.get(game.package)
    return words(options) if words else game.describe_end(options)


def ligretto_message(
    view: dict[str, Any], names: dict[int, str], english: str | None
) -> str | None:
    """What a Ligretto view's `message` says (a round's end, an unblock), in the active language.

    Worded from the view's codes (status, end_reason, the emptied stack), not from the engine's
    English sentence, which is `english` (already with the players' names) and the fallback.
    """
    message = view.get("message")
    if not message or get_language() == settings.LANGUAGE_CODE:
        return english  # the engine's own English, names put in by the layout
    status = view.get("status")
    if status == "playing" and message.startswith("Nobody could play"):
        times = int(message.rsplit("(", 1)[1].split()[0]) if "times)" in message else 1
        if times == 1:
            return gettext("Nobody could play: everyone’s top hand card went to the bottom.")
        return ngettext(
            "Nobody could play: everyone’s top hand card went to the bottom (%(times)d time).",
            "Nobody could play: everyone’s top hand card went to the bottom (%(times)d times).",
            times,
        ) % {"times": times}
    if status != "round_over":
        return english
    round_no = view.get("round")
    if view.get("end_reason") == "stack_empty":
        empty = [t["seat"] for t in view.get("tableaus", ()) if not t.get("stack_count")]
        if not empty:
            return english
        text = gettext("Round %(round)s is over: %(name)s emptied their Ligretto stack.") % {
            "round": round_no,
            "name": names.get(empty[0], str(empty[0])),
        }
    elif "came back to a standstill" in message:
        text = gettext(
            "Round %(round)s is over: the table came back to a standstill it had already been "
            "unblocked from, so it is scored as it stands."
        ) % {"round": round_no}
    else:
        text = gettext(
            "Round %(round)s is over: no card of any player fits anywhere, so it is scored as it "
            "stands."
        ) % {"round": round_no}
    if message.endswith("That was the last round."):
        text += " " + gettext("That was the last round.")
    return text
