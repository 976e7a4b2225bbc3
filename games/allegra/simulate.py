"""Allegra bot-only simulator (A1-A10, G3): plays whole matches through the registry, no delays.
Usage: python -m games.allegra.simulate --seats 4 --matches 200 --seed 1 [--levels normal,easy]"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from games.registry import rules_for


@dataclass
class MatchResult:
    """What one simulated match produced."""

    levels: list[str]
    totals: list[int]
    winners: list[int]
    actions: int
    knocks: int = 0
    gives: int = 0
    triples: int = 0
    doublings: int = 0
    apply_seconds: float = 0.0  # time spent in the rules' apply alone
    log: list[list[Any]] = field(default_factory=list)  # [seat, action] in order


def play_match(
    seats: int,
    levels: list[str],
    seed: int,
    options: dict[str, Any] | None = None,
    keep_log: bool = False,
) -> MatchResult:
    """Play one bot-only match; every seat's bot is asked at each step and the quickest acts."""
    game = rules_for("allegra")
    state = game.new_match(seats, options, seed)
    rng = random.Random(f"sim:{seed}")
    bot_rngs = [random.Random(f"bot:{seed}:{s}") for s in range(seats)]
    result = MatchResult(levels=list(levels), totals=[0] * seats, winners=[], actions=0)
    finished = False
    while not finished:
        offers = []
        for seat in range(seats):
            if not game.legal_actions(state, seat):
                continue
            view = game.player_view(state, seat)
            view["seat"] = seat
            action, delay = game.bot_choose(view, levels[seat], bot_rngs[seat])
            if action is not None:
                # The seeded jitter interleaves the active player's decision with knocks.
                offers.append((delay * rng.uniform(0.5, 1.5), seat, action))
        if not offers:
            raise RuntimeError(f"no bot acts (seed {seed}, action {result.actions})")
        _, seat, action = min(offers, key=lambda o: o[0])
        t0 = time.perf_counter()
        state, events = game.apply(state, seat, action)
        result.apply_seconds += time.perf_counter() - t0
        result.actions += 1
        if keep_log:
            result.log.append([seat, action])
        for e in events:
            t = e["type"]
            if t == "knocked":
                result.knocks += 1
            elif t == "card_given":
                result.gives += 1
            elif t == "triple_removed":
                result.triples += 1
            elif t == "round_ended" and e["doubled"] is not None:
                result.doublings += 1
            elif t == "match_finished":
                finished = True
                result.totals = e["totals"]
                result.winners = e["winners"]
    return result


def run(seats: int, matches: int, seed: int, levels: list[str]) -> dict[str, Any]:
    """Play `matches` matches and return the summary figures."""
    if len(levels) < seats:
        levels = [levels[i % len(levels)] for i in range(seats)]
    levels = levels[:seats]
    wins: dict[str, float] = dict.fromkeys(levels, 0.0)
    seat_count = Counter(levels)
    total_by_level: Counter[str] = Counter()
    sums: Counter[str] = Counter()
    apply_seconds = 0.0
    start = time.perf_counter()
    for m in range(matches):
        # Rotate the levels so no level keeps the same seat.
        shift = m % seats
        lv = levels[shift:] + levels[:shift]
        r = play_match(seats, lv, seed * 100_003 + m)
        apply_seconds += r.apply_seconds
        for w in r.winners:
            wins[lv[w]] += 1 / len(r.winners)
        for s, t in enumerate(r.totals):
            total_by_level[lv[s]] += t
        sums.update(
            actions=r.actions, knocks=r.knocks, gives=r.gives, triples=r.triples,
            doublings=r.doublings,
        )  # fmt: skip
    elapsed = time.perf_counter() - start
    return {
        "seats": seats,
        "matches": matches,
        "levels": levels,
        "wins": {lv: round(wins[lv], 2) for lv in sorted(seat_count)},
        "avg_total": {
            lv: round(total_by_level[lv] / (matches * seat_count[lv]), 1)
            for lv in sorted(seat_count)
        },
        **{k: sums[k] for k in ("actions", "knocks", "gives", "triples", "doublings")},
        "seconds": round(elapsed, 2),
        "actions_per_second": round(sums["actions"] / elapsed) if elapsed else 0,
        "apply_per_second": round(sums["actions"] / apply_seconds) if apply_seconds else 0,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Parse the command line, run, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--matches", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--levels", default="normal", help="comma-separated, cycled over the seats")
    args = ap.parse_args(argv)
    levels = [x.strip() for x in args.levels.split(",") if x.strip()]
    res = run(args.seats, args.matches, args.seed, levels)
    print(f"Allegra: {res['matches']} matches, {res['seats']} seats, levels {res['levels']}")
    print(f"  wins per level:    {res['wins']}")
    print(f"  average total:     {res['avg_total']}")
    print(
        f"  knocks {res['knocks']}, gives {res['gives']}, triples {res['triples']}, "
        f"doublings {res['doublings']}"
    )
    print(
        f"  {res['actions']} actions in {res['seconds']} s = "
        f"{res['actions_per_second']} actions/s (bots and views included); "
        f"rules apply alone {res['apply_per_second']} actions/s"
    )
    return res


if __name__ == "__main__":
    main()
