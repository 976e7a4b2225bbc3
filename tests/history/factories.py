"""Played matches as database rows, without playing them: rooms, players, rounds and scores."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from lobby.models import Room, Seat
from tables.models import Match, Player, Round, RoundScore

_clock = [timezone.now() - timedelta(days=1)]


def played_match(
    game: str,
    people: list[Any],
    rounds: list[list[int]],
    status: str = Match.Status.FINISHED,
    options: dict[str, Any] | None = None,
    private: bool = False,
    closed_reason: str = "",
    winners: list[int] | None = None,
) -> Match:
    """A room and its match: `people` are users or bot levels ("easy", ...), seat by seat.

    Each entry of `rounds` is one ended round's points, seat by seat (RoundScore rows). A
    finished match's `winners` (seats) are marked as the write path marks the rules' word; by
    default the best totals (the highest, the lowest in Allegra), as the rules would say.
    """
    if status == Match.Status.FINISHED and winners is None:
        totals = [sum(points) for points in zip(*rounds, strict=True)] if rounds else []
        best = (min if game == "allegra" else max)(totals, default=None)
        winners = [seat for seat, total in enumerate(totals) if total == best]
    _clock[0] += timedelta(minutes=5)  # matches in a known order
    host = next(p for p in people if not isinstance(p, str))
    room_status = {
        Match.Status.FINISHED: Room.Status.FINISHED,
        Match.Status.CLOSED: Room.Status.CLOSED,
        Match.Status.PLAYING: Room.Status.PLAYING,
    }[status]
    room = Room.objects.create(
        game=game,
        seats=len(people),
        options=options or {},
        host=host,
        status=room_status,
        private=private,
        closed_reason=closed_reason,
    )
    match = Match.objects.create(
        room=room,
        game=game,
        options=options or {},
        seed=len(rounds),
        status=status,
        closed_reason=closed_reason,
        finished_at=None if status == Match.Status.PLAYING else _clock[0],
    )
    Match.objects.filter(pk=match.pk).update(created_at=_clock[0])
    match.refresh_from_db()
    players = []
    for seat, who in enumerate(people):
        bot = isinstance(who, str)
        Seat.objects.create(
            room=room, index=seat, user=None if bot else who, bot_level=who if bot else ""
        )
        players.append(
            Player.objects.create(
                match=match,
                seat=seat,
                user=None if bot else who,
                name=f"{who.title()} bot {seat + 1}" if bot else who.username,
                bot_level=who if bot else "",
                won=status == Match.Status.FINISHED and seat in winners,
            )
        )
    for number, points in enumerate(rounds, start=1):
        rnd = Round.objects.create(
            match=match, number=number, seed=number, state={}, version=number, ended_at=_clock[0]
        )
        RoundScore.objects.bulk_create(
            RoundScore(round=rnd, player=p, seat=p.seat, points=v)
            for p, v in zip(players, points, strict=True)
        )
    return match
