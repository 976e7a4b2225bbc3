"""Run a tournament to its end in-process: the scheduler's actions, and every table's bots
through the real write path at full speed (tables.driver.MatchBots), as the server's loop and
driver would."""

from __future__ import annotations

import random
from datetime import timedelta

from django.utils import timezone

from tables.driver import MatchBots
from tables.models import ActionLog
from tournaments import scheduler
from tournaments.models import Tournament, TournamentTable


def play_tables(tournament_id: int, seed: int = 0) -> None:
    """Drive every playing table of the tournament to its match's end."""
    for table in TournamentTable.objects.filter(
        tournament_id=tournament_id, status=TournamentTable.Status.PLAYING
    ):
        bots = MatchBots(table.room_id, rng=random.Random(seed + table.room_id))
        for _ in range(200_000):
            if bots.step() is None:
                break
        else:
            raise AssertionError(f"room {table.room_id} did not end")


def run_to_end(tournament_id: int, limit: int = 200) -> dict[str, int]:
    """Act and play until the tournament is over; return the tables and moves it took."""
    now = timezone.now()
    for _ in range(limit):
        t = Tournament.objects.get(pk=tournament_id)
        if t.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            rooms = TournamentTable.objects.filter(tournament_id=tournament_id)
            moves = ActionLog.objects.filter(
                match__room_id__in=rooms.values("room_id"), refused=""
            ).count()
            return {"tables": rooms.count(), "moves": moves}
        now = max(now, t.next_action_at or now, timezone.now())
        scheduler.run_due(now)
        play_tables(tournament_id)
        now += timedelta(seconds=1)
    raise AssertionError("the tournament did not end")
