"""The site's words for what the pure engines say in codes and English templates.

An engine refuses with `IllegalAction(code, template, **params)` and ends a round with an event
whose `message` has a `message_template` and `message_params` beside it; the engines import no
Django, so the reader's language is applied here, at the edge.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, ngettext, pgettext_lazy

from games.engine import IllegalAction, Sentence
from games.registry import GAMES

# The games' names as their players say them in each language (the engines keep the English).
GAME_NAMES = {
    "ligretto-mini": pgettext_lazy("game", "Ligretto Mini"),
    "ligretto": pgettext_lazy("game", "Ligretto"),
    "allegra": pgettext_lazy("game", "Allegra"),
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
        template = ngettext(sentence.template, sentence.plural, sentence.count)
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


def describe_end_text(options: dict[str, Any]) -> str:
    """How a Ligretto match with these checked options ends (L6, L6+), in the active language.

    The same sentences as games.ligretto.rules.describe_end, which stays the English one.
    """
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
