"""One live match in this process (`LiveRoom`) and one change of it waiting to be written (`Entry`).

A `LiveRoom` holds everything the process keeps for one match: the table its moves are applied
to, the newest durable table that readers get, the last parts pushed (so that a change draws only
what differs), the Board API texts of one version, and the sockets listening here. Nothing of a
match lives anywhere else in the process, so dropping the room (tables.live.rooms) gives it all
back. Moves are applied one at a time (`apply`, under `lock`): races settle here (L12).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_noop

from games.engine import Action, Event, IllegalAction, State, View
from tables import claims, current, fairness
from tables.current import Table
from tables.errors import PlayError
from tables.live.equalise import Equaliser, receipt
from tables.models import Match, Round
from tables.pacing import Pacer, equalise_of, pace_of
from tables.reaction import Tracker
from tables.words import named

# A transport's authority check on the table before a move (`holder`).
Check = Callable[[Table], None]

# The keys an action of any game can carry (api.md); the log keeps only these, so a client's
# extra fields (ignored by the rules) never fill the database.
ACTION_KEYS = ("type", "from", "to", "index", "pile", "source", "place", "seed")
# How many of its last changes a room keeps for pages that reconnect (LiveRoom.missed).
RECENT = 16
# Refusals the log keeps (replays show them): a race lost (L12).
LOGGED_REFUSALS = frozenset({"too_slow"})
# How many of its last applied plays a room keeps to tell a lost race who took it (`taken`).
PLAYS_KEPT = 64
# The sentence of a lost race whose winner the room knows (docs/fairness.md).
TAKEN_BY = gettext_noop("Taken by %(name)s, %(ms)s ms earlier: %(card)s.")


@dataclass(frozen=True)
class Play:
    """An applied play a room keeps for the races after it: whose, when it reached the
    server (`equalise.receipt`), and what it did."""

    seat: int
    received: int
    version: int
    events: list[Event]
    sent: int | None = None  # its estimated sending time, on an equalised table


def _when(received: int, sent: int | None) -> int:
    return sent if sent is not None else received


@dataclass(frozen=True)
class Taken:
    """Who won the race a refused play lost, and how much earlier the winner's play reached
    the server (the loser's receipt minus the winner's, in whole ms, never below 0)."""

    seat: int
    player: Any  # the winner's row (tables.models.Player): named per reader (tables.words)
    earlier_ms: int
    received: int
    equalised: bool = False  # ordered by estimated sending time (then `earlier_ms` is by it)


class RaceLost(IllegalAction):
    """A play that lost its race (L12), with who took what it wanted (`taken`: None when the
    room no longer knows the winning play, e.g. it was rebuilt in between)."""

    def __init__(self, lost: IllegalAction, taken: Taken | None) -> None:
        params = dict(lost.params)
        template = lost.template
        if taken is not None:
            # A bot's name is worded when the refusal is (in its reader's language).
            params |= {"name": named(taken.player), "ms": taken.earlier_ms}
            template = TAKEN_BY
        super().__init__(lost.code, template, **params)
        self.contested = lost.contested
        self.taken = taken


@dataclass(frozen=True, eq=False)
class Delivery:
    """One change of a room, as its listeners get it.

    `public` is the room's message (`table.public`: the changed public parts per language,
    whether they are all of them, which seats' own parts changed); `private` the changed own
    parts by seat (`table.private`); `table` the very table at `version` when the change was
    made in this process (None: it came from another one).
    """

    room_id: int
    version: int
    public: dict[str, Any]
    private: dict[int, dict[str, Any]] = field(default_factory=dict)
    table: Table | None = None


class Listener(Protocol):
    """A socket of this process that listens to a room (a table socket, an API stream).

    `deliver` is awaited in the order of the changes; `deliver_now` is tried first, in a
    plain call, and returns True when the change needs nothing more (sent, or not wanted).
    """

    seat: int | None
    wants_html: bool
    language: str  # its reader's: a change is drawn in the languages its listeners read

    def deliver_now(self, delivery: Delivery) -> bool: ...
    async def deliver(self, delivery: Delivery) -> None: ...
    async def table_notice(self, event: dict[str, Any]) -> None: ...


@dataclass(eq=False)
class Entry:
    """One change of one match, applied in memory and waiting to be written."""

    room: LiveRoom
    before: int  # the match's version before it
    table: Table  # the table after it (a refused play: the table it was refused on)
    events: list[Event]
    seat: int
    action: Action
    generation: int  # the room's table it was applied to (see LiveRoom.generation)
    by_bot: bool = False
    driver: str = ""
    played_in: Round | None = None  # the round the move was played in (its log row's)
    refusal: IllegalAction | None = None  # a play that lost its race: logged, then refused
    received: int | None = None  # when the play reached the server (`equalise.receipt`)
    sent: int | None = None  # its estimated sending time on an equalised table (equalise)
    new_round: Round | None = None  # a round row this change opened (not saved yet)
    # The round it closed, as it stood before the deal: its row keeps it (replays, sheets).
    closed_state: State = None
    scores: list[int] | None = None  # the points of a round that ended with it
    end_reason: str = ""
    winners: list[int] | None = None  # the match ended with it
    snapshot: bool = False
    claims: tuple[int, ...] = ()  # the seats whose claim its deal settled (tables.claims)
    future: asyncio.Future[bool] | None = None  # in the loop: True once durable, False: again

    @property
    def version(self) -> int:
        return self.table.version

    @property
    def outdated(self) -> bool:
        """Whether it was applied to a table the database is known not to hold (the fence
        sends it back to be applied again on the rebuilt table)."""
        return self.room.stale or self.generation != self.room.generation

    @property
    def refused(self) -> str:
        return self.refusal.code if self.refusal is not None else ""

    @property
    def rare(self) -> bool:
        """Whether it dealt, ended a round or ended the match (written through the ORM)."""
        return self.new_round is not None or self.scores is not None or self.winners is not None


@dataclass
class Pushed:
    """The parts last pushed from this process for a room: its version, the public parts'
    data and each seat's own pieces' data (what the next change compares with)."""

    version: int
    public: dict[str, Any]
    private: dict[int, dict[str, Any]]


@dataclass
class Encoded:
    """The Board API texts of one version of a room, per seat (None: a spectator)."""

    version: int
    texts: dict[int | None, str] = field(default_factory=dict)
    shared: dict[str, tuple[Any, str]] = field(default_factory=dict)
    views: dict[int | None, View] = field(default_factory=dict)
    # The seats' views built together: the JSON of what they share, and each seat's own fields.
    plan: tuple[str, list[str]] | None = None
    planned: frozenset[int | None] = frozenset()
    # The versions just before it, newest first, whose pushes may not have gone yet: two moves
    # of one room in one batch are both prepared before the first is pushed (a few at most).
    older: list[Encoded] = field(default_factory=list)


@dataclass(eq=False)
class LiveRoom:
    """Everything this process keeps for one live match (see the module docstring)."""

    room_id: int
    table: Table | None = None  # what moves are applied to (None: not loaded here)
    durable: Table | None = None  # the newest table known to be in the database
    pushed: Pushed | None = None  # the parts last pushed from here (tables.live.render)
    encoded: Encoded | None = None  # the Board API texts of one version (tables.live.render)
    # The words its parts are drawn in, per language (tables.live.render.Said): the process's
    # rooms share one (`Rooms.room`), so each word is asked of the catalogue once.
    words: dict[str, Any] = field(default_factory=dict)
    listeners: set[Listener] = field(default_factory=set)
    last: Entry | None = None  # the newest entry submitted (a touch waits for it)
    stale: bool = False  # the database is ahead of `table`: rebuild before the next move
    base: int = 0  # the version `table` was read at: every later one was applied here
    generation: int = 0  # grows with every rebuild: an entry of an older table is outdated
    since_snapshot: int = 0
    snapshot_at: float = field(default_factory=time.monotonic)
    over_since: float | None = None  # when its match ended or closed (monotonic)
    # What the last move pushed from here did: a change that is no move (a touch) still tells
    # it, until the next move (`news_for`).
    news: list[Event] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Its last applied plays: who took what a later play lost its race for (`taken`).
    plays: collections.deque[Play] = field(
        default_factory=lambda: collections.deque(maxlen=PLAYS_KEPT)
    )
    # An equalised table's held plays (tables.live.equalise); unused when the option is off.
    equaliser: Equaliser = field(default_factory=Equaliser)
    # A paced table's (issue 41): when each seat last played, whose early play waits.
    pacer: Pacer = field(default_factory=Pacer)
    # Its match's pace (0: unpaced) and whether it is equalised: its options, read once when
    # it is loaded (a match's options never change), not by every move.
    pace: float = 0.0
    equalise: bool = False
    # Since when each human seat's plays are legal, and their reaction times (issue 42).
    reaction: Tracker = field(default_factory=Tracker)
    # The last changes pushed from here, without their tables: what a page that reconnects
    # at a recent version missed (`missed`), sent instead of the whole table.
    recent: collections.deque[Delivery] = field(
        default_factory=lambda: collections.deque(maxlen=RECENT)
    )

    @property
    def over(self) -> bool:
        table = self.durable or self.table
        return table is not None and table.match.status != Match.Status.PLAYING

    def loaded(self, table: Table) -> None:
        """Start from `table` (read from the database): its moves are applied to it now."""
        self.table, self.stale, self.last = table, False, None
        self.base = table.version
        self.pace = pace_of(table.match.options)
        self.equalise = equalise_of(table.match.options)
        self.generation += 1
        self.plays.clear()
        self.since_snapshot, self.snapshot_at = 0, time.monotonic()
        self.remember(table)

    def remember(self, table: Table) -> None:
        """Keep `table`, durable now, as what readers get (never an older one)."""
        known = self.durable
        if (
            known is None
            or current.cache_key(known.match) != current.cache_key(table.match)
            or known.version <= table.version
        ):
            self.durable = table
        if self.over and self.over_since is None:
            self.over_since = time.monotonic()

    def release(self) -> None:
        """Give back what the match holds here (its table, its caches); listeners stay."""
        self.generation += 1  # what was applied to the old table is written or sent back
        self.table = self.durable = None
        self.pushed = self.encoded = None
        self.last = None
        self.news = []
        self.recent.clear()
        self.plays.clear()

    def news_for(self, events: list[Event]) -> list[Event]:
        """The events a change at this room draws: its own, or for a change that made none (a
        touch: a decision's clock started, someone came or went) those of the last move.

        A touch redraws the parts it changed, and a table's news lies in a part every change
        redraws: drawn without events it said nothing, and a clocked Allegra table lost what
        the move just did (a triple, a knock) a quarter of a second later, when the driver
        started the next decision's clock.
        """
        if events:
            self.news = events
        return self.news

    def pushed_change(self, delivery: Delivery) -> None:
        """Keep a change pushed from here (without its table) for pages that reconnect."""
        self.recent.append(dataclasses.replace(delivery, table=None))

    def missed(self, shown: int, now: int) -> list[Delivery] | None:
        """The changes after version `shown` up to `now` (the match row's), every one of them,
        in order; None when some are not here (too old, or made by another process): draw the
        whole table.

        A change already durable (`now` counts it) but not pushed yet is in flight here when
        this room applied it (newer than the version its table was read at, and not newer
        than its table): it is left out, since the socket asking listens already and gets it
        from the push, next after these. Counted as missing, it drew the whole table again for
        a page that came back at that moment (its own coming back is such a change)."""
        pushed = self.recent[-1].version if self.recent else shown
        upto = min(now, pushed)
        if shown > upto:
            return None
        changes = [d for d in self.recent if shown < d.version <= upto]
        if [d.version for d in changes] != list(range(shown + 1, upto + 1)):
            return None
        in_flight = self.table is not None and self.base <= upto and now <= self.table.version
        if upto < now and not in_flight:
            return None  # made elsewhere, or before this room was read: not all will come
        return changes

    def apply(
        self,
        table: Table,
        seat: int,
        action: Action,
        by_bot: bool = False,
        driver: str = "",
        check: Check | None = None,
        received: int | None = None,
        sent: int | None = None,
    ) -> Entry:
        """Check and apply one move to `table` (this room's); return its entry, or raise.

        `check(table)` is the transport's authority check (`holder`), run on the table
        as it stands before the rules: it raises when the caller no longer holds the seat. A
        play that lost its race (L12) is not raised: its entry comes back with `refusal` set
        (a `RaceLost`: who took it), so that the log keeps it (a replay shows the play that
        came too late). `received`: when the transport got it (`equalise.receipt`; now if not said);
        `sent`: its estimated sending time, on an equalised table (tables.live.equalise).
        """
        match = table.match
        if received is None:
            received = receipt()
        _playable(table, seat, action, check)
        kept = {k: action[k] for k in ACTION_KEYS if k in action}

        def entry_of(table: Table, events: list[Event], refusal: IllegalAction | None) -> Entry:
            return Entry(
                room=self,
                before=match.version,
                table=table,
                events=events,
                seat=seat,
                action=kept,
                generation=self.generation,
                by_bot=by_bot,
                driver=driver,
                played_in=table.round,
                refusal=refusal,
                received=received,
                sent=sent,
            )

        try:
            new, events = table.game.apply(table.state, seat, action)
            if table.game.progress(new).rounds_scored > table.progress.rounds_scored:
                # A round's end: the next round's server seed goes in (tables.fairness).
                new = fairness.next_deal(table.game, match.fair_secret, table.progress, new)
        except IllegalAction as refusal:
            if refusal.code not in LOGGED_REFUSALS:
                raise
            lost = RaceLost(refusal, self.taken(table, seat, refusal, received, sent))
            self.last = entry_of(table, [], lost)
            return self.last
        after = current.copy_of(table, players=False)
        after.match.version += 1
        after.state = new
        entry = entry_of(after, events, None)
        _progress(entry, table, new)
        self.since_snapshot += 1
        if (
            entry.rare
            or self.since_snapshot >= settings.SNAPSHOT_EVERY
            or time.monotonic() - self.snapshot_at >= settings.SNAPSHOT_SECONDS
        ):
            entry.snapshot = True
            self.since_snapshot, self.snapshot_at = 0, time.monotonic()
        self.table = after
        self.last = entry
        self.plays.append(Play(seat, received, after.version, events, sent))
        return entry

    def taken(
        self,
        table: Table,
        seat: int,
        refusal: IllegalAction,
        received: int,
        sent: int | None = None,
    ) -> Taken | None:
        """Who took what `seat`'s refused play raced for: the newest play of another seat
        whose events name it (`IllegalAction.contested`), if this room still keeps it. The
        margin is by receipt, or on an equalised table by estimated sending time."""
        wanted = refusal.contested
        if wanted is None:
            return None
        for play in reversed(self.plays):
            if play.seat != seat and any(e.get("card") == wanted for e in play.events):
                player = next((p for p in table.players if p.seat == play.seat), None)
                if player is None:
                    return None
                equalised = sent is not None and play.sent is not None
                mine, theirs = _when(received, sent), _when(play.received, play.sent)
                earlier = max(0, mine - theirs) // 1000
                return Taken(play.seat, player, earlier, play.received, equalised)
        return None


# --------------------------------------------------------------------------- authority
#
# Who may act for a seat is judged when the action is made, not remembered from a connect. A
# socket learns its seat when it opens; the player may leave the match (a bot plays his seat on),
# be banned, or the seat may change hands while the socket stays open. So every move a transport
# submits carries `holder(seat, user)`: a check the room runs on the table it applies the move to
# (the players are part of it, so this costs no query), refusing a seat that is no longer this
# user's. Group messages (`access_changed`, tables.live.stream) tell open sockets at once; this
# check is what makes a message that is late or lost harmless.


class NotYourSeat(PlayError):
    """The seat this socket was opened for is no longer the user's (he left, or was banned)."""

    def __init__(self) -> None:
        super().__init__("not_seated", "You no longer hold a seat at this table.", 403)


def holds(table: Table, seat: int | None, user: Any) -> bool:
    """Whether `user` (signed in and active) plays `seat` of `table` now."""
    if seat is None or user is None or not getattr(user, "is_authenticated", False):
        return False
    if not getattr(user, "is_active", True):
        return False
    return table.seat_of(user) == seat


@dataclass(frozen=True)
class Holder:
    """The check a transport passes to `rooms.act`: raise unless the user holds `seat`.

    Plain data (the seat, the user's id and whether his account is active), so that a move
    forwarded to the room's owner process carries its check along (`tables.live.owners`).
    """

    seat: int | None
    user_id: int | None  # None: not signed in
    active: bool = True

    def __call__(self, table: Table) -> None:
        if not self.holds(table):
            raise NotYourSeat

    def holds(self, table: Table) -> bool:
        if self.seat is None or self.user_id is None or not self.active:
            return False
        # As Table.seat_of judges it, from the user's id alone.
        held = (p.seat for p in table.players if p.user_id == self.user_id and not p.left)
        return next(held, None) == self.seat

    def data(self) -> dict[str, Any]:
        return {"seat": self.seat, "user": self.user_id, "active": self.active}

    @classmethod
    def of(cls, data: dict[str, Any]) -> Holder:
        return cls(seat=data["seat"], user_id=data["user"], active=bool(data["active"]))


def holder(seat: int | None, user: Any) -> Holder:
    """The check for `user` (as he is now) holding `seat`."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Holder(seat, None, False)
    return Holder(seat, user.pk, bool(getattr(user, "is_active", True)))


def _playable(table: Table, seat: int, action: Action, check: Check | None) -> None:
    """Raise PlayError unless `seat` may act on `table` now (before the rules judge it)."""
    match = table.match
    if match.status == Match.Status.FINISHED:
        raise PlayError("match_over", gettext_noop("This match is over."))
    if match.status == Match.Status.CLOSED:
        raise PlayError("room_closed", match.closed_reason or gettext_noop("This room was closed."))
    if not any(p.seat == seat for p in table.players):
        raise PlayError("not_seated", gettext_noop("You have no seat at this table."), 403)
    if check is not None:
        check(table)
    if action["type"] != "ready" and table.counting_down():
        raise PlayError(
            "not_started", gettext_noop("The round has not started yet: wait for the countdown.")
        )


def _progress(entry: Entry, table: Table, new: State) -> None:
    """What the move did beyond the state, from the rules' progress: a deal, a round's end
    (its points), the match's end (its winners)."""
    after, match = entry.table, table.match
    before, progress = table.progress, after.progress  # after.state is `new`: kept for its views
    if table.round is not None and progress.round != table.round.number:
        # The next round was dealt: its own row (seed and state), starting at a countdown.
        entry.new_round = Round(
            match_id=match.pk, number=progress.round, seed=progress.seed, version=after.version
        )
        entry.closed_state = table.state
        after.round = entry.new_round
        after.match.starts_at = timezone.now() + timedelta(seconds=settings.TABLE_COUNTDOWN)
        # Whoever claimed a bot's seat sits from this deal on, in this very change.
        after.players, entry.claims = claims.on_deal(after.players, timezone.now())
    if progress.rounds_scored > before.rounds_scored:
        entry.scores = list(table.game.last_round_points(new))
        ended = [e for e in entry.events if e.get("type") == "round_ended"]
        entry.end_reason = str(ended[0].get("reason") or "") if ended else ""
    if progress.finished:
        after.match.status = Match.Status.FINISHED
        after.match.finished_at = timezone.now()
        ends = [e for e in entry.events if e.get("type") == "match_finished"]
        entry.winners = [int(s) for s in ends[0]["winners"]] if ends else []
        after.players = [current.clone(p) for p in after.players]
        for player in after.players:
            player.won = player.seat in entry.winners


def unknown_room() -> PlayError:
    return PlayError("not_started", gettext_noop("This room has no game in progress."), 404)
