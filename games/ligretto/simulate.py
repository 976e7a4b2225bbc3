"""Ligretto bot-only match simulator: results per seat and level, and the engine's speed.

Run: python -m games.ligretto.simulate --game ligretto --seats 4 --matches 100 --seed 1
Speed model "delays" (default): every bot decides on its view, waits the delay it asked for on a
simulated clock and then sends its action, so faster bots act more often and stale decisions race
(L12). Speed model "equal": the next seat is drawn uniformly and decides on a fresh view, so only
the bots' choices differ.
"""

from __future__ import annotations

import argparse
import heapq
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from games.engine import IllegalAction
from games.registry import rules_for

MAX_ACTIONS_PER_ROUND = 50_000


@dataclass
class Stats:
    """Totals over the simulated matches."""

    matches: int = 0
    rounds: int = 0
    deadlocks: int = 0
    repeated: int = 0  # deadlocks because a standstill came back (L14+)
    unblocks: int = 0
    unblocked_rounds: int = 0  # rounds with at least one unblock (L14)
    actions: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    wins: list[float] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    apply_seconds: float = 0.0
    view_seconds: float = 0.0
    sim_seconds: float = 0.0


def play_match(
    game: str,
    levels: list[str],
    seed: int,
    options: dict[str, Any] | None = None,
    speed: str = "delays",
    stats: Stats | None = None,
    log: list[list[Any]] | None = None,
) -> Any:
    """Play one bot-only match; return the final state (and append [seat, action] to `log`)."""
    rules = rules_for(game)
    seats = len(levels)
    stats = stats if stats is not None else Stats()
    if not stats.wins:
        stats.wins = [0.0] * seats
        stats.points = [0] * seats
    rng = random.Random(f"bots:{seed}")
    state = rules.new_match(seats, options, seed)
    clock = 0.0

    def decide(seat: int) -> tuple[Any, float]:
        t0 = time.perf_counter()
        view = rules.player_view(state, seat)
        stats.view_seconds += time.perf_counter() - t0
        return rules.bot_choose(view, levels[seat], rng)

    unblocked = False

    def act(seat: int, action: dict[str, Any]) -> None:
        nonlocal state, unblocked
        t0 = time.perf_counter()
        try:
            state, events = rules.apply(state, seat, action)
        except IllegalAction as err:
            stats.apply_seconds += time.perf_counter() - t0
            stats.refused[err.code] += 1
            return
        stats.apply_seconds += time.perf_counter() - t0
        stats.actions += 1
        if log is not None:
            log.append([seat, action])
        for event in events:
            if event["type"] == "table_unblocked":
                stats.unblocks += 1
                unblocked = True
            elif event["type"] == "round_ended":
                stats.repeated += event.get("repeated", False)
            elif event["type"] == "round_dealt":
                unblocked = False

    while state.status != "finished":
        if state.status == "round_over":
            # Counted here so that deals deadlocked at once (L14+) count too.
            stats.rounds += 1
            stats.deadlocks += state.end_reason == "deadlock"
            stats.unblocked_rounds += unblocked
            # The service sends `ready` for bots itself; so does the simulator.
            for seat in range(seats):
                act(seat, {"type": "ready"})
            continue
        round_no, count = state.round, 0
        queue: list[tuple[float, int, int, Any]] = []
        if speed == "delays":
            for seat in range(seats):
                action, delay = decide(seat)
                heapq.heappush(queue, (clock + delay, seat, seat, action))
        tick = seats
        while state.status == "playing" and state.round == round_no:
            count += 1
            if count > MAX_ACTIONS_PER_ROUND:
                raise RuntimeError(f"match {seed}: round {round_no} does not end")
            if speed == "delays":
                clock, _, seat, action = heapq.heappop(queue)
            else:
                seat = rng.randrange(seats)
                action, _ = decide(seat)
            if action is not None:
                act(seat, action)
            if speed == "delays" and state.status == "playing":
                action, delay = decide(seat)
                tick += 1
                heapq.heappush(queue, (clock + delay, tick, seat, action))
    stats.sim_seconds += clock
    stats.matches += 1
    totals = [sum(p[s] for p in state.scores) for s in range(seats)]
    winners = [s for s, v in enumerate(totals) if v == max(totals)]
    for s in winners:
        stats.wins[s] += 1 / len(winners)
    for s in range(seats):
        stats.points[s] += totals[s]
    return state


def main(argv: list[str] | None = None) -> Stats:
    """Run the simulator from the command line and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="ligretto", choices=["ligretto", "ligretto-mini"])
    parser.add_argument("--seats", type=int, default=None)
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", default="normal", help="comma-separated, cycled over seats")
    parser.add_argument("--rounds", type=int, default=None, help="the most rounds (L6+)")
    parser.add_argument("--target", default=None, help='points to win, or "none" (Ligretto)')
    parser.add_argument("--row-variant", action="store_true")
    parser.add_argument("--speed", choices=["delays", "equal"], default="delays")
    args = parser.parse_args(argv)
    seats = args.seats or 2
    names = args.levels.split(",")
    levels = [names[s % len(names)] for s in range(seats)]
    options: dict[str, Any] = {"row_variant": args.row_variant}
    if args.rounds is not None:
        options["rounds"] = args.rounds
    if args.target is not None:
        options["target"] = None if args.target.lower() == "none" else int(args.target)
    stats = Stats()
    t0 = time.perf_counter()
    for m in range(args.matches):
        play_match(args.game, levels, args.seed + m, options, args.speed, stats)
    wall = time.perf_counter() - t0
    print(
        f"{args.game}, {seats} seats, {args.matches} matches from seed {args.seed}, "
        f"levels {','.join(levels)}, speed model {args.speed}"
    )
    print(
        f"rounds {stats.rounds} ({stats.rounds / stats.matches:.2f} per match), "
        f"deadlocks {stats.deadlocks} ({100 * stats.deadlocks / stats.rounds:.1f} %, "
        f"{stats.repeated} of them a repeated standstill), "
        f"rounds unblocked {stats.unblocked_rounds} "
        f"({100 * stats.unblocked_rounds / stats.rounds:.1f} %), unblocks {stats.unblocks}, "
        f"refused {dict(stats.refused)}"
    )
    for s in range(seats):
        print(
            f"  seat {s:2d} {levels[s]:6s} wins {stats.wins[s]:6.1f}  "
            f"average total {stats.points[s] / stats.matches:7.1f}"
        )
    by_level: dict[str, list[float]] = {}
    for s, lv in enumerate(levels):
        by_level.setdefault(lv, []).append(stats.wins[s])
    print("  wins per level: " + ", ".join(f"{k} {sum(v):.1f}" for k, v in by_level.items()))
    if args.speed == "delays":
        print(f"simulated play time {stats.sim_seconds / max(stats.rounds, 1):.0f} s per round")
    print(
        f"{stats.actions} actions in {wall:.2f} s wall: {stats.actions / wall:,.0f} actions/s "
        f"(bots and views included); apply alone {stats.actions / stats.apply_seconds:,.0f}/s "
        f"({1e6 * stats.apply_seconds / stats.actions:.1f} us each), player_view "
        f"{1e6 * stats.view_seconds / stats.actions:.1f} us per action"
    )
    return stats


if __name__ == "__main__":
    main()
