"""Board API calls for replays and quick play: a round's public move list, Play now, Practice.

Registered on the same ninja `api` as api/views.py (imported by api/urls.py); the work is
tables.replay's and lobby.quickplay's, as for the site's pages.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from ninja import Status

from api import schemas as s
from api.http import ApiError, ApiRequest, api
from api.views import ROOM, InviteQuery, posted, room_answer, room_call
from games.registry import GAMES
from lobby import quickplay
from tables import fairness, replay
from tables.models import Match


@api.get(ROOM + "/replay", response=room_call(s.Replay, 409))
def round_moves(
    request: ApiRequest, room_id: int, round: int | None = None, invite: InviteQuery = None
) -> dict[str, Any]:
    """A round's public move list, in the order the server took the moves."""
    room = room_answer(request, room_id, invite)  # 404 for who may not see the room
    match = Match.objects.filter(room_id=room["id"]).first()
    if match is None:
        raise ApiError("not_started", _("This room has not started yet."), 409)
    rounds = [r for r in match.rounds.defer("state") if replay.available(match, r)]
    number = round if round is not None else (rounds[0].number if rounds else None)
    if number is None or not any(r.number == number for r in rounds):
        raise ApiError(
            "round_not_over", _("That round has not ended yet (or there is no such round)."), 409
        )
    rep = replay.replay_round(match, number)
    return {
        "room": room["id"],
        "game": match.game,
        "round": number,
        "rounds": [r.number for r in rounds],
        "moves": replay.moves(rep),
        # The round is over: its seeds, and the cards its deal gave (docs/fairness.md).
        "fairness": fairness.revealed(GAMES[match.game], match.fair_secret, rep.states[0]),
        "dealt": GAMES[match.game].dealt(rep.states[0]),
        # Its fairness log: the races, and each player's (docs/fairness.md).
        "races": replay.races(rep),
        "race_summary": [
            {k: v for k, v in row.items() if k != "who"} for row in replay.race_summary(rep)
        ],
    }


@api.post("/play", response=posted(200, s.Room, 401, 409, 429))
def play_now(request: ApiRequest, body: s.QuickPlay) -> Status:
    """Play now: a seat at a waiting room of the game near your rating, or a new room."""
    room = quickplay.play_now(request.auth, body.game, body.pace)
    return Status(200, room_answer(request, room.pk))


@api.post("/practise", response=posted(201, s.Room, 401, 409, 429))
def practise(request: ApiRequest, body: s.Practice) -> Status:
    """Practise against bots of a level: an unrated table, started at once."""
    room = quickplay.practise(request.auth, body.game, body.level, body.pace)
    return Status(201, room_answer(request, room.pk))
