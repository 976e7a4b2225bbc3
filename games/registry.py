"""Game slugs -> rules, bots and layout modules bound to a preset: the only door to a game.

Shared code (the lobby's form, the write path, pushes, score history, the Board API) asks a
`Game` everything it needs to know about a game and never names one. A game is a package with
`rules`, `bots`, `layout` and `api_fields` modules; the site's own games are listed here, and a
project may add more with `register` (the tables app registers its settings' `EXTRA_GAMES` at
start-up).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

from games.engine import (
    Action,
    BotsModule,
    Event,
    IllegalAction,
    LayoutModule,
    Progress,
    RulesModule,
    State,
    View,
    gettext_noop,
)
from games.shapes import ApiShapes

# Options every game takes, which the site keeps and the rules never see: a paced table
# (issue 41) keeps each player's plays `pace` seconds apart, and its bots play at `bot_speed`
# times their speed. Whatever the game, so they are checked here, not by each game's rules.
SITE_OPTIONS = ("pace", "bot_speed", "equalise")
PACES = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0)  # seconds; a few steps, each its own rating pool
BOT_SPEEDS = (0.25, 0.5, 0.75, 1.0)


def split_site_options(
    options: dict[str, Any] | None,
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """(the options for the rules, the site's own) of `options` (anything: the rules judge)."""
    if not isinstance(options, dict):
        return options, {}
    site = {k: options[k] for k in SITE_OPTIONS if k in options}
    return {k: v for k, v in options.items() if k not in SITE_OPTIONS}, site


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def pace_refused() -> IllegalAction:
    """The refusal of a pace the site does not offer."""
    return IllegalAction(
        "invalid_options",
        gettext_noop("pace must be one of 0.5, 1, 1.5, 2, 2.5 or 3 seconds (0: not paced)."),
    )


def bot_speed_refused() -> IllegalAction:
    """The refusal of a bots' speed the site does not offer."""
    return IllegalAction(
        "invalid_options", gettext_noop("bot_speed must be one of 0.25, 0.5, 0.75 or 1.")
    )


def slow_bots_refused() -> IllegalAction:
    """The refusal of slower bots at a table that is not paced."""
    return IllegalAction(
        "invalid_options", gettext_noop("Slower bots come with a paced table only.")
    )


def equalise_refused() -> IllegalAction:
    """The refusal of a latency equalisation option that is not true or false."""
    return IllegalAction("invalid_options", gettext_noop("equalise must be true or false."))


def check_site_options(site: dict[str, Any]) -> dict[str, Any]:
    """The site's options checked (IllegalAction invalid_options): unpaced ones are left out,
    and latency equalisation when it is off."""
    equalise = site.get("equalise", False)
    if not isinstance(equalise, bool):
        raise equalise_refused()
    checked = _paced(site)
    return {**checked, "equalise": True} if equalise else checked


def _paced(site: dict[str, Any]) -> dict[str, Any]:
    pace = _number(site.get("pace", 0)) if site.get("pace") not in (None, "") else 0.0
    if pace is None or (pace and pace not in PACES):
        raise pace_refused()
    speed = _number(site.get("bot_speed", 1)) if site.get("bot_speed") not in (None, "") else 1.0
    if speed is None or speed not in BOT_SPEEDS:
        raise bot_speed_refused()
    if not pace:
        if speed != 1.0:
            raise slow_bots_refused()
        return {}
    return {"pace": pace, "bot_speed": speed}


def pace_of(options: dict[str, Any] | None) -> float:
    """Seconds between one player's plays at a table with these (checked) options; 0: unpaced."""
    return float((options or {}).get("pace") or 0.0)


def equalise_of(options: dict[str, Any] | None) -> bool:
    """Whether a table orders near-simultaneous plays by their estimated sending time
    (latency equalisation, docs/fairness.md); off unless its options say so."""
    return (options or {}).get("equalise") is True


def bot_speed_of(options: dict[str, Any] | None) -> float:
    """The fraction of their own speed a table's bots play at (1 unless paced slower)."""
    return float((options or {}).get("bot_speed") or 1.0)


# The rules' functions a move calls, kept on each `Game` (`Game.rules`).
MOVE = ("legal_actions", "apply", "player_view", "player_views", "progress")


@dataclass(frozen=True)
class Game:
    """One game of the site: a rules module bound to a preset (see `games.engine.RulesModule`)."""

    slug: str
    name: str
    package: str  # a module path: <package>.rules / .bots / .layout
    # How many seats a room that Play now opens has (0: the game's fewest; kept in its limits).
    quick_play_seats: int = 0
    # Everyone plays at once (Ligretto's race, L12): a hand left idle can hold a round up (a
    # standstill counts what it would show, L14), so the site marks its idle player away
    # well into a round, where a turn-based game waits on its clock (tables.clocks).
    race: bool = False

    @cached_property
    def rules(self) -> RulesModule[Any]:
        """The rules module itself (`<package>.rules`): for the conformance suite and tools.

        What a move asks of its game (`MOVE`) is resolved with it, once: the rules' own
        functions are kept on this entry, so that a move calls them, not the registry."""
        rules = cast(RulesModule[Any], importlib.import_module(f"{self.package}.rules"))
        for name in MOVE:
            self.__dict__[name] = getattr(rules, name)  # as cached_property keeps its value
        return rules

    @cached_property
    def bots(self) -> BotsModule:
        """The bots module (`<package>.bots`)."""
        return cast(BotsModule, importlib.import_module(f"{self.package}.bots"))

    @cached_property
    def layout(self) -> LayoutModule:
        """How the site draws this game's table (`<package>.layout`), pure like the rules."""
        return cast(LayoutModule, importlib.import_module(f"{self.package}.layout"))

    @property
    def title(self) -> str:
        """The game's name as the site says it: its rules' `NAMES` entry, a Sentence that the
        site words in the reader's language (as a str, the English `name`)."""
        title: str = self.rules.NAMES[self.slug]
        return title

    @property
    def how_to_play(self) -> str:
        """The template of the game's how-to-play page (its layout's `HOW_TO_PLAY`)."""
        return str(self.layout.HOW_TO_PLAY)

    @property
    def board_class(self) -> str:
        """The class this game's board wears on any page that shows one (its layout's)."""
        return str(self.layout.BOARD_CLASS)

    @property
    def stylesheets(self) -> tuple[str, ...]:
        """The game's own static stylesheets, for a page drawing its board outside its table
        template (a replay)."""
        return tuple(self.layout.STYLESHEETS)

    def refusal(self, code: str) -> str:
        """What a refused move's code says, in a few words (the rules' `REFUSALS`, Sentences
        the site words; the code itself for one they do not list)."""
        return self.rules.REFUSALS.get(code, code)

    @cached_property
    def api(self) -> ApiShapes:
        """This game's Board API shapes (`<package>.api_fields.SHAPES`): options, actions, view."""
        shapes: ApiShapes = importlib.import_module(f"{self.package}.api_fields").SHAPES
        return shapes

    @property
    def min_seats(self) -> int:
        return int(self.rules.SEAT_LIMITS[self.slug][0])

    @property
    def max_seats(self) -> int:
        return int(self.rules.SEAT_LIMITS[self.slug][1])

    @property
    def seats_in_words(self) -> str:
        """The seat counts this game takes, as the room form says them ("2 to 6")."""
        low, high = self.min_seats, self.max_seats
        return str(low) if low == high else f"{low} to {high}"

    @property
    def bot_levels(self) -> tuple[str, ...]:
        return tuple(self.bots.LEVELS)

    @property
    def option_fields(self) -> tuple[str, ...]:
        """The room form's option fields this game takes (`rounds`, `target`, ...), in order."""
        return tuple(self.rules.OPTION_FIELDS[self.slug])

    @property
    def rounds_help(self) -> str:
        """What the room form says under `rounds` for this game."""
        return str(self.rules.ROUNDS_HELP[self.slug])

    @property
    def target_help(self) -> str | None:
        """What the room form says under `target` for this game (None: the form's own words)."""
        words = getattr(self.rules, "TARGET_HELP", {}).get(self.slug)
        return None if words is None else str(words)

    def field_help(self, name: str) -> str | None:
        """What the room form says under the option field `name` for this game (the rules'
        `ROUNDS_HELP`, `TARGET_HELP` or `FIELD_HELP`; None: the form's own words)."""
        if name == "rounds":
            return self.rounds_help
        if name == "target":
            return self.target_help
        words = getattr(self.rules, "FIELD_HELP", {}).get(self.slug, {}).get(name)
        return None if words is None else str(words)

    @property
    def lowest_wins(self) -> bool:
        """Whether the lowest total wins (Allegra, A10); only for saying so in words.

        Who won is the rules' own word (the `match_finished` event), never judged from this.
        """
        return bool(self.rules.LOWEST_WINS)

    @property
    def optional_actions(self) -> frozenset[str]:
        """The action types a seat may take but never owes (none: every legal action is owed);
        a seat with only these does not hold a decision up (the site's clock)."""
        return frozenset(getattr(self.rules, "OPTIONAL_ACTIONS", ()))

    @property
    def clock_kinds(self) -> tuple[str, ...]:
        """The kinds of decision this game's clock and turn notices speak of (the rules'
        `CLOCK_KINDS`; a game without its own: a turn and the ready between rounds)."""
        return tuple(getattr(self.rules, "CLOCK_KINDS", ("turn", "ready")))

    @property
    def turn_kinds(self) -> tuple[str, ...]:
        """The kinds of decision that pass from seat to seat, so that the same one (its key)
        may come round again (the rules' `TURN_KINDS`; else a turn)."""
        return tuple(getattr(self.rules, "TURN_KINDS", ("turn",)))

    def decision(self, view: View) -> tuple[list[Any], str]:
        """The key and kind of the decision a table waits for, from a spectator's view (the
        rules' `decision`; a game without one: its turn, or the ready between rounds)."""
        own = getattr(self.rules, "decision", None)
        if own is not None:
            key, kind = own(view)
            return list(key), str(kind)
        rnd = view.get("round")
        if view.get("status") == "round_over":
            return [rnd, "ready"], "ready"
        return [rnd, "turn", view.get("turn")], "turn"

    def describe_action(self, action: Action, names: dict[int, str]) -> str:
        """Say what an action did, from the action alone, `names` naming the seats (the
        layout's `describe_action`: a Sentence the site words per reader; a game without
        one: the action's type)."""
        own = getattr(self.layout, "describe_action", None)
        if own is None:
            return str(action.get("type"))
        said: str = own(action, names)
        return said

    def check_options(self, seats: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """The rules' checked options, plus the site's own (`pace`, `bot_speed`) checked here."""
        rules_options, site = split_site_options(options)
        checked: dict[str, Any] = self.rules.check_options(seats, rules_options, preset=self.slug)
        return checked | check_site_options(site)

    def new_match(self, seats: int, options: dict[str, Any] | None, seed: int) -> State:
        # The rules never see the site's options: a paced table deals like any other.
        return self.rules.new_match(seats, split_site_options(options)[0], seed, preset=self.slug)

    # What a move asks of its game (`MOVE`): the rules' own functions, kept on the entry when
    # its rules are imported (`rules`), so that a move calls its game's rules and not a method
    # here. Each property below says the function's type; it runs only if `rules` has not.

    @cached_property
    def legal_actions(self) -> Callable[[State, int], list[Action]]:
        """The rules' `legal_actions(state, seat)`."""
        return self.rules.legal_actions

    @cached_property
    def apply(self) -> Callable[[State, int, Action], tuple[State, list[Event]]]:
        """The rules' `apply(state, seat, action) -> (state, events)`, or IllegalAction."""
        return self.rules.apply

    @cached_property
    def player_view(self) -> Callable[[State, int | None], View]:
        """The rules' `player_view(state, seat)` (None: a spectator)."""
        return self.rules.player_view

    @cached_property
    def player_views(self) -> Callable[[State, list[int | None]], dict[int | None, View]]:
        """The rules' `player_views(state, seats)`: `player_view` of each of `seats` (a push
        needs every seat's view of one state).

        The rules build what the seats share once; the views must equal `player_view`'s
        (tests/games/test_conformance.py checks it).
        """
        return self.rules.player_views

    @cached_property
    def progress(self) -> Callable[[State], Progress]:
        """The rules' `progress(state)`: the round, the rounds scored, the deal's seed and the
        status of `state`."""
        return self.rules.progress

    def reseed(self, state: State, server_seed: str) -> State:
        """`state`, whose next round is dealt from `server_seed` and the players' client seeds."""
        return self.rules.reseed(state, server_seed)

    def deal(self, seats: int, seed: int) -> State:
        """The deal a round with deal seed `seed` gets (round 1 of a match seeded with it)."""
        return self.new_match(seats, None, seed)

    def dealt(self, state: State) -> dict[str, Any]:
        """Every card of `state` where it lies, as JSON (a deal as the verifier shows it)."""
        cards: dict[str, Any] = self.rules.dealt(state)
        return cards

    def dump(self, state: State) -> dict[str, Any]:
        data: dict[str, Any] = self.rules.dump(state)
        return data

    def load(self, data: dict[str, Any]) -> State:
        return self.rules.load(data)

    def describe_end(self, options: dict[str, Any]) -> str:
        """Say in words how a match with these (checked) options ends: the rules' Sentence
        (the site words it in the reader's language; as a str it is the English)."""
        said: str = self.rules.describe_end(options)
        return said

    def last_round_points(self, state: State) -> list[int]:
        """The points each seat scored in the round `state` last finished (its score row)."""
        return [int(p) for p in self.rules.last_round_points(state)]

    def bot_choose(self, view: View, level: str, rng: random.Random) -> tuple[Action | None, float]:
        """Ask a bot seeing only `view` for its next action and the delay it wants first."""
        action, delay = self.bots.choose(view, level, rng)
        return action, float(delay)


GAMES: dict[str, Game] = {
    g.slug: g
    for g in (
        Game("ligretto-mini", "Ligretto Mini", "games.ligretto", quick_play_seats=2, race=True),
        Game("ligretto", "Ligretto", "games.ligretto", quick_play_seats=4, race=True),
        Game("allegra", "Allegra", "games.allegra", quick_play_seats=4),
    )
}

# The game a new room's form offers first.
DEFAULT_GAME = "ligretto"

# The words the registered games have for their codes, by the catalogue's context (each
# layout's `TERMS`: a card colour, a place's verb; the first game to say one keeps it),
# gathered when a game is registered: a drawn card's colour is one lookup here
# (tables.words.term).
TERMS: dict[tuple[str, str], str] = {}


def _gather_terms(game: Game) -> None:
    terms: dict[tuple[str, str], str] = getattr(game.layout, "TERMS", {})
    for key, said in terms.items():
        TERMS.setdefault(key, said)


for _game in GAMES.values():
    _gather_terms(_game)


def register(game: Game) -> Game:
    """Add `game` to the registry (idempotent for the same entry; a clash of slugs is an error)."""
    known = GAMES.get(game.slug)
    if known is not None and (known.name, known.package) != (game.name, game.package):
        raise ValueError(f"game {game.slug!r} is already registered as {known.package}")
    GAMES[game.slug] = game
    _gather_terms(game)
    return game


def rules_for(slug: str) -> Game:
    """Return the game registered under `slug` (KeyError if there is none)."""
    return GAMES[slug]


def slugs() -> tuple[str, ...]:
    """Every registered game's slug, in registration order (the API schema's enum)."""
    return tuple(GAMES)


def clock_kinds() -> tuple[str, ...]:
    """Every kind of decision any registered game's clock speaks of (the API schema's enum)."""
    kinds: dict[str, None] = {}
    for game in GAMES.values():
        kinds.update(dict.fromkeys(game.clock_kinds))
    return tuple(kinds)


def bot_levels() -> tuple[str, ...]:
    """Every bot level any registered game offers, in first-seen order (the API schema's enum)."""
    levels: dict[str, None] = {}
    for game in GAMES.values():
        levels.update(dict.fromkeys(game.bot_levels))
    return tuple(levels)
