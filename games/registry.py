"""Game slugs -> rules modules bound to their preset, and their bots."""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass
from functools import cached_property
from types import ModuleType
from typing import Any

from games.engine import Action, State, View


@dataclass(frozen=True)
class Game:
    """One game of the site: a rules module bound to a preset (see `games.engine.Rules`)."""

    slug: str
    name: str
    package: str  # games.<package>.rules / .bots / .layout

    @cached_property
    def _rules(self) -> ModuleType:
        return importlib.import_module(f"games.{self.package}.rules")

    @cached_property
    def layout(self) -> ModuleType:
        """How the site draws this game's table (`games.<package>.layout`), pure like the rules."""
        return importlib.import_module(f"games.{self.package}.layout")

    @cached_property
    def _bots(self) -> ModuleType:
        return importlib.import_module(f"games.{self.package}.bots")

    @property
    def min_seats(self) -> int:
        return self._rules.SEAT_LIMITS[self.slug][0]

    @property
    def max_seats(self) -> int:
        return self._rules.SEAT_LIMITS[self.slug][1]

    @property
    def bot_levels(self) -> tuple[str, ...]:
        return tuple(self._bots.LEVELS)

    def check_options(self, seats: int, options: dict[str, Any] | None) -> dict[str, Any]:
        return self._rules.check_options(seats, options, preset=self.slug)

    def new_match(self, seats: int, options: dict[str, Any] | None, seed: int) -> State:
        return self._rules.new_match(seats, options, seed, preset=self.slug)

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        return self._rules.legal_actions(state, seat)

    def apply(self, state: State, seat: int, action: Action) -> tuple[State, list[dict]]:
        return self._rules.apply(state, seat, action)

    def player_view(self, state: State, seat: int | None) -> View:
        return self._rules.player_view(state, seat)

    def dump(self, state: State) -> dict[str, Any]:
        return self._rules.dump(state)

    def load(self, data: dict[str, Any]) -> State:
        return self._rules.load(data)

    def describe_end(self, options: dict[str, Any]) -> str:
        """Say in words how a match with these options ends (empty if the game has no words)."""
        describe = getattr(self._rules, "describe_end", None)
        return describe(options) if describe is not None else ""

    def bot_choose(self, view: View, level: str, rng: random.Random) -> tuple[Action | None, float]:
        """Ask a bot seeing only `view` for its next action and the delay it wants first."""
        return self._bots.choose(view, level, rng)


GAMES: dict[str, Game] = {
    g.slug: g
    for g in (
        Game("ligretto-mini", "Ligretto Mini", "ligretto"),
        Game("ligretto", "Ligretto", "ligretto"),
        Game("allegra", "Allegra", "allegra"),
    )
}


def rules_for(slug: str) -> Game:
    """Return the game registered under `slug` (KeyError if there is none)."""
    return GAMES[slug]
