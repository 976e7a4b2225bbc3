"""A match as one moment of it (`Table`): its rows, the engine state, and each seat's view.

The live rooms (tables.live) keep the newest durable table of each match they serve; readers
get it through `tables.live.rooms.read`. A table is read from the database only by the store
(tables.live.store.recover): this module queries nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.engine import Progress, Sentence, State, View
from games.registry import GAMES, Game
from tables import clocks, fairness
from tables.models import Match, Player, Round

# A view's `message` when the service, not the engine, has something to say.
COUNTDOWN_MESSAGE = "Get ready: the round starts in a moment."


@dataclass
class Table:
    """A match as one moment of it: rows, players, the engine state, and what that seat sees."""

    match: Match
    players: list[Player]
    state: State
    round: Round | None = None  # the current round's row, without its state (see recover)
    game: Game = field(init=False)

    def __post_init__(self) -> None:
        self.game = GAMES[self.match.game]

    @property
    def version(self) -> int:
        return self.match.version

    @property
    def progress(self) -> Progress:
        """The round, rounds scored, seed and status of the engine state (its rules say).

        Asked several times a move (the room, the status of every view, the fairness), so kept
        for the state it was asked of: engine states are never changed in place."""
        known = self.__dict__.get("_progress")
        if known is not None and known[0] is self.state:
            kept: Progress = known[1]
            return kept
        progress = self.game.progress(self.state)
        self.__dict__["_progress"] = (self.state, progress)
        return progress

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
        status = self.progress.status
        if status == "playing" and self.counting_down(now):
            return "starting"
        return status

    def counting_down(self, now: Any = None) -> bool:
        starts_at = self.match.starts_at
        return starts_at is not None and (now or timezone.now()) < starts_at

    def views(self, seats: list[int | None], now: Any = None) -> dict[int | None, View]:
        """`view` of each of `seats`, with what they share built once (a push's every seat)."""
        return self.joined(seats, *self.view_parts(seats, now), now)

    def view_parts(
        self, seats: list[int | None], now: Any = None
    ) -> tuple[dict[int | None, View], View | None]:
        """What `views` is made of: the engine's view of each of `seats`, and the room's part
        they all share (every field of `_room_view` but `seat` and `totals`, the very same
        objects for each seat), or None when the seats' room parts differ (their totals do).
        A seat's view is its engine view updated with the room's part, then its `seat`
        (`joined`): the stream encodes from these parts without joining them
        (tables.live.render.prepare)."""
        engine = self.game.player_views(self.state, seats)
        totals = [engine[seat].get("totals") for seat in seats]
        if len(seats) < 2 or any(t != totals[0] for t in totals):
            return engine, None
        # The room's part is the same for every seat but its `seat`: built once, and the very
        # same objects in each view (the stream encodes what they share once, tables.live.render).
        shared = self._room_view({"totals": totals[0]}, None, now)
        del shared["seat"], shared["totals"]
        return engine, shared

    def joined(
        self,
        seats: list[int | None],
        engine: dict[int | None, View],
        shared: View | None,
        now: Any = None,
    ) -> dict[int | None, View]:
        """Each of `seats`' view from `view_parts`."""
        if shared is None:
            return {seat: self._room_view(engine[seat], seat, now) for seat in seats}
        views = {}
        for seat in seats:
            view = dict(engine[seat])
            view.update(shared)
            view["seat"] = seat
            views[seat] = view
        return views

    def view(self, seat: int | None, now: Any = None) -> View:
        """Return the Board API view of `seat` (None: a spectator): player_view plus the room's."""
        return self._room_view(self.game.player_view(self.state, seat), seat, now)

    def _room_view(self, engine_view: View, seat: int | None, now: Any = None) -> View:
        view = dict(engine_view)
        status = self.status(now)
        totals = view.get("totals") or [0] * len(self.players)
        view.update(
            room=self.match.room_id,
            game=self.match.game,
            status=status,
            version=self.match.version,
            seat=seat,
            players=self._players(totals),
            starts_at=self.match.starts_at.isoformat() if self.match.starts_at else None,
            fairness=self._fairness(status == "closed"),
            **self._clock(),
        )
        if status == "starting":
            view["legal"] = []
            view["message"] = COUNTDOWN_MESSAGE
        elif status == "closed":
            view["legal"] = []
            # A Sentence: the site's own reasons (everyone left) are worded for each reader;
            # a host's own words stay as he wrote them.
            view["message"] = Sentence(self.match.closed_reason or "This room was closed.")
        return view

    def _fairness(self, stopped: bool) -> dict[str, Any] | None:
        """The view's `fairness`: the round's commitment; its seeds only once it is over
        (tables.fairness.public). The same for every version of a round until it ends, so
        built once for what it is made of (`copy_of` hands it on): a plain move hashes no
        seed."""
        if not self.match.fair_secret:
            return None
        progress = self.progress
        key = (progress.round, progress.status, stopped, tuple(progress.clients), progress.seed)
        known = self.__dict__.get("_fairness_view")
        if known is not None and known[0] == key:
            return dict(known[1])
        shown = fairness.public(self.match.fair_secret, progress, stopped)
        assert shown is not None  # the match has a secret
        self.__dict__["_fairness_view"] = (key, shown)
        return dict(shown)

    def people(self) -> dict[int, int]:
        """The seats a person plays now (not a bot's, a leaver's nor a stand-in's), with his
        user id: built once for the same player rows, as the view's `players` (a plain move
        changes none: `copy_of` hands the next table what was built), so that the
        reaction-time check (tables.reaction) reads no row per move."""
        known = self.__dict__.get("_people")
        if known is not None and known[0] is self.players:
            return known[1]
        people = {p.seat: p.user_id for p in self.players if p.user_id is not None and not p.is_bot}
        self.__dict__["_people"] = (self.players, people)
        return people

    def _clock(self) -> dict[str, Any]:
        """The view's `clock` (the decision the table waits for, until when) and `timed_out`
        (whom a bot last decided for): the same for every seat, built once per version."""
        stored = self.match.clock or {}
        if not stored:  # a table that keeps no clock (Ligretto, an untimed Allegra): nothing
            return {"clock": None, "timed_out": None}
        known = self.__dict__.get("_clock_view")
        key = (self.match.version, id(self.state))
        if known is not None and known[0] == key:
            return dict(known[1])
        shown = None
        if clocks.seconds_for(self.match.options) and stored:
            shown = clocks.shown(stored, clocks.table_decision(self))
        timed_out = clocks.last_timeout(stored)
        if timed_out is not None:  # whose seat a stand-in still plays (he may be back)
            bots = {p.seat for p in self.players if p.is_bot}
            timed_out["stand_in"] = [s for s in timed_out["stand_in"] if s in bots]
        fields = {"clock": shown, "timed_out": timed_out}
        self.__dict__["_clock_view"] = (key, fields)
        return dict(fields)

    def _players(self, totals: list[int]) -> list[dict[str, Any]]:
        """The view's `players`: the same for every seat, so built once for the same player
        rows and totals (a push builds every seat's view of the same table, and a plain move
        changes neither: `copy_of` hands the next table what was built)."""
        known = self.__dict__.get("_players_view")
        if known is not None and known[0] is self.players and known[1] == totals:
            return known[2]
        people = self.people()
        players = [
            {
                "seat": p.seat,
                "name": p.name,
                "bot": p.seat not in people,
                "connected": p.seat not in people or p.connections > 0,
                "total": totals[p.seat] if p.seat < len(totals) else 0,
                **_away_until(p),
            }
            for p in self.players
        ]
        # The very rows it was built from (never changed in place: a change copies them).
        self.__dict__["_players_view"] = (self.players, totals, players)
        return players


def _away_until(player: Player) -> dict[str, str]:
    """When a stand-in takes the seat of a human who is away (no socket, or idle for a whole
    round: tables.clocks): the pages count down to it."""
    if player.is_bot or player.away_since is None:
        return {}
    until = player.away_since + timedelta(seconds=settings.LEAVER_GRACE)
    return {"away_until": until.isoformat()}


def copy_of(table: Table, players: bool = True) -> Table:
    """A table a caller may change (its rows) without touching the one it was copied from.

    `players=False` shares the player rows (a move changes none of them but at the end).
    """
    copy = Table(
        match=clone(table.match),
        players=[clone(p) for p in table.players] if players else table.players,
        state=table.state,  # engine states are never changed in place
        round=table.round,
    )
    if not players:  # the same rows: what was built of them holds for the copy
        for built in ("_players_view", "_people"):
            if built in table.__dict__:
                copy.__dict__[built] = table.__dict__[built]
    if "_fairness_view" in table.__dict__:  # keyed by what it is made of: it holds or not
        copy.__dict__["_fairness_view"] = table.__dict__["_fairness_view"]
    return copy


def clone(row: Any) -> Any:
    """A shallow copy of a model instance: what copy.copy does, without pickling's detour
    (for its ModelState too: copy.copy takes its __getstate__, which leaves out `peers`)."""
    new = object.__new__(type(row))
    new.__dict__ = row.__dict__.copy()
    state = object.__new__(type(row._state))
    fields = row._state.__dict__.copy()
    fields.pop("peers", None)
    fields["fields_cache"] = {}
    state.__dict__ = fields
    new._state = state
    return new


def cache_key(match: Match) -> tuple[int, int]:
    return (match.pk, match.seed)
