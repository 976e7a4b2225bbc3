"""The one write path for moves, used by the browser's socket, the bots and the Board API.

Each change runs in one transaction on the locked match row: check, `apply`, save the state and
the new version, append to the action log (and the round scores when a round ends); only after
commit is the change pushed (`games.push`). Plays race here and are settled one at a time (L12).
"""

from __future__ import annotations

import copy
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.engine import Action, IllegalAction, State, View
from games.models import ActionLog, Match, Player, Round, RoundScore
from games.registry import GAMES, Game

# The keys an action of either game can carry (api.md); the log keeps only these, so a client's
# extra fields (ignored by the rules) never fill the database.
ACTION_KEYS = ("type", "from", "to", "index", "pile", "source", "place")

# A view's `message` when the service, not the engine, has something to say.
COUNTDOWN_MESSAGE = "Get ready: the round starts in a moment."


class PlayError(IllegalAction):
    """A refused move or table operation: a code, a sentence, and the HTTP status for the API."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(code, message)
        self.status = status


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
    return _table(match)


def _table(match: Match) -> Table:
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


def _remember(table: Table) -> None:
    m = table.match
    # A copy of the row: the table's own goes on changing in the next write's transaction.
    _cache[cache_key(m)] = (m.version, table.round, table.players, table.state, copy.copy(m))


def _forget(match: Match) -> None:
    # A change that failed half-way may have touched the cached rows in memory.
    _cache.pop(cache_key(match), None)


# --------------------------------------------------------------------------- starting


def start_match(room: Any, seats: list[Any]) -> Match:
    """Deal round 1 for a room that starts now; call inside the room's transaction."""
    game = GAMES[room.game]
    seed = secrets.randbits(53)
    state = game.new_match(len(seats), room.options, seed)
    match = Match.objects.create(
        room=room, game=room.game, options=room.options, seed=seed, starts_at=_countdown_end()
    )
    Player.objects.bulk_create(
        Player(
            match=match,
            seat=seat.index,
            user=seat.user,
            name=seat.name,
            bot_level=seat.bot_level,
            # A human's grace period runs from the start until his first socket (games.presence).
            away_since=match.created_at if seat.user_id else None,
        )
        for seat in seats
    )
    Round.objects.create(
        match=match, number=_round_no(state), seed=seed, state=game.dump(state), version=1
    )
    return match


def _countdown_end() -> Any:
    return timezone.now() + timedelta(seconds=settings.TABLE_COUNTDOWN)


def _round_no(state: State) -> int:
    return getattr(state, "round", 1)


# --------------------------------------------------------------------------- the write path


@dataclass
class Outcome:
    """What an accepted action did: the table after it and the engine's events."""

    table: Table
    events: list[dict[str, Any]]


def act(room_id: int, seat: int, action: Any, by_bot: bool = False, driver: str = "") -> Outcome:
    """Apply `action` for `seat` in the room's match, or raise PlayError / IllegalAction."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise PlayError("bad_action", 'An action is an object with a "type".', 400)
    with transaction.atomic():
        match = _locked_match(room_id)
        table = _table(match)
        if match.status == Match.Status.FINISHED:
            raise PlayError("match_over", "This match is over.")
        if match.status == Match.Status.CLOSED:
            raise PlayError("room_closed", match.closed_reason or "This room was closed.")
        if not any(p.seat == seat for p in table.players):
            raise PlayError("not_seated", "You have no seat at this table.", 403)
        if action["type"] != "ready" and table.counting_down():
            raise PlayError("not_started", "The round has not started yet: wait for the countdown.")
        new, events = table.game.apply(table.state, seat, action)  # refused: nothing written
        try:
            _save(table, new, events, seat=seat, action=action, by_bot=by_bot, driver=driver)
        except BaseException:
            _forget(match)
            raise
    return Outcome(table=table, events=events)


def _save(
    table: Table,
    new: State,
    events: list[dict[str, Any]],
    seat: int | None = None,
    action: Action | None = None,
    by_bot: bool = False,
    driver: str = "",
) -> None:
    """Persist `new` as the match's state at the next version and push it after commit."""
    match, game = table.match, table.game
    old = table.state
    match.version += 1
    rnd = table.round
    if action is not None:
        ActionLog.objects.create(
            match=match,
            round=rnd,
            seat=seat,
            action={k: action[k] for k in ACTION_KEYS if k in action},
            version=match.version,
            by_bot=by_bot,
            driver=driver,
        )
    old_scores, new_scores = len(getattr(old, "scores", ())), len(getattr(new, "scores", ()))
    fields = ["version"]
    if _round_no(new) != rnd.number:
        # The next round was dealt: it gets its own row (seed and state), starting at a countdown.
        rnd = Round.objects.create(
            match=match,
            number=_round_no(new),
            seed=getattr(new, "seed", match.seed),
            state=game.dump(new),
            version=match.version,
        )
        match.starts_at = _countdown_end()
        fields.append("starts_at")
    else:
        Round.objects.filter(pk=rnd.pk).update(state=game.dump(new), version=match.version)
    table.round = rnd
    # After the new round's row exists: a deal can end at once (L14+, deadlocked from the
    # start), and its scores belong to that round, not to the one the ready closed.
    if new_scores > old_scores:
        _record_scores(table, rnd, new, events)
    if getattr(new, "status", "") == "finished":
        match.status = Match.Status.FINISHED
        match.finished_at = timezone.now()
        fields += ["status", "finished_at"]
        _record_winners(table, events)
        _finish_room(match)
    match.save(update_fields=fields)
    table.state = new
    _remember(table)
    transaction.on_commit(partial(_push, table, events))


def _record_scores(table: Table, rnd: Round, new: State, events: list[dict[str, Any]]) -> None:
    points = list(new.scores[-1])
    if isinstance(new.scores[-1], dict):  # Allegra keeps {"round", "points", ...}
        points = list(new.scores[-1]["points"])
    reason = next((e.get("reason", "") for e in events if e.get("type") == "round_ended"), "")
    rnd.ended_at = timezone.now()
    rnd.end_reason = reason or ""
    rnd.save(update_fields=["ended_at", "end_reason"])
    RoundScore.objects.bulk_create(
        RoundScore(round=rnd, player=p, seat=p.seat, points=points[p.seat]) for p in table.players
    )


def _record_winners(table: Table, events: list[dict[str, Any]]) -> None:
    """Keep the seats the rules named winners (score history reads them, never re-judges)."""
    seats = next((e["winners"] for e in events if e.get("type") == "match_finished"), [])
    Player.objects.filter(match=table.match, seat__in=seats).update(won=True)
    for player in table.players:
        player.won = player.seat in seats


def _finish_room(match: Match) -> None:
    from lobby.models import Room
    from lobby.services import after_commit_notify

    # A room that everyone left stays closed; one being played is now finished.
    Room.objects.filter(pk=match.room_id, status=Room.Status.PLAYING).update(
        status=Room.Status.FINISHED, ended_at=timezone.now()
    )
    after_commit_notify(match.room_id)


def touch(room_id: int, change: Any) -> Table | None:
    """Run `change(table)` on the locked match (presence, stand-ins, countdown) and push it.

    `change` returns True when it changed something players can see; then the version grows.
    """
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(room_id=room_id).first()
        if match is None:
            return None
        table = _table(match)
        try:
            changed = change(table)
            if changed:
                match.version += 1
                match.save(update_fields=["version"])
                _remember(table)
                transaction.on_commit(partial(_push, table, []))
        except BaseException:
            _forget(match)
            raise
    return table


def close_match(room_id: int, reason: str) -> None:
    """Stop the room's match where it stands (its room was closed): no winner, no more moves."""

    def change(table: Table) -> bool:
        match = table.match
        if match.status != Match.Status.PLAYING:
            return False
        match.status = Match.Status.CLOSED
        match.closed_reason = reason
        match.finished_at = timezone.now()
        match.save(update_fields=["status", "closed_reason", "finished_at"])
        return True

    touch(room_id, change)


def _locked_match(room_id: int) -> Match:
    match = Match.objects.select_for_update().filter(room_id=room_id).first()
    if match is None:
        raise PlayError("not_started", "This room has no game in progress.", 404)
    return match


def _push(table: Table, events: list[dict[str, Any]]) -> None:
    from games import push  # push renders templates; play must import without them

    push.table_changed(table, events)
