"""The site's words for what the pure engines say in codes and English templates.

An engine refuses with `IllegalAction(code, template, **params)` and says what happened (a round's
end, a game's name, how a match ends) in `games.engine.Sentence`s; the engines import no Django,
so the reader's language is applied here, at the edge. No game is named here: each says its
own words through its registry entry.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

from django.utils.text import format_lazy
from django.utils.translation import (
    get_language,
    gettext,
    gettext_lazy,
    gettext_noop,
    ngettext,
    pgettext,
    pgettext_lazy,
)

from games import registry
from games.engine import IllegalAction, Sentence
from games.registry import GAMES, Game

# The bots' levels as the pages say them (the engines' codes stay English).
BOT_LEVEL_LABELS = {
    "easy": pgettext_lazy("bot level", "easy"),
    "normal": pgettext_lazy("bot level", "normal"),
    "fast": pgettext_lazy("bot level", "fast"),
}


# A bot's name is its level and its seat's number ("Normal bot 4"); the words are the room
# page's (lobby.models.Seat.BotLevel), so one catalogue entry says both.
BOT_NAMES = {
    "easy": gettext_lazy("Easy bot"),
    "normal": gettext_lazy("Normal bot"),
    "fast": gettext_lazy("Fast bot"),
}


class Named(Protocol):
    """What a seat's row knows of who sits there (tables.models.Player)."""

    seat: int
    user_id: int | None
    name: str
    bot_level: str


def player_name(player: Named) -> str:
    """The name a reader sees for `player`'s seat: a person's username, or a bot's level and
    seat number worded when it is shown, so that a context built once (a push, drawn once per
    language its readers use) says it in each reader's language."""
    if player.user_id is not None or player.bot_level not in BOT_NAMES:
        return player.name
    return bot_name(player.bot_level, player.seat)


# The same words as plain templates, for a name that travels as a Sentence (`named`).
BOT_NAME_TEXTS = {
    "easy": gettext_noop("Easy bot"),
    "normal": gettext_noop("Normal bot"),
    "fast": gettext_noop("Fast bot"),
}


def named(player: Named) -> str:
    """`player_name` as plain data that is worded when it is said (`say`): a person's
    username, or a bot's name as a Sentence (it crosses processes: tables.live.owners)."""
    if player.user_id is not None or player.bot_level not in BOT_NAME_TEXTS:
        return player.name
    level = Sentence(BOT_NAME_TEXTS[player.bot_level])
    return Sentence("%(level)s %(number)s", level=level, number=player.seat + 1)


def bot_name(level: str, seat: int) -> str:
    """A bot's name, "Normal bot 4", worded when it is shown (in the language active then)."""
    return cast(str, format_lazy("{} {}", BOT_NAMES.get(level, level), seat + 1))


def stable_bot_name(level: str, seat: int) -> str:
    """A bot's name as it is stored and as the Board API gives it, the same for everyone:
    English, "Normal bot 4" (pages word it per reader: `player_name`)."""
    return f"{level.capitalize()} bot {seat + 1}"


def game_name(slug: str) -> str:
    """The game's name in the active language (its registry entry's `title`)."""
    return say(GAMES[slug].title)


# Korean particles that depend on whether the word before them ends in a consonant: the
# catalogue writes both forms, "을(를)", and the site picks one once the holes are filled.
_PARTICLES = {
    "을(를)": ("을", "를"),
    "이(가)": ("이", "가"),
    "은(는)": ("은", "는"),
    "과(와)": ("과", "와"),
}
_PARTICLE = re.compile(r"(\S)(을\(를\)|이\(가\)|은\(는\)|과\(와\)|\(으\)로)")
# How a number is read out at its end: 일 삼 육 칠 팔 (and 영, 십, 백, 천 for 0) end in a
# consonant, 이 사 오 구 do not.
_DIGIT_CODA = {"0": True, "1": True, "2": False, "3": True, "4": False, "5": False, "6": True}
_DIGIT_CODA |= {"7": True, "8": True, "9": False}


def _final_consonant(char: str) -> tuple[bool, bool] | None:
    """Whether a word ending in `char` ends in a consonant (and whether that is ㄹ)."""
    if "가" <= char <= "힣":
        coda = (ord(char) - ord("가")) % 28
        return coda != 0, coda == 8
    if char in _DIGIT_CODA:
        return _DIGIT_CODA[char], char in "178"
    if char.isascii() and char.isalpha():
        return char.lower() in "lmnbkpt", char.lower() == "l"
    return None


def korean_particles(text: str) -> str:
    """Pick each "을(를)"-style particle of a Korean sentence by the word before it."""

    def pick(match: re.Match[str]) -> str:
        before, particle = match.group(1), match.group(2)
        coda = _final_consonant(before)
        if coda is None:
            return match.group(0)
        consonant, rieul = coda
        if particle == "(으)로":
            return before + ("으로" if consonant and not rieul else "로")
        return before + _PARTICLES[particle][0 if consonant else 1]

    return _PARTICLE.sub(pick, text)


def _particles(text: str) -> str:
    return korean_particles(text) if get_language() == "ko" else text


def worded(
    template: str, params: dict[str, Any] | None, fallback: str, context: str | None = None
) -> str:
    """`template` in the active language (by its catalogue's `context`, if it has one),
    filled with `params`; `fallback` if there is none."""
    if not template:
        return fallback
    if params:
        params = {k: say(v) if isinstance(v, Sentence) else v for k, v in params.items()}
    translated = pgettext(context, template) if context else gettext(template)
    try:
        return _particles(translated % params if params else translated)
    except (KeyError, TypeError, ValueError):
        return fallback  # a translation that lost a hole must not break a refusal


def say(sentence: Any) -> str:
    """A Sentence (or a plain string, as it is) in the active language."""
    if isinstance(sentence, Sentence) and sentence.plural is not None:
        template = ngettext(sentence.template, sentence.plural, sentence.amount)
        try:
            return _particles(
                template
                % {k: say(v) if isinstance(v, Sentence) else v for k, v in sentence.params.items()}
            )
        except (KeyError, TypeError, ValueError):
            return str(sentence)
    if isinstance(sentence, Sentence):
        return worded(sentence.template, sentence.params, str(sentence), sentence.context)
    return "" if sentence is None else str(sentence)


def listed(items: list[str]) -> str:
    """Words as one list in the active language: "A, B and C", "A, B und C"."""
    if len(items) < 2:
        return items[0] if items else ""
    return gettext("%(names)s and %(last)s") % {"names": ", ".join(items[:-1]), "last": items[-1]}


def either(items: list[str]) -> str:
    """Words as alternatives in the active language: "A, B or C", "A, B oder C"."""
    if len(items) < 2:
        return items[0] if items else ""
    return gettext("%(names)s or %(last)s") % {"names": ", ".join(items[:-1]), "last": items[-1]}


def games_listed(alternatives: bool = False) -> str:
    """Every registered game's name in the active language, as one list ("A, B and C"; with
    `alternatives`, "A, B or C"): pages that speak of all the games name none themselves."""
    names = [game_name(slug) for slug in GAMES]
    return either(names) if alternatives else listed(names)


def refusal_text(refusal: IllegalAction) -> str:
    """The refusal's sentence in the active language."""
    return worded(refusal.template, refusal.params, refusal.message)


def term(context: str, code: str) -> str:
    """A game's word for `code` in `context` (a card colour, a place's verb: the game's
    layout says its `TERMS`, through the registry) in the active language; the code itself
    for one no game has a word for."""
    said = registry.TERMS.get((context, code))
    return code if said is None else say(said)


def seats_in_words(game: Game) -> str:
    """The seat counts `game` takes ("2 to 6"), in the active language."""
    low, high = game.min_seats, game.max_seats
    if low == high:
        return str(low)
    return gettext("%(low)d to %(high)d") % {"low": low, "high": high}


def describe_end_text(game: Game, options: dict[str, Any]) -> str:
    """How a match of `game` with these checked options ends, in the active language."""
    return say(game.describe_end(options))
