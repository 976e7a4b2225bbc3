"""The daily leaderboard: each attempt's result, read from the match the server played.

Points are the round's RoundScore (the server's own count, never a client's); "ended by the
player" is whether his move emptied his Ligretto stack (the round's end reason and the last
move of the round); the duration runs from the end of the countdown to the round's end.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from django.db.models import F, Window
from django.db.models.functions import RowNumber

from daily.models import Attempt
from tables import reaction
from tables.models import ActionLog, Match, Round, RoundScore

# The person's seat at a daily table (daily.services.play seats him first, the bot second).
SEAT = 0
# The round's end when a player emptied his Ligretto stack (the rules' end reason).
STACK_EMPTY = "stack_empty"
# The moves after the round's end are its seats' "ready" (one each): the ending move is among
# the last this many applied moves of the match.
LAST_MOVES = 4


@dataclass
class Result:
    """An attempt as the board shows it."""

    attempt: Attempt
    name: str
    finished: bool = False  # the round has ended
    points: int = 0
    ended_by_player: bool = False
    duration_ms: int = 0
    rank: int = 0

    @property
    def sort_key(self) -> tuple[int, int, int, datetime]:
        ended_first = 0 if self.ended_by_player else 1
        return (-self.points, ended_first, self.duration_ms, self.attempt.created_at)

    @property
    def seconds(self) -> float:
        return self.duration_ms / 1000


def order(results: list[Result]) -> list[Result]:
    """Finished results by points (most first), then ended by the player, then duration
    (shortest first), then who started first; each numbered with its rank."""
    ranked = sorted((r for r in results if r.finished), key=lambda r: r.sort_key)
    for number, result in enumerate(ranked, 1):
        result.rank = number
    return ranked


def read(attempts: list[Attempt]) -> list[Result]:
    """Each attempt's figures, in four queries however many there are."""
    out = {a.room_id: Result(a, a.user.username) for a in attempts}
    matches = {
        m.pk: m for m in Match.objects.filter(room_id__in=out).only("pk", "room_id", "starts_at")
    }
    rounds = {
        r.match_id: r
        for r in Round.objects.filter(match_id__in=matches, number=1, ended_at__isnull=False).only(
            "pk", "match_id", "started_at", "ended_at", "end_reason"
        )
    }
    points = dict(
        RoundScore.objects.filter(
            round_id__in=[r.pk for r in rounds.values()], seat=SEAT
        ).values_list("round__match_id", "points")
    )
    last_moves = _last_movers([m for m, r in rounds.items() if r.end_reason == STACK_EMPTY])
    for match_id, rnd in rounds.items():
        match = matches[match_id]
        result = out[match.room_id]
        assert rnd.ended_at is not None  # filtered above
        began = match.starts_at or rnd.started_at
        result.finished = True
        result.points = points.get(match_id, 0)
        result.ended_by_player = last_moves.get(match_id) == SEAT
        result.duration_ms = max(0, round((rnd.ended_at - began).total_seconds() * 1000))
    return list(out.values())


def _last_movers(match_ids: list[int]) -> dict[int, int]:
    """The seat whose move ended each match's round: the last applied move that is not
    "ready" (after the round's end only readiness is said, once per seat, so it is among each
    match's last few moves: a window reads just those, not the whole log)."""
    if not match_ids:
        return {}
    newest = Window(RowNumber(), partition_by=[F("match_id")], order_by=F("version").desc())
    rows = (
        ActionLog.objects.filter(match_id__in=match_ids, refused="")
        .annotate(newest=newest)
        .filter(newest__lte=LAST_MOVES)
        .order_by("match_id", "-version")
        .values_list("match_id", "seat", "action")
    )
    movers: dict[int, int] = {}
    for match, seat, action in rows:
        if match not in movers and action.get("type") != "ready":
            movers[match] = seat
    return movers


def board(day: date) -> list[Result]:
    """The day's leaderboard: its ranked, finished attempts in order (guests are not on it)."""
    attempts = list(
        Attempt.objects.filter(day=day, ranked=True)
        .exclude(user__in=reaction.held_out_users())  # held out of rated play (flagged)
        .select_related("user")
    )
    return order(read(attempts))
