"""Who sits with whom in a tournament round: pure (no Django, no clock, no global random).

Swiss (`swiss_tables`): the entrants sorted by standing are cut into tables of S, short tables
filled with fillers (`None`) from the bottom; then a first-improvement swap search between
tables lowers the cost `REPEAT · Σ met(i, j)² + RANK · Σ |position − table median|`: a repeated
pair costs more than any spread of standing, so repeats are avoided first and standing breaks
the ties. Arena (`arena_tables`): the waiting pool sorted by standing is cut the same way, and a
pair who sat together in their previous match costs as much as a repeat (never the same table
twice in a row when enough are waiting). An Arena with duplicate deals (`pool_deals`) gives
each new table the pool deal none of its players has held and that was played least.
docs/tournaments.md explains it with figures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence, Set
from itertools import combinations
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

REPEAT = 1000
RANK = 1
WIDE = 16  # up to this many tables, a player may swap with any table


def pair(a: Hashable, b: Hashable) -> frozenset[Hashable]:
    """The unordered key of two entrants (for `met` counters)."""
    return frozenset((a, b))


def filler_counts(players: int, seats: int) -> list[int]:
    """How many fillers each of the ⌈players/seats⌉ tables gets, top table first (bottom fills)."""
    tables = max(1, -(-players // seats))
    fillers = tables * seats - players
    base, extra = divmod(fillers, tables)
    return [base + (1 if t >= tables - extra else 0) for t in range(tables)]


def swiss_tables[K: Hashable](
    order: Sequence[K],
    seats: int,
    met: Counter[frozenset[Hashable]],
    rank_weight: int = RANK,
    window: int | None = None,
) -> list[list[K | None]]:
    """Seat `order` (best standing first) at tables of `seats`; `None` marks a filler's seat.

    `met[pair(a, b)]` counts the earlier tables `a` and `b` shared. `window`: how many tables
    below a table its players may swap with (None: any table up to WIDE tables, then 3: a big
    event's players stay near their standing, and the search stays fast).
    """
    tables: list[list[K | None]] = []
    at = 0
    for fill in filler_counts(len(order), seats):
        humans = seats - fill
        tables.append([*order[at : at + humans], *([None] * fill)])
        at += humans
    position = {key: i for i, key in enumerate(order)}
    if window is None and len(tables) > WIDE:
        window = 3
    _improve(tables, met, position, rank_weight, window)
    return tables


def arena_tables[K: Hashable](
    pool: Sequence[K],
    seats: int,
    last: Counter[frozenset[Hashable]],
    fill: bool = False,
) -> list[list[K | None]]:
    """Seat a waiting `pool` (best standing first) at whole tables of `seats`.

    `last[pair(a, b)]` is 1 for two who sat together in their previous match. The remainder
    waits (the latest arrivals, at the end of `pool`, are not the ones left: the lowest are),
    unless `fill`: then a short last table is filled with fillers (`None`).
    """
    whole = len(pool) // seats
    if fill and len(pool) % seats:
        whole += 1
    chosen = list(pool[: whole * seats])
    tables: list[list[K | None]] = [[*chosen[t * seats : (t + 1) * seats]] for t in range(whole)]
    if tables and len(tables[-1]) < seats:
        tables[-1] = [*tables[-1], *([None] * (seats - len(tables[-1])))]
    position = {key: i for i, key in enumerate(pool)}
    _improve(tables, last, position, RANK, None)
    return tables


def pool_deal(held: Set[int], plays: Sequence[int]) -> int:
    """The pool deal (1-based) a new table takes: of those no player at it has held (`held`,
    the union of their deals), the one played least (`plays[k - 1]`: tables dealt deal k so
    far), the lowest on a tie; `len(plays) + 1`, a new deal, when every one is spent for them."""
    fresh = [k for k in range(1, len(plays) + 1) if k not in held]
    if not fresh:
        return len(plays) + 1
    return min(fresh, key=lambda k: (plays[k - 1], k))


def pool_deals[K: Hashable](
    tables: Sequence[Sequence[K | None]],
    held: Mapping[K, Set[int]],
    plays: Sequence[int],
) -> list[int]:
    """The pool deal of each of `tables` seated in the same tick, in order (see `pool_deal`).

    `held[key]`: the deals each entrant held before (fillers, `None`, hold nothing that
    counts); `plays`: how often each pool deal was dealt so far. The tables seated earlier in
    the tick count as played for the later ones.
    """
    counts = list(plays)
    chosen = []
    for table in tables:
        spent: set[int] = set()
        for key in table:
            if key is not None:
                spent |= held.get(key, set())
        k = pool_deal(spent, counts)
        if k > len(counts):
            counts.append(0)
        counts[k - 1] += 1
        chosen.append(k)
    return chosen


def repeats(tables: Sequence[Sequence[Hashable | None]], met: Counter[frozenset[Hashable]]) -> int:
    """How many pairs seated together in `tables` had met before (fillers do not count)."""
    return sum(
        1
        for table in tables
        for a, b in combinations([k for k in table if k is not None], 2)
        if met[pair(a, b)]
    )


def meet(met: Counter[frozenset[Hashable]], tables: Sequence[Sequence[Hashable | None]]) -> None:
    """Count every pair of `tables` as having met once more."""
    for table in tables:
        for a, b in combinations([k for k in table if k is not None], 2):
            met[pair(a, b)] += 1


def _improve[K: Hashable](
    tables: list[list[K | None]],
    met: Counter[frozenset[Hashable]],
    position: dict[K, int],
    rank_weight: int,
    window: int | None,
) -> None:
    """Swap players between tables while a swap lowers the cost (deterministic hill climb).

    The pairs' costs live in a matrix over the seated players, and each table's sum per player
    is kept up to date, so that a swap is judged in constant time.
    """
    keys = [k for table in tables for k in table if k is not None]
    index = {k: i for i, k in enumerate(keys)}
    n = len(keys)
    cost = [[0] * n for _ in range(n)]
    for together, times in met.items():
        if times and len(together) == 2:
            a, b = tuple(together)
            if a in index and b in index:
                cost[index[a]][index[b]] = cost[index[b]][index[a]] = REPEAT * times * times
    seats = [[index[k] if k is not None else -1 for k in table] for table in tables]
    rank = [float(position[k]) for k in keys]
    with_table = [[sum(cost[p][o] for o in table if o >= 0) for p in range(n)] for table in seats]

    def median(table: list[int]) -> float:
        spots = sorted(rank[p] for p in table if p >= 0)
        return spots[len(spots) // 2] if spots else 0.0

    medians = [median(t) for t in seats]
    for _ in range(50):  # a pass that changes nothing ends it; 50 bounds a pathological case
        changed = False
        for a in range(len(seats)):
            last = len(seats) if window is None else min(len(seats), a + 1 + window)
            for b in range(a + 1, last):
                ta, tb, sa, sb = seats[a], seats[b], with_table[a], with_table[b]
                ma, mb = medians[a], medians[b]
                for i in range(len(ta)):
                    for j in range(len(tb)):
                        x, y = ta[i], tb[j]
                        if x < 0 or y < 0:
                            continue  # fillers stay on the bottom tables
                        before = (
                            sa[x] + sb[y] + rank_weight * (abs(rank[x] - ma) + abs(rank[y] - mb))
                        )
                        after = (sa[y] - cost[y][x] + sb[x] - cost[x][y]) + rank_weight * (
                            abs(rank[y] - ma) + abs(rank[x] - mb)
                        )
                        if after < before:
                            ta[i], tb[j] = y, x
                            row_x, row_y = cost[x], cost[y]
                            for p in range(n):
                                moved = row_y[p] - row_x[p]
                                sa[p] += moved
                                sb[p] -= moved
                            changed = True
        if not changed:
            break
        medians = [median(t) for t in seats]
    for table, spots in zip(tables, seats, strict=True):
        table[:] = [keys[p] if p >= 0 else None for p in spots]
