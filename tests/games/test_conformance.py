"""One conformance suite for every registered game, the tests' third game included (G0-G3).

Parametrized over the registry, so a new game is checked the moment it is registered: pure
(no Django, no clock, no global random), cards conserved, dump/load round trips, every legal
action accepted and generated illegal ones refused with the state unchanged, nothing hidden in
any other seat's or a spectator's view, and golden replays. Each game's rules module provides
`cards(state)` and `redeal_hidden(state, seat, rng)` for it.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import json
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games.engine import IllegalAction
from games.registry import GAMES, Game

ROOT = Path(__file__).resolve().parents[2]
SLUGS = sorted(GAMES)
IMPURE = ("django", "channels", "asgiref", "daphne", "twisted", "time", "datetime")
# Two deals per seat count: the fewest seats a game takes, and one more.
CASES = [
    (slug, seats, seed)
    for slug in SLUGS
    for seats in sorted(
        {GAMES[slug].min_seats, min(GAMES[slug].min_seats + 1, GAMES[slug].max_seats)}
    )
    for seed in (3, 11)
]
STEPS = 300


def _options(game: Game) -> dict[str, Any] | None:
    # Two rounds where a game counts them, so that a round's end and the next deal are met.
    return {"rounds": 2} if "rounds" in game.option_fields else None


def playout(game: Game, seats: int, seed: int, steps: int = STEPS) -> Iterator[Any]:
    """Yield each state of a match played by the game's bots and, now and then, at random."""
    rng = random.Random(seed)
    state = game.new_match(seats, _options(game), seed)
    yield state
    for _ in range(steps):
        moves = [(s, a) for s in range(seats) for a in game.legal_actions(state, s)]
        if not moves:
            return
        seat, action = rng.choice(moves)
        if rng.random() < 0.7:
            level = rng.choice(game.bot_levels)
            chosen, _ = game.bot_choose(game.player_view(state, seat), level, rng)
            if chosen is not None:
                action = chosen
        state, _ = game.apply(state, seat, action)
        yield state


def site_view(game: Game, state: Any, seat: int | None) -> dict[str, Any]:
    """A view as the site hands it to a layout: the engine's plus the room's fields."""
    view = dict(game.player_view(state, seat))
    totals = view.get("totals") or []
    seats = len(totals) or game.max_seats
    view.update(
        room=1,
        game=game.slug,
        version=1,
        seat=seat,
        starts_at=None,
        players=[
            {"seat": s, "name": f"p{s}", "bot": False, "connected": True, "total": t}
            for s, t in enumerate(totals or [0] * seats)
        ],
    )
    return view


# --------------------------------------------------------------------------- purity (G1)


def _modules(game: Game) -> list[str]:
    return [f"{game.package}.{name}" for name in ("rules", "bots", "layout")]


@pytest.mark.parametrize("slug", SLUGS)
def test_G1_the_engine_imports_nothing_impure_and_no_global_random(slug):
    for name in _modules(GAMES[slug]):
        module = importlib.import_module(name)
        tree = ast.parse(Path(module.__file__).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                imported = [node.module or ""]
                if node.module == "random":
                    assert all(a.name == "Random" for a in node.names), f"{name}: from random"
            else:
                imported = []
            for module_name in imported:
                assert module_name.split(".")[0] not in IMPURE, f"{name} imports {module_name}"
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                assert node.attr == "Random", f"{name} uses random.{node.attr}"


@pytest.mark.parametrize("slug", SLUGS)
def test_G1_importing_the_engine_loads_no_django(slug):
    code = (
        "import importlib, sys\n"
        f"for name in {_modules(GAMES[slug])!r}: importlib.import_module(name)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {IMPURE[:5]!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def _refuse(*_: Any, **__: Any) -> Any:
    raise AssertionError("an engine read the clock or the global random")


class English:
    """The words a layout draws itself in, as the engines write them (games.engine.Words)."""

    def gettext(self, message: str) -> str:
        return message

    def pgettext(self, context: str, message: str) -> str:
        return message

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        return singular if count == 1 else plural


@contextlib.contextmanager
def no_clock_no_global_random(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make the module-level random functions and the clock raise while the engine runs."""
    with monkeypatch.context() as patch:
        for name in ("random", "randint", "randrange", "choice", "choices", "shuffle", "sample",
                     "uniform", "gauss", "seed", "getrandbits"):  # fmt: skip
            patch.setattr(random, name, _refuse)
        for name in ("time", "monotonic", "perf_counter", "process_time", "sleep", "time_ns"):
            patch.setattr(time, name, _refuse)
        yield


@pytest.mark.parametrize(("slug", "seats", "seed"), CASES[::2])
def test_G1_a_whole_playout_reads_no_clock_and_no_global_random(slug, seats, seed, monkeypatch):
    game = GAMES[slug]
    layout = game.layout
    with no_clock_no_global_random(monkeypatch):
        states = list(playout(game, seats, seed))
        for state in states[::10]:
            spectator = site_view(game, state, None)
            layout.public_parts(spectator)
            layout.context(spectator, None, [], [], English())
            for seat in range(seats):
                mine = site_view(game, state, seat)
                layout.private_part(mine, mine["legal"], seat)
                context = layout.context(mine, seat, mine["legal"], [], English())
                context["view"] = mine  # as the site's renderer adds it
                piles = [f"pile-{p['pile']}" for p in mine.get("center", ()) if not p["closed"]]
                for part in (
                    "me_flip",
                    "me_stack",
                    "me_say",
                    f"seat-{seat}",
                    f"seat-{seat}-flip",
                    *piles,
                ):
                    layout.draw_part(context, part)  # what a layout draws itself, too
            game.dump(state)
    assert len(states) > 1


# --------------------------------------------------------------------------- state (G0)


@pytest.mark.parametrize(("slug", "seats", "seed"), CASES)
def test_G0_cards_are_conserved_and_every_state_round_trips_through_json(slug, seats, seed):
    game = GAMES[slug]
    deck = None
    for state in playout(game, seats, seed):
        held = Counter(game.rules.cards(state))
        deck = deck or held
        assert held == deck
        data = game.dump(state)
        again = game.load(json.loads(json.dumps(data, allow_nan=False)))
        assert again == state
        assert game.dump(again) == data
        for seat in (None, *range(seats)):
            assert game.player_view(again, seat) == game.player_view(state, seat)


@pytest.mark.parametrize(("slug", "seats", "seed"), CASES)
def test_G0_the_views_of_many_seats_at_once_are_each_seats_own_view(slug, seats, seed):
    game = GAMES[slug]
    everyone = [None, *range(seats)]
    for state in list(playout(game, seats, seed))[::5]:
        views = game.player_views(state, everyone)
        assert views == {seat: game.player_view(state, seat) for seat in everyone}


# --------------------------------------------------------------------------- actions (G2)


def _mutations(action: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Actions one wrong value away from `action`: out of range, of the wrong type, unknown."""
    yield {**action, "type": "no_such_action"}
    for key, value in action.items():
        if isinstance(value, int) and not isinstance(value, bool):
            for wrong in (-1, 10**6, str(value), None, 1.5):
                yield {**action, key: wrong}
        elif isinstance(value, dict):
            for inner, v in value.items():
                if isinstance(v, int):
                    for wrong in (-1, 99, None):
                        yield {**action, key: {**value, inner: wrong}}
        elif key != "type" and isinstance(value, str):
            yield {**action, key: "nowhere"}


@pytest.mark.parametrize(("slug", "seats", "seed"), CASES)
def test_G2_every_legal_action_is_accepted_and_illegal_ones_leave_the_state_unchanged(
    slug, seats, seed
):
    game = GAMES[slug]
    refused = accepted = 0
    for n, state in enumerate(playout(game, seats, seed)):
        if n % 7:
            continue
        legal = {s: game.legal_actions(state, s) for s in range(seats)}
        candidates = [{"type": "no_such_action"}, {"type": "play"}]
        candidates += [m for actions in legal.values() for a in actions for m in _mutations(a)]
        candidates += [a for actions in legal.values() for a in actions]
        for seat in range(seats):
            before = game.dump(state)
            for action in legal[seat]:
                game.apply(state, seat, action)  # accepted: no IllegalAction
                accepted += 1
            for action in candidates:
                if action in legal[seat]:
                    continue
                with pytest.raises(IllegalAction):
                    game.apply(state, seat, action)
                refused += 1
            assert game.dump(state) == before, "apply changed the state it was given"
    assert accepted and refused


# --------------------------------------------------------------------------- views (G0)


@pytest.mark.parametrize(("slug", "seats", "seed"), CASES)
def test_G0_no_view_shows_a_value_its_seat_may_not_see(slug, seats, seed):
    game = GAMES[slug]
    rng = random.Random(seed)
    changed = 0
    for state in playout(game, seats, seed):
        for seat in (None, *range(seats)):
            # The same table with everything this seat cannot see dealt anew: if its view
            # changed, the view was showing something hidden.
            twin = game.rules.redeal_hidden(state, seat, rng)
            assert game.player_view(twin, seat) == game.player_view(state, seat)
            changed += game.dump(twin) != game.dump(state)
    assert changed, "nothing was ever hidden: the check proved nothing"


# --------------------------------------------------------------------------- golden replays (G1)


def _golden() -> dict[str, list[Path]]:
    """Each game's recorded matches: tests/games/<game>/golden and its package's golden/."""
    found: dict[str, list[Path]] = {slug: [] for slug in SLUGS}
    folders = {*ROOT.glob("tests/games/*/golden"), *ROOT.glob("tests/*/golden")}
    for folder in sorted(folders):
        for path in sorted(folder.glob("*.json")):
            slug = json.loads(path.read_text()).get("game") or folder.parent.name
            found.setdefault(slug, []).append(path)
    return found


GOLDEN = _golden()


@pytest.mark.parametrize("slug", SLUGS)
def test_G1_every_game_has_golden_replays(slug):
    assert GOLDEN[slug], f"{slug} has no golden replay"


@pytest.mark.parametrize(
    ("slug", "path"),
    [(slug, path) for slug, paths in GOLDEN.items() for path in paths],
    ids=lambda x: x.stem if isinstance(x, Path) else x,
)
def test_G1_a_golden_replay_gives_its_recorded_scores(slug, path):
    data = json.loads(path.read_text())
    game = GAMES[slug]
    state = game.new_match(data["seats"], data["options"], data["seed"])
    for seat, action in data["actions"]:
        # Through JSON between moves, as the site stores it.
        state, _ = game.apply(game.load(json.loads(json.dumps(game.dump(state)))), seat, action)
    view = game.player_view(state, None)
    assert view["status"] == "finished"
    points = [row["points"] if isinstance(row, dict) else row for row in data["scores"]]
    assert [row["points"] for row in view["scores"]] == points
    assert view["totals"] == data["totals"]
