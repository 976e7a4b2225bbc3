"""The one write path for moves, used by the browser's socket, the bots and the Board API.

Each change runs in one transaction on the locked match row: check, `apply`, save the state and
the new version, append to the action log (and the round scores when a round ends); only after
commit is the change pushed (`tables.push`). Plays race here and are settled one at a time (L12).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.engine import Action, IllegalAction, State
from games.registry import GAMES
from tables import current, push, signals, wire
from tables.current import Table
from tables.models import ActionLog, Match, Player, Round, RoundScore

# The keys an action of either game can carry (api.md); the log keeps only these, so a client's
# extra fields (ignored by the rules) never fill the database.
ACTION_KEYS = ("type", "from", "to", "index", "pile", "source", "place")


class PlayError(IllegalAction):
    """A refused move or table operation: a code, a sentence, and the HTTP status for the API."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(code, message)
        self.status = status


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
            # A human's grace period runs from the start until his first socket (tables.presence).
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


def act(
    room_id: int,
    seat: int,
    action: Any,
    by_bot: bool = False,
    driver: str = "",
    check: Callable[[Table], None] | None = None,
) -> Outcome:
    """Apply `action` for `seat` in the room's match, or raise PlayError / IllegalAction.

    `check(table)` is the transport's authority check (tables.authority), run on the locked
    table before the rules: it raises when the caller no longer holds the seat.
    """
    try:
        # Every caller's action is checked here, so the rules and the log see known fields only.
        action = wire.action(action, code="bad_action")
    except wire.WireError as refusal:
        raise PlayError("bad_action", refusal.message, 400) from None
    with transaction.atomic():
        match = _locked_match(room_id)
        table = current.from_row(match)
        if match.status == Match.Status.FINISHED:
            raise PlayError("match_over", "This match is over.")
        if match.status == Match.Status.CLOSED:
            raise PlayError("room_closed", match.closed_reason or "This room was closed.")
        if not any(p.seat == seat for p in table.players):
            raise PlayError("not_seated", "You have no seat at this table.", 403)
        if check is not None:
            check(table)
        if action["type"] != "ready" and table.counting_down():
            raise PlayError("not_started", "The round has not started yet: wait for the countdown.")
        new, events = table.game.apply(table.state, seat, action)  # refused: nothing written
        try:
            _save(table, new, events, seat=seat, action=action, by_bot=by_bot, driver=driver)
        except BaseException:
            current.forget(match)
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
        signals.match_finished.send(sender=Match, match=match)
    match.save(update_fields=fields)
    table.state = new
    current.remember(table)
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


def touch(room_id: int, change: Any) -> Table | None:
    """Run `change(table)` on the locked match (presence, stand-ins, countdown) and push it.

    `change` returns True when it changed something players can see; then the version grows.
    """
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(room_id=room_id).first()
        if match is None:
            return None
        table = current.from_row(match)
        try:
            changed = change(table)
            if changed:
                match.version += 1
                match.save(update_fields=["version"])
                current.remember(table)
                transaction.on_commit(partial(_push, table, []))
        except BaseException:
            current.forget(match)
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
    push.table_changed(table, events)
