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


class IllegalAction(Exception):  # noqa: N818 - the name is part of the public interface
    """An action the rules refuse (G2): `.code` is machine-readable, `.message` one sentence."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(message or code)
        self.code = code
        self.message = message or code.replace("_", " ").capitalize() + "."


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
