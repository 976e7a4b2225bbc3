"""A match as it stands now (`Table`), and each process's memory of the last one it saw.

Apart from the write path (`tables.play`), so that pushes and readers use it without a loop.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.engine import State, View
from games.registry import GAMES, Game
from tables.models import Match, Player, Round

# A view's `message` when the service, not the engine, has something to say.
COUNTDOWN_MESSAGE = "Get ready: the round starts in a moment."


@dataclass
class Table:
    """A match as one moment of it: rows, players, the engine state, and what that seat sees."""

    match: Match
    players: list[Player]
    state: State
    round: Round | None = None  # the current round's row, without its state (see _table)
    game: Game = field(init=False)

    def __post_init__(self) -> None:
        self.game = GAMES[self.match.game]

    @property
    def version(self) -> int:
        return self.match.version

    def seat_of(self, user: Any) -> int | None:
        """Return the seat `user` plays in this match (None: he only watches)."""
        if user is None or not getattr(user, "is_authenticated", False):
            return None
        for p in self.players:
            if p.user_id == user.pk and not p.left:
                return p.seat
        return None

    def status(self, now: Any = None) -> str:
        """The engine's status, `starting` while the countdown runs (L7+), `closed` if stopped."""
        if self.match.status == Match.Status.CLOSED:
            return "closed"
        status = self.state.status if hasattr(self.state, "status") else "playing"
        if status == "playing" and self.counting_down(now):
            return "starting"
        return status

    def counting_down(self, now: Any = None) -> bool:
        starts_at = self.match.starts_at
        return starts_at is not None and (now or timezone.now()) < starts_at

    def view(self, seat: int | None, now: Any = None) -> View:
        """Return the Board API view of `seat` (None: a spectator): player_view plus the room's."""
        view = dict(self.game.player_view(self.state, seat))
        status = self.status(now)
        totals = view.get("totals") or [0] * len(self.players)
        view.update(
            room=self.match.room_id,
            game=self.match.game,
            status=status,
            version=self.match.version,
            seat=seat,
            players=[
                {
                    "seat": p.seat,
                    "name": p.name,
                    "bot": p.is_bot,
                    "connected": p.is_bot or p.connections > 0,
                    "total": totals[p.seat] if p.seat < len(totals) else 0,
                    **_away_until(p),
                }
                for p in self.players
            ],
            starts_at=self.match.starts_at.isoformat() if self.match.starts_at else None,
        )
        if status == "starting":
            view["legal"] = []
            view["message"] = COUNTDOWN_MESSAGE
        elif status == "closed":
            view["legal"] = []
            view["message"] = self.match.closed_reason or "This room was closed."
        return view


def _away_until(player: Player) -> dict[str, str]:
    """When a stand-in takes the seat of a human with no socket (the pages count down to it)."""
    if player.is_bot or player.connections > 0 or player.away_since is None:
        return {}
    until = player.away_since + timedelta(seconds=settings.LEAVER_GRACE)
    return {"away_until": until.isoformat()}


# --------------------------------------------------------------------------- reading


# A process keeps the last table it saw per match: the round row (without its state), the
# players and the state. States are immutable once built, and every change that anyone can see
# grows the version, so while the locked match row shows the same version nothing needs
# reloading (the hot path of every play: one locked read, then the writes).
# Keyed by (id, seed): a database that was reset (tests) reuses ids, never a 53-bit seed.
# The match row is kept as a copy taken at that version, for readers that want no query at all
# (cached_table).
_cache: dict[tuple[int, int], tuple[int, Round, list[Player], State, Match]] = {}


def load_table(room_id: int) -> Table | None:
    """Return the room's match as it stands now, or None if the room never started."""
    match = Match.objects.filter(room_id=room_id).first()
    if match is None:
        return None
    return from_row(match)


def from_row(match: Match) -> Table:
    """Return the table of `match` (a row just read, perhaps locked), from memory if current."""
    cached = _cache.get(cache_key(match))
    if cached is not None and cached[0] == match.version:
        _, rnd, players, state, _ = cached
        return Table(match=match, players=list(players), state=state, round=rnd)
    game = GAMES[match.game]
    rnd = match.rounds.defer("state").order_by("-number").first()
    players = list(match.players.all())
    state = game.load(Round.objects.filter(pk=rnd.pk).values_list("state", flat=True).get())
    _cache[cache_key(match)] = (match.version, rnd, players, state, copy.copy(match))
    return Table(match=match, players=list(players), state=state, round=rnd)


def cache_key(match: Match) -> tuple[int, int]:
    return (match.pk, match.seed)


def cached_table(key: tuple[int, int], version: int) -> Table | None:
    """Return the match (by `cache_key`) at exactly `version` from this process's memory.

    No query: for the pushes that follow a change, where every socket of the room wants the
    table at the version just written (by this process, usually). None means: load it (the
    change came from another process, or a later one is being written and may yet roll back).
    """
    cached = _cache.get(key)
    if cached is None or cached[0] != version:
        return None
    _, rnd, players, state, match = cached
    return Table(match=copy.copy(match), players=list(players), state=state, round=rnd)


def remember(table: Table) -> None:
    """Keep `table` as this process's newest view of its match."""
    m = table.match
    # A copy of the row: the table's own goes on changing in the next write's transaction.
    _cache[cache_key(m)] = (m.version, table.round, table.players, table.state, copy.copy(m))


def forget(match: Match) -> None:
    """Drop what this process kept of `match`."""
    # A change that failed half-way may have touched the cached rows in memory.
    _cache.pop(cache_key(match), None)
