"""The small protocol every game's rules module implements, and IllegalAction.

Rules modules are pure: no Django, no clock, no global random. State is plain data that
`dump`s to JSON-native dicts and `load`s back (G0); deals come from a seed (G1).
"""

from __future__ import annotations

from typing import Any, Protocol

State = Any
Action = dict[str, Any]
Event = dict[str, Any]
View = dict[str, Any]


def gettext_noop(message: str) -> str:
    """Mark an English sentence for the site's translations; the engine itself stays English.

    The site's catalogue extracts every `_("...")` call; imported as `_` in the rules modules.
    """
    return message


class Sentence(str):
    """An English sentence that keeps its template and parameters, so that the site can word
    it in the reader's language. As a str it is the English sentence itself, so every caller
    that takes a str (a template, JSON, a comparison) sees exactly the English it saw before.

    A parameter may be a Sentence too ("an 8"): the site words it first.
    """

    template: str
    params: dict[str, Any]
    plural: str | None = None  # with `amount`: the template's plural (see `ngettext`)
    amount: int = 1  # the count that picks the plural (not `count`: str has a count method)

    def __new__(cls, template: str, **params: Any) -> Sentence:
        sentence = super().__new__(cls, template % params if params else template)
        sentence.template = template
        sentence.params = params
        return sentence


def ngettext(singular: str, plural: str, count: int, **params: Any) -> Sentence:
    """A Sentence with a plural: English picks by `count`, the site by its language's rules."""
    sentence = Sentence(singular if count == 1 else plural, **params)
    sentence.template, sentence.plural, sentence.amount = singular, plural, count
    return sentence


class IllegalAction(Exception):  # noqa: N818 - the name is part of the public interface
    """An action the rules refuse (G2): `.code` is machine-readable, `.message` one sentence.

    `.template` is the sentence with `%(name)s` holes and `.params` what fills them, so that
    the site can word the refusal in the reader's language; `.message` is the English.
    """

    def __init__(self, code: str, message: str = "", **params: Any) -> None:
        self.code = code
        self.params = params
        self.template = message
        text = message % params if params else message
        self.message = text or code.replace("_", " ").capitalize() + "."
        super().__init__(text or code)


class Rules(Protocol):
    """What `games.registry.rules_for(slug)` returns: one game bound to its preset.

    - `new_match(seats, options, seed)` deals round 1 from the seed.
    - `legal_actions(state, seat)` lists every action `seat` may send now, fully spelled out.
    - `apply(state, seat, action)` returns `(new_state, events)` or raises `IllegalAction`,
      leaving `state` unchanged. Events are dicts with a past-tense `"type"`; an event that
      ends a round carries a human `"message"` saying why.
    - `player_view(state, seat | None)` is everything `seat` (None: a spectator) may see:
      the game's view fields of the Board API plus `status`, `round`, `legal`, `scores`.
    - `dump(state)` / `load(data)` convert to and from JSON-native data.
    """

    slug: str
    name: str
    min_seats: int
    max_seats: int

    def check_options(self, seats: int, options: dict[str, Any] | None) -> dict[str, Any]: ...
    def new_match(self, seats: int, options: dict[str, Any] | None, seed: int) -> State: ...
    def legal_actions(self, state: State, seat: int) -> list[Action]: ...
    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]: ...
    def player_view(self, state: State, seat: int | None) -> View: ...
    def dump(self, state: State) -> dict[str, Any]: ...
    def load(self, data: dict[str, Any]) -> State: ...
