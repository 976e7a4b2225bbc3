"""A tournament's points: placing shares, par-adjusted duplicate scores, arena streaks, standings.

Pure (no Django, no clock, no global random); docs/tournaments.md has the formulas and a worked
example (tests/tournaments/test_scoring.py reproduces it). Values are "higher is better": a game
whose lowest total wins passes its totals negated (`oriented`).
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

# Below this many tables a round's par is too noisy: plain placing (the deal comparison shows).
PAR_TABLES = 3
# Arena: a result with at least this share is "good"; two good in a row set a player on fire.
GOOD_SHARE = 2 / 3


@dataclass
class SeatResult:
    """One seat of one finished table: who (None: a filler bot), the seat's deal, the result."""

    key: Hashable | None
    seat: int
    value: float  # the match total, oriented so that higher is better
    missed: bool = False  # a stand-in played it to the end: it scores nothing for the player


@dataclass
class Scored:
    """What a seat earned: par and adjusted value (duplicate), share, round points, deal MP."""

    key: Hashable | None
    seat: int
    value: float
    missed: bool
    par: float | None = None
    adjusted: float | None = None
    share: float = 0.0
    round_points: float = 0.0
    deal_beaten: float = 0.0  # holders of the same deal this seat did better than (ties ½)
    deal_holders: int = 0  # the other holders of the same deal it is compared with
    on_fire: bool = False  # Arena: a good result after two good ones (counted double)


def oriented(total: float, lowest_wins: bool) -> float:
    """A match total as "higher is better"."""
    return -total if lowest_wins else total


def shares(values: Sequence[float | None]) -> list[float]:
    """Each seat's placing share `(beaten + ½·tied) / (n − 1)`; `None` (missed) is last, share 0."""
    n = len(values)
    if n < 2:
        return [1.0] * n
    out = []
    for i, mine in enumerate(values):
        if mine is None:
            out.append(0.0)
            continue
        won = 0.0
        for j, theirs in enumerate(values):
            if i == j:
                continue
            if theirs is None or mine > theirs:
                won += 1
            elif mine == theirs:
                won += 0.5
        out.append(won / (n - 1))
    return out


def score_round(tables: Sequence[Sequence[SeatResult]], duplicate: bool) -> list[list[Scored]]:
    """Score one Swiss round: per table, each seat's share and round points (100 × share).

    Duplicate (every table the same deals seat by seat): a seat's par is the mean value the same
    seat's deal scored at the other tables (missed seats left out), its adjusted value is its own
    minus that par, and the share is placed among its tablemates on the adjusted value. Below
    PAR_TABLES tables, and in a plain event, the share is placed on the values themselves.
    """
    holders: dict[int, list[float]] = defaultdict(list)
    for table in tables:
        for r in table:
            if not r.missed:
                holders[r.seat].append(r.value)
    # Sorted, with their sums: a seat's comparison with the other holders costs a bisection,
    # not a pass over them (an Arena's pool deal may be held at hundreds of tables).
    for values in holders.values():
        values.sort()
    totals = {seat: sum(values) for seat, values in holders.items()}
    with_par = duplicate and len(tables) >= PAR_TABLES
    out: list[list[Scored]] = []
    for table in tables:
        scored = [Scored(r.key, r.seat, r.value, r.missed) for r in table]
        for s in scored:
            if s.missed:
                continue
            values = holders[s.seat]
            others = len(values) - 1  # this seat is left out of its own par
            if duplicate:
                below = bisect_left(values, s.value)
                tied = bisect_right(values, s.value) - below - 1
                s.deal_holders = others
                s.deal_beaten = below + 0.5 * tied
            if with_par and others:
                s.par = (totals[s.seat] - s.value) / others
                s.adjusted = s.value - s.par
        placed = [
            None if s.missed else (s.adjusted if s.adjusted is not None else s.value)
            for s in scored
        ]
        for s, share in zip(scored, shares(placed), strict=True):
            s.share = share
            s.round_points = 100 * share
        out.append(scored)
    return out


def arena_points(results: Sequence[float]) -> list[tuple[int, bool]]:
    """Points of an arena player's shares in time order: `round(10 × share)`, doubled on fire.

    Two good results (share ≥ 2/3) in a row set the player on fire: every result after them
    counts double until one below 2/3 (which ends the streak, and counts single).
    Returns (points, on fire) per result.
    """
    out = []
    good_in_row = 0
    for share in results:
        fire = good_in_row >= 2
        base = round(10 * share)
        good = share >= GOOD_SHARE - 1e-9
        out.append((base * 2 if fire and good else base, fire and good))
        good_in_row = good_in_row + 1 if good else 0
    return out


def score_arena(
    tables: Sequence[tuple[int | None, Sequence[SeatResult]]], duplicate: bool
) -> list[list[Scored]]:
    """Score an Arena's counted tables, given in time order with each one's pool deal.

    A table's shares are its placing (`score_round` of the table alone). Duplicate: the tables
    that played the same pool deal are scored together as a Swiss round is, so that a seat's
    par is the mean of the other holders of the same deal's same seat (missed seats left out)
    and the share is placed on the adjusted value; a deal held at fewer than PAR_TABLES tables
    so far is placed on the plain values. Then each entrant's shares in time order earn arena
    points with the streak bonus (`arena_points`); a filler's are `round(10 × share)`.
    Scoring again as tables end moves earlier results: the pars fill in.
    """
    out: list[list[Scored]] = [[] for _ in tables]
    by_deal: dict[int, list[int]] = defaultdict(list)
    for i, (deal, table) in enumerate(tables):
        if duplicate and deal is not None:
            by_deal[deal].append(i)
        else:  # a table of its own deal
            out[i] = score_round([table], duplicate=False)[0]
    for indices in by_deal.values():
        scored = score_round([tables[i][1] for i in indices], duplicate=True)
        for i, seats in zip(indices, scored, strict=True):
            out[i] = seats
    in_time: dict[Hashable, list[Scored]] = defaultdict(list)
    for seats in out:
        for s in seats:
            if s.key is None:
                s.round_points = round(10 * s.share)
            else:
                in_time[s.key].append(s)
    for seats in in_time.values():
        for s, (points, fire) in zip(seats, arena_points([x.share for x in seats]), strict=True):
            s.round_points, s.on_fire = float(points), fire
    return out


@dataclass
class Standing:
    """One entrant's line: points and the tie-break values, in the order they are compared."""

    key: Hashable
    points: float = 0.0
    against_cards: float = 0.0  # tie-break 1: Σ adjusted (duplicate) or Σ (own − table mean)
    opponents: float = 0.0  # tie-break 2: mean of tablemates' final points
    head_to_head: float = 0.0  # tie-break 3: among those still tied, placings against them
    draw: str = ""  # tie-break 4: a seeded draw from the tournament's secret
    matches: int = 0
    rank: int = 0
    tablemates: list[Hashable] = field(default_factory=list)


def standings(
    rounds: Sequence[Sequence[Sequence[Scored]]],
    entrants: Sequence[Hashable],
    secret: str,
    arena: bool = False,
) -> list[Standing]:
    """The standings of `entrants` from their scored tables, best first (docs/tournaments.md).

    `rounds`: every scored round, each a list of tables (arena: one "round" per table, in time
    order). Fillers (key None) and entrants not in `entrants` are opponents, never listed.
    """
    lines = {k: Standing(k, draw=_draw(secret, k)) for k in entrants}
    seen: dict[Hashable, list[tuple[int, int]]] = defaultdict(list)  # key -> (round, table)
    shares_in_time: dict[Hashable, list[float]] = defaultdict(list)
    for r, tables in enumerate(rounds):
        for t, table in enumerate(tables):
            mean = sum(s.value for s in table) / len(table)
            for s in table:
                line = lines.get(s.key) if s.key is not None else None
                if line is None:
                    continue
                line.matches += 1
                seen[s.key].append((r, t))
                if not arena:
                    line.points += s.round_points
                shares_in_time[s.key].append(s.share)
                if not s.missed:
                    line.against_cards += s.adjusted if s.adjusted is not None else s.value - mean
                line.tablemates.extend(o.key for o in table if o.key is not None and o is not s)
    if arena:
        for key, results in shares_in_time.items():
            if key in lines:
                lines[key].points = float(sum(p for p, _ in arena_points(results)))
    for line in lines.values():
        mates = [lines[m].points for m in line.tablemates if m in lines]
        line.opponents = sum(mates) / len(mates) if mates else 0.0
    ordered = sorted(lines.values(), key=_keys)
    _head_to_head(ordered, rounds)
    ordered.sort(key=lambda s: (*_keys(s), -s.head_to_head, s.draw))
    for i, line in enumerate(ordered, start=1):
        line.rank = i
    return ordered


def _keys(line: Standing) -> tuple[float, float, float]:
    # Compared to the millionth: sums of thirds must tie however they were added up.
    return (-round(line.points, 6), -round(line.against_cards, 6), -round(line.opponents, 6))


def _head_to_head(ordered: list[Standing], rounds: Sequence[Sequence[Sequence[Scored]]]) -> None:
    """Among each group tied on points and tie-breaks 1–2: + for each tied one placed below
    you at a shared table, − for each above (by share; ½ for a tie is 0)."""
    groups: dict[tuple[float, float, float], list[Standing]] = defaultdict(list)
    for line in ordered:
        groups[_keys(line)].append(line)
    for group in groups.values():
        if len(group) < 2:
            continue
        tied = {line.key: line for line in group}
        for tables in rounds:
            for table in tables:
                here = [s for s in table if s.key in tied]
                for a in here:
                    for b in here:
                        if a is not b and a.share != b.share:
                            tied[a.key].head_to_head += 1 if a.share > b.share else -1


def _draw(secret: str, key: Hashable) -> str:
    return hashlib.sha256(f"{secret}:{key}".encode()).hexdigest()
