"""Reaction-time checks (issue 42): how long after a play became possible each human's play came.

A room's `Tracker` notes, after every change it applies, since when each legal action of every
human seat has been legal; on a human's play it keeps the time from that moment (or from his own
previous play, or the round's start, whichever is later) to the play's receipt. The samples go
per (account, game) into a `ReactionProfile` (bounded histogram, count, a running spread), a few
at a time; a profile whose median is inhumanly short or whose spread is too small is flagged,
and a flagged account is held out of rated play until a moderator clears it (docs/fairness.md).
Bots are never measured: they are bots. The samples are written by the store
(tables.live.store.write_reactions), the live path's one door to the database, which the
room's registry hands the tracker (`write`).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.db.models import QuerySet

from games.engine import Action
from tables.current import Table
from tables.models import ReactionProfile

log = logging.getLogger(__name__)

# The histogram's upper bucket edges in ms; the last bucket holds everything from 5 s on.
EDGES_MS = (50, 100, 150, 200, 250, 300, 400, 500, 600, 800, 1000, 1500, 2000, 3000, 5000)
BUCKETS = len(EDGES_MS) + 1
LONGEST_MS = 60_000  # a sample is capped here: a minute of thought weighs no more than that
# Flagged as too fast: a median under FAST_MEDIAN_MS over at least MIN_PLAYS plays.
MIN_PLAYS = 30
FAST_MEDIAN_MS = 250
# Flagged as too regular: the standard deviation of ln(ms) under REGULAR_SPREAD (about a 10 %
# coefficient of variation) over at least REGULAR_MIN_PLAYS plays.
REGULAR_MIN_PLAYS = 100
REGULAR_SPREAD = 0.10
# A player's samples are written in tens (and at every deal and round's end; what is short of
# ten when the room is dropped or the process stops: tables.live.rooms `drop`, `settle`).
SAVE_EVERY = 10
UNMEASURED = frozenset({"ready"})  # between rounds: nothing to react to

UNKNOWN = -math.inf  # legal since before the tracker looked: an age it cannot tell

FAST = "fast"
REGULAR = "regular"

Key = tuple[Any, ...]
Batch = dict[int, list[int]]  # user id -> reaction times (ms) not written yet


def key_of(action: Action) -> Key:
    """An action's identity for "since when is it legal": its type, from, index, source and
    place (the pile or target it goes to is the player's choice among equal plays)."""
    get = action.get
    key: Key = (get("type"), get("from"), get("index"), get("source"), get("place"))
    try:
        hash(key)
    except TypeError:  # a place is a dict (Allegra's {"row", "col"})
        return tuple(_frozen(k) for k in key)
    return key


def _frozen(value: Any) -> Any:
    """A hashable `value` (an action's place is a dict: {"row": 1, "col": 2}), whatever the
    order of its keys."""
    if isinstance(value, dict):
        try:
            return frozenset(value.items())
        except TypeError:
            return frozenset((k, _frozen(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def bucket_of(ms: int) -> int:
    for i, edge in enumerate(EDGES_MS):
        if ms < edge:
            return i
    return len(EDGES_MS)


def bucket_label(i: int) -> str:
    """The bucket's range in ms, as the histogram shows it ("250–300", "5000+")."""
    low = EDGES_MS[i - 1] if i else 0
    return f"{low}–{EDGES_MS[i]}" if i < len(EDGES_MS) else f"{low}+"


@dataclass
class Summary:
    """One (account, game)'s reaction times: the histogram, and ln(ms)'s mean and M2 (Welford)."""

    buckets: list[int] = field(default_factory=lambda: [0] * BUCKETS)
    count: int = 0
    log_mean: float = 0.0
    log_m2: float = 0.0

    def add(self, ms: int) -> None:
        ms = max(1, min(ms, LONGEST_MS))
        self.buckets[bucket_of(ms)] += 1
        self.count += 1
        x = math.log(ms)
        delta = x - self.log_mean
        self.log_mean += delta / self.count
        self.log_m2 += delta * (x - self.log_mean)

    def median(self) -> float | None:
        """The median in ms, read off the histogram (linear within its bucket)."""
        if not self.count:
            return None
        half, seen = self.count / 2, 0
        for i, n in enumerate(self.buckets):
            if n and seen + n >= half:
                low = EDGES_MS[i - 1] if i else 0
                high = EDGES_MS[i] if i < len(EDGES_MS) else LONGEST_MS
                return low + (high - low) * (half - seen) / n
            seen += n
        return None  # unreachable: the buckets hold `count` samples

    def spread(self) -> float | None:
        """The standard deviation of ln(ms): about the coefficient of variation."""
        if self.count < 2:
            return None
        return math.sqrt(self.log_m2 / (self.count - 1))

    def verdict(self) -> str:
        """FAST, REGULAR or "" (nothing to flag)."""
        median = self.median()
        if self.count >= MIN_PLAYS and median is not None and median < FAST_MEDIAN_MS:
            return FAST
        spread = self.spread()
        if self.count >= REGULAR_MIN_PLAYS and spread is not None and spread < REGULAR_SPREAD:
            return REGULAR
        return ""


class Played(Protocol):
    """What the tracker reads of a room's entry (tables.live.room.Entry)."""

    seat: int
    action: Action
    by_bot: bool
    table: Table

    @property
    def refused(self) -> str: ...
    @property
    def rare(self) -> bool: ...


@dataclass(eq=False)
class Tracker:
    """One room's reaction times: since when each human seat's actions are legal, its samples.

    Kept in the live room (one per match in this process); `note` is its one hook, called after
    each move the room applied or refused. Per move it asks the rules for the human seats'
    legal actions (kept by the engines) and compares a few keys.
    """

    clock: Callable[[], float] = time.time
    since: dict[int, dict[Key, float]] = field(default_factory=dict)
    last_play: dict[int, float] = field(default_factory=dict)
    opens_at: float | None = None  # the round's start (after its countdown), epoch seconds
    pending: Batch = field(default_factory=dict)
    game: str = ""
    # Where its samples go: the store, handed in by the room's registry (tables.live.rooms:
    # `write_reactions`, nothing waits for it). None: a room built outside the registry,
    # which notes nothing to keep.
    write: Callable[[str, Batch], None] | None = None
    # Each seat's legal actions as `since` last saw them: a move changes one seat's list or
    # two, and a list equal to the one seen leaves that seat's `since` as it is.
    seen: dict[int, list[Action]] = field(default_factory=dict)

    def note(self, before: Table, entry: Played) -> None:
        """After a move was applied to `before` (or refused on it): measure it, note what is
        legal now, and write the samples when there are enough or a round changed."""
        try:
            self._note(before, entry)
        except Exception:  # a check must never cost a move (it was applied and submitted)
            log.exception("noting a reaction time failed")

    def _note(self, before: Table, entry: Played) -> None:
        now = self.clock()
        self.game = before.match.game
        # Who plays each seat is the table's (`people`, built once for its player rows).
        user_id = before.people().get(entry.seat)
        if user_id is not None and not entry.by_bot and entry.action.get("type") not in UNMEASURED:
            ms = self.measure(entry.seat, entry.action, now)
            self.last_play[entry.seat] = now
            if ms is not None:
                self.pending.setdefault(user_id, []).append(ms)
        if not entry.refused:
            after = entry.table
            starts_at = after.match.starts_at
            self.opens_at = starts_at.timestamp() if starts_at is not None else None
            self.observe(
                {seat: after.game.legal_actions(after.state, seat) for seat in after.people()},
                now,
            )
        if self.pending and (
            entry.rare or any(len(s) >= SAVE_EVERY for s in self.pending.values())
        ):
            self.save()

    def observe(self, legal: dict[int, list[Action]], now: float) -> None:
        """Note each seat's legal actions at `now`: a new one is legal since now; one that was
        already legal when this tracker first looked is of unknown age (UNKNOWN: measured only
        from a later moment, the seat's own next play or a round's start)."""
        for seat, actions in legal.items():
            if self.seen.get(seat) == actions:
                continue  # the same keys: each still legal since when it was
            self.seen[seat] = actions
            keys = {key_of(a) for a in actions}
            known = self.since.get(seat)
            if known is None:
                self.since[seat] = dict.fromkeys(keys, UNKNOWN)
            else:
                self.since[seat] = {k: known.get(k, now) for k in keys}

    def measure(self, seat: int, action: Action, now: float) -> int | None:
        """The ms from when `action` became possible for `seat` to `now`; None: unknown."""
        since = self.since.get(seat, {}).get(key_of(action))
        if since is None:
            return None
        start = max(since, self.last_play.get(seat, UNKNOWN), self.opens_at or UNKNOWN)
        if start == UNKNOWN or now < start:
            return None
        return round((now - start) * 1000)

    def save(self) -> None:
        """Hand the pending samples to `write` (the store)."""
        batch, self.pending = self.pending, {}
        if self.write is not None:
            self.write(self.game, batch)


def summary_of(profile: ReactionProfile) -> Summary:
    buckets = list(profile.buckets or [])
    buckets += [0] * (BUCKETS - len(buckets))
    return Summary(buckets[:BUCKETS], profile.count, profile.log_mean, profile.log_m2)


def keep(profile: ReactionProfile, summary: Summary) -> None:
    profile.buckets, profile.count = list(summary.buckets), summary.count
    profile.log_mean, profile.log_m2 = summary.log_mean, summary.log_m2


# --------------------------------------------------------------------------- holding out


def held_out_users() -> QuerySet[ReactionProfile, Any]:
    """The ids of the accounts held out of rated play (a flag no moderator has cleared)."""
    return ReactionProfile.objects.filter(flagged_at__isnull=False).values("user_id")


def held_out(user: Any) -> bool:
    """Whether `user` is held out of rated play (a reaction-time flag not yet cleared)."""
    pk = getattr(user, "pk", None)
    return (
        pk is not None
        and ReactionProfile.objects.filter(user_id=pk, flagged_at__isnull=False).exists()
    )


def held_among(user_ids: Iterable[int]) -> set[int]:
    """Those of `user_ids` held out of rated play, in one query."""
    return set(
        ReactionProfile.objects.filter(
            user_id__in=list(user_ids), flagged_at__isnull=False
        ).values_list("user_id", flat=True)
    )
