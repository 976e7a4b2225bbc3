"""Board API calls of the daily challenge: today's deal, the one attempt, a day's leaderboard.

Registered on the same ninja `api` as api/views.py (imported by api/urls.py); the work is the
daily app's (daily.services, daily.board), as for its pages. Days are UTC dates, YYYY-MM-DD.
"""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpResponse
from django.urls import reverse
from ninja import Path, Query, Status
from pydantic import Field

from api import schemas as s
from api.http import ApiError, ApiRequest, api, error
from api.views import EMPTY, answers, posted, room_answer
from daily import board, services
from daily import deal as deals

# A day as a query or a path names it; what is no real day, or a day to come, is the view's
# refusal (400 bad_date, 404 no_such_day), with a sentence.
DAY = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
DayPath = Annotated[str, Path(pattern=DAY)]
URI: dict[str, Any] = {"format": "uri"}
DayQuery = Annotated[str | None, Query(pattern=DAY)]


class Daily(s.Answer):
    """One day's challenge as the caller sees it."""

    date: Annotated[str, Field(json_schema_extra={"format": "date"})]
    game: Annotated[str, Field(json_schema_extra={"enum": s.SLUGS})]
    bot_level: str
    commitment: Annotated[
        str,
        Field(
            description="SHA-256 (hex) of the day's deal and bot, published before anyone "
            "plays (docs/daily.md says how to check it once the seeds are revealed)."
        ),
    ]
    revealed: Annotated[bool, Field(description="The day is over: its seeds are shown.")]
    seed: Annotated[int | None, Field(description="The deal's seed, from the next day on.")]
    bot_seed: Annotated[int | None, Field(description="The bot's seed, from the next day on.")]
    played: Annotated[bool, Field(description="You have made your attempt of that day.")]
    room: Annotated[int | None, Field(description="The room of your attempt, if you made it.")]
    next_deal_at: Annotated[str, Field(json_schema_extra={"format": "date-time"})]


class BoardEntry(s.Answer):
    rank: Annotated[int, Field(ge=1)]
    player: str
    points: int
    ended_by_player: Annotated[bool, Field(description="He emptied his Ligretto stack first.")]
    duration_ms: Annotated[
        int, Field(ge=0, description="From the countdown's end to the round's end.")
    ]
    room: Annotated[int | None, Field(description="The run's room, once the day is over.")] = None
    replay: Annotated[
        str | None,
        Field(
            description="Its replay page, once the day is over.",
            json_schema_extra={"format": "uri"},
        ),
    ] = None


class Leaderboard(s.Answer):
    date: Annotated[str, Field(json_schema_extra={"format": "date"})]
    game: Annotated[str, Field(json_schema_extra={"enum": s.SLUGS})]
    commitment: str
    revealed: bool
    seed: int | None
    bot_seed: int | None
    entries: list[BoardEntry]


def _day(text: str | None) -> Any:
    try:
        return services.parse_day(text, services.site_clock())
    except services.DailyError as refusal:
        raise ApiError(refusal.code, refusal.message, refusal.status) from None


def _deal_fields(day: Any) -> dict[str, Any]:
    deal = services.deal_of(day)
    shown = deals.revealed(day, services.today(services.site_clock()))
    return {
        "date": day.isoformat(),
        "game": deal.game,
        "commitment": deal.commitment,
        "revealed": shown,
        "seed": deal.seed if shown else None,
        "bot_seed": deal.bot_seed if shown else None,
    }


@api.get("/daily", response=answers(200, Daily, 401, 404, 429))
def daily(request: ApiRequest, date: DayQuery = None) -> dict[str, Any]:
    """Today's challenge (or a past day's, with its seeds): its commitment, and your attempt."""
    clock = services.site_clock()
    day = services.today(clock) if date is None else _day(date)
    mine = services.attempt_of(request.auth, day)
    return {
        **_deal_fields(day),
        "bot_level": services.deal_of(day).bot_level,
        "played": mine is not None,
        "room": mine.room_id if mine else None,
        "next_deal_at": deals.next_deal_at(services.today(clock)).isoformat() + "Z",
    }


@api.post("/daily/play", response=posted(201, s.Room, 401, 409, 429))
def play(request: ApiRequest, body: s.Empty = EMPTY) -> Status | HttpResponse:
    """Start your one attempt at today's deal: the room, started (409 on a second attempt)."""
    try:
        attempt = services.play(request.auth, services.site_clock())
    except services.DailyError as refusal:
        extra: dict[str, Any] = {}
        if refusal.attempt is not None:
            url = refusal.attempt.room.get_absolute_url()
            extra = {"room": refusal.attempt.room_id, "result": request.build_absolute_uri(url)}
        return error(refusal.code, refusal.message, refusal.status, **extra)
    return Status(201, room_answer(request, attempt.room_id))


@api.get("/daily/{date}/leaderboard", response=answers(200, Leaderboard, 401, 404, 429))
def leaderboard(request: ApiRequest, date: DayPath) -> dict[str, Any]:
    """A day's leaderboard: points, then who ended the round, then time (replays once over)."""
    day = _day(date)
    fields = _deal_fields(day)
    entries = []
    for result in board.board(day):
        entry: dict[str, Any] = {
            "rank": result.rank,
            "player": result.name,
            "points": result.points,
            "ended_by_player": result.ended_by_player,
            "duration_ms": result.duration_ms,
        }
        if fields["revealed"]:
            room_id = result.attempt.room_id
            page = reverse("daily:replay", args=[day.isoformat(), room_id])
            entry |= {"room": room_id, "replay": request.build_absolute_uri(page)}
        entries.append(entry)
    return {**fields, "entries": entries}
