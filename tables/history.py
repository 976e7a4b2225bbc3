"""Score history read from the round-score rows: a match's sheet, a player's record, leaderboards.

Read-only queries over tables.models (RoundScore rows are written by tables.play when each round
ends). A closed match (stopped before its end) has no winner and counts in no statistic;
bots never appear on a leaderboard. Who wins is the game's rule, from its registry entry
(the highest total, or the lowest).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, Sum
from django.utils.translation import gettext, pgettext

from games.registry import GAMES
from tables import charts, guests, reaction
from tables.models import Match, Player, Round, RoundScore
from tables.words import game_name, player_name

RECENT_MATCHES = 10
CHART_MATCHES = 20


def lowest_wins(game: str) -> bool:
    """Whether the lowest total wins `game` (an unknown game: the highest, like most)."""
    info = GAMES.get(game)
    return info is not None and info.lowest_wins


def leading(game: str, totals: Sequence[int]) -> list[int]:
    """The seats ahead so far in a match being played (the best total under `game`'s rule)."""
    if not totals:
        return []
    # Who leads is the game's rule (its registry entry); who won is the rules' own word, kept on
    # each Player row (`won`) when the match finished.
    best = min(totals) if lowest_wins(game) else max(totals)
    return [seat for seat, total in enumerate(totals) if total == best]


# --------------------------------------------------------------------------- one match


@dataclass
class SheetRound:
    number: int
    points: list[int | None]  # per seat; None where a seat has no row (never, in practice)
    running: list[int]  # per seat, the total after this round
    end_reason: str = ""


@dataclass
class Sheet:
    """A match's score sheet: rounds as rows, players as columns, totals and winner(s)."""

    match: Match
    players: list[Player]
    rounds: list[SheetRound]
    totals: list[int]
    winners: list[int]  # seats; empty unless the match finished
    leaders: list[int]  # seats with the best total so far (a match being played)

    @property
    def closed(self) -> bool:
        return self.match.status == Match.Status.CLOSED

    @property
    def finished(self) -> bool:
        return self.match.status == Match.Status.FINISHED

    @property
    def columns(self) -> list[tuple[Player, int, bool]]:
        """Per seat: the player, his total and whether he won."""
        return [(p, self.totals[p.seat], p.seat in self.winners) for p in self.players]

    def chart(self) -> str:
        names = [player_name(p) for p in self.players]
        return charts.totals_chart(names, [[p or 0 for p in r.points] for r in self.rounds])


def match_sheet(match: Match) -> Sheet:
    """Build the score sheet of `match` from its RoundScore rows (three queries)."""
    players = list(match.players.select_related("user").order_by("seat"))
    seats = len(players)
    rounds: dict[int, SheetRound] = {}
    ended = Round.objects.filter(match=match, ended_at__isnull=False).order_by("number")
    for rnd in ended.only("number", "end_reason"):
        rounds[rnd.pk] = SheetRound(rnd.number, [None] * seats, [], rnd.end_reason)
    for row in RoundScore.objects.filter(round__match=match).values("round_id", "seat", "points"):
        entry = rounds.get(row["round_id"])
        if entry is not None and row["seat"] < seats:
            entry.points[row["seat"]] = row["points"]
    totals = [0] * seats
    ordered = sorted(rounds.values(), key=lambda r: r.number)
    for entry in ordered:
        totals = [t + (p or 0) for t, p in zip(totals, entry.points, strict=True)]
        entry.running = list(totals)
    finished = match.status == Match.Status.FINISHED
    playing = match.status == Match.Status.PLAYING
    return Sheet(
        match=match,
        players=players,
        rounds=ordered,
        totals=totals,
        winners=[p.seat for p in players if p.won] if finished else [],
        leaders=leading(match.game, totals) if playing and ordered else [],
    )


# --------------------------------------------------------------------------- one player


@dataclass
class GameRecord:
    """A player's record in one game, over its finished matches."""

    game: str
    name: str
    matches: int = 0
    wins: int = 0
    rounds: int = 0
    points: int = 0
    # His total in each finished match, oldest first (the chart).
    match_totals: list[int] = field(default_factory=list)

    @property
    def average(self) -> float | None:
        """Average points per round, one decimal (None before his first round)."""
        return round(self.points / self.rounds, 1) if self.rounds else None

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    def chart(self) -> str:
        recent = self.match_totals[-CHART_MATCHES:]
        first = len(self.match_totals) - len(recent) + 1
        words = {"game": self.name}
        return charts.line_chart(
            [charts.Series(gettext("points per match (%(game)s)") % words, recent, "s0")],
            [str(first + i) for i in range(len(recent))],
            title=gettext("%(game)s: points per match") % words,
            css="chart player-chart",
            x_title=pgettext("chart axis", "match"),
        )


@dataclass
class RecentMatch:
    match: Match
    seat: int
    total: int
    won: bool


def _match_totals(match_ids: Iterable[int]) -> dict[int, dict[int, int]]:
    """{match id: {seat: total}} for the given matches, in one query."""
    totals: dict[int, dict[int, int]] = defaultdict(dict)
    rows = (
        RoundScore.objects.filter(round__match_id__in=list(match_ids))
        .values("round__match_id", "seat")
        .annotate(total=Sum("points"))
    )
    for row in rows:
        totals[row["round__match_id"]][row["seat"]] = row["total"]
    return totals


def player_record(user) -> tuple[list[GameRecord], list[RecentMatch]]:
    """A player's record per game (finished matches only) and his latest matches (any state).

    A seat he gave up for good (`left`) is the bot's from then on: a match the others played
    to its end counts for him as a loss, with none of the bot's rounds or points.
    """
    seats = list(
        Player.objects.filter(user=user)
        .select_related("match__room")
        .order_by("match__created_at", "match_id")
    )
    totals = _match_totals(p.match_id for p in seats)
    rounds_played = dict(
        RoundScore.objects.filter(player__in=[p.pk for p in seats])
        .values("player_id")
        .annotate(n=Count("id"))
        .values_list("player_id", "n")
    )
    records = {slug: GameRecord(slug, game_name(slug)) for slug, game in GAMES.items()}
    recent: list[RecentMatch] = []
    for p in seats:
        match = p.match
        mine = totals.get(match.pk, {})
        won = match.status == Match.Status.FINISHED and p.won and not p.left
        recent.append(RecentMatch(match, p.seat, mine.get(p.seat, 0), won))
        if match.status != Match.Status.FINISHED or match.game not in records:
            continue
        record = records[match.game]
        record.matches += 1
        record.wins += won
        if p.left:
            continue  # the rounds and points after he left are the bot's
        record.rounds += rounds_played.get(p.pk, 0)
        record.points += mine.get(p.seat, 0)
        record.match_totals.append(mine.get(p.seat, 0))
    recent.reverse()
    return [r for r in records.values() if r.matches], recent[:RECENT_MATCHES]


# --------------------------------------------------------------------------- leaderboards


@dataclass
class Standing:
    user_id: int
    username: str
    matches: int = 0
    wins: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    @property
    def win_percent(self) -> int:
        return round(100 * self.win_rate)


def leaderboard(game: str, limit: int = 50) -> list[Standing]:
    """Humans ranked by wins in `game`'s finished matches, then win rate, then matches.

    One aggregate query: the winners were kept on the Player rows when each match finished.
    A player who left a match that the others finished lost it (his bot's win is not his).
    """
    rows = (
        Player.objects.filter(
            match__game=game,
            match__status=Match.Status.FINISHED,
            user__isnull=False,
        )
        .exclude(user__groups__name=guests.GROUP)  # guests are never listed
        .exclude(user__in=reaction.held_out_users())  # nor accounts held out of rated play
        .values("user_id", "user__username")
        .annotate(matches=Count("id"), wins=Count("id", filter=Q(won=True, left=False)))
    )
    standings = [Standing(r["user_id"], r["user__username"], r["matches"], r["wins"]) for r in rows]
    ranked = sorted(
        standings,
        key=lambda s: (-s.wins, -s.win_rate, -s.matches, s.username.lower()),
    )
    return ranked[:limit]


def sheet_for_view(view: dict[str, Any]) -> str:
    """The running-totals chart of a live table, from its view alone (no query: the push path)."""
    names = [p["name"] for p in view.get("players", ())]
    rounds = [list(row["points"]) for row in view.get("scores", ())]
    if not rounds:
        return ""  # nothing to draw before the first round ends: no empty axes on the table
    return charts.totals_chart(names, rounds)
