"""Board API calls for tournaments: create, list, read, join, withdraw, add bots.

Registered on the same ninja `api` as api/views.py (imported by api/urls.py); the work is
tournaments.services' (the one write path) and the answer tournaments.describe's, as for the
site's pages.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from ninja import Status
from pydantic import Field, StrictBool, StrictInt, StrictStr

from api import schemas as s
from api.http import ApiRequest, api
from api.views import InviteQuery, answers, posted
from tournaments import describe, services
from tournaments.models import Tournament

ONE = "/tournaments/{int:tournament_id}"


class NewTournament(s.Body):
    game: Annotated[StrictStr, Field(json_schema_extra={"enum": s.SLUGS})]
    seats: Annotated[StrictInt, Field(ge=2, le=s.MOST_SEATS)]
    format: Literal["swiss", "arena"]
    rounds: Annotated[StrictInt, Field(ge=1, le=services.MOST_ROUNDS)] | None = None
    minutes: Annotated[StrictInt, Field(ge=1, le=services.MOST_MINUTES)] | None = None
    match_rounds: Annotated[StrictInt, Field(ge=1)] | None = None
    duplicate: StrictBool = False
    private: StrictBool = False
    starts_in: Annotated[StrictInt, Field(ge=0, le=services.LATEST_START)] = 300


class NewBots(s.Body):
    count: Annotated[StrictInt, Field(ge=1, le=services.MOST_BOTS)]
    level: Annotated[StrictStr, Field(json_schema_extra={"enum": s.LEVELS})] = "normal"


class TournamentSummary(s.Answer):
    id: int
    game: str
    seats: int
    format: Literal["swiss", "arena"]
    rounds: int | None
    round_count: int | None
    minutes: int | None
    match_rounds: int
    duplicate: bool
    private: bool
    status: Literal["scheduled", "running", "finished", "cancelled"]
    starts_at: str
    players: int


class StandingLine(s.Answer):
    rank: int
    entry: int
    name: str
    bot: bool
    points: float


class TableSeatAnswer(s.Answer):
    seat: int
    entry: int | None
    filler: bool
    deal_sha256: str
    points: int | None


class TableAnswer(s.Answer):
    number: int
    room: int
    status: str
    deal_sha256: str
    deal: int | None  # Arena duplicate: the pool deal's number; null otherwise
    plain_placing: bool  # duplicate: placed on the plain points (too few holders for a par)
    seats: list[TableSeatAnswer]


class RoundAnswer(s.Answer):
    number: int
    tables: list[TableAnswer]


class TournamentDetail(TournamentSummary):
    rounds: list[RoundAnswer]  # type: ignore[assignment]
    standings: list[StandingLine]


class TournamentList(s.Answer):
    tournaments: list[TournamentSummary]


class Joined(s.Answer):
    entry: int
    status: str


class BotsAdded(s.Answer):
    entries: list[int]


@api.post("/tournaments", response=posted(201, TournamentDetail, 401, 429))
def create(request: ApiRequest, body: NewTournament) -> Status:
    """Create a tournament (Swiss or Arena); it starts `starts_in` seconds from now."""
    t = services.create(request.auth, **body.model_dump())
    return Status(201, describe.detail(t, request.auth))


@api.get("/tournaments", response=answers(200, TournamentList, 401, 429))
def listing(request: ApiRequest) -> dict[str, Any]:
    """Public tournaments that have not finished: upcoming and running."""
    open_ = Tournament.objects.filter(
        private=False, status__in=[Tournament.Status.SCHEDULED, Tournament.Status.RUNNING]
    ).select_related("creator")
    return {"tournaments": [describe.summary(t) for t in open_[:100]]}


@api.get(ONE, response=answers(200, TournamentDetail, 401, 404, 429))
def read(request: ApiRequest, tournament_id: int, invite: InviteQuery = None) -> dict[str, Any]:
    """A tournament: status, players, rounds with their tables, standings."""
    t = services.get_visible(tournament_id, request.auth, invite)
    return describe.detail(t, request.auth)


@api.post(ONE + "/join", response=posted(200, Joined, 401, 403, 404, 409, 429))
def join(request: ApiRequest, tournament_id: int, invite: InviteQuery = None) -> dict[str, Any]:
    """Enter the tournament (until its start)."""
    entry = services.join(tournament_id, request.auth, invite)
    return {"entry": entry.pk, "status": entry.status}


@api.post(ONE + "/withdraw", response=posted(200, Joined, 401, 404, 409, 429))
def withdraw(request: ApiRequest, tournament_id: int) -> dict[str, Any]:
    """Leave the tournament (until its start)."""
    entry = services.withdraw(tournament_id, request.auth)
    return {"entry": entry.pk, "status": entry.status}


@api.post(ONE + "/bots", response=posted(201, BotsAdded, 401, 403, 404, 409, 429))
def bots(request: ApiRequest, tournament_id: int, body: NewBots) -> Status:
    """Enter bot entrants (the creator, before the start): they play and stand in the standings."""
    made = services.add_bots(tournament_id, request.auth, body.count, body.level)
    return Status(201, {"entries": [e.pk for e in made]})
