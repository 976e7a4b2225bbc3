"""What the Board API says about rooms and score sheets (views come from tables.current.Table)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from games.registry import bot_speed_of, equalise_of, pace_of
from lobby.models import Room, Seat
from tables.live import rooms
from tables.models import Match, RoundScore
from tables.words import stable_bot_name

# api.md knows three room states; a room everyone left is over, like a finished one.
ROOM_STATUS = {"open": "open", "playing": "playing", "finished": "finished", "closed": "finished"}


def room_json(
    room: Room, request: HttpRequest | None = None, base: str = "", viewer: Any = None
) -> dict[str, Any]:
    """The api.md room object (seats and host prefetched, ideally); `url` is absolute.

    A private room's invite code goes only to `viewer` when he holds a seat there.
    """
    url = room.get_absolute_url()
    answer = {
        "id": room.pk,
        "game": room.game,
        "status": ROOM_STATUS[room.status],
        "closed": room.status == Room.Status.CLOSED,
        "seats": room.seats,
        "options": room.options,
        "host": room.host.username,
        "players": [
            {"seat": seat.index, "name": _seat_name(seat), "bot": seat.is_bot}
            for seat in sorted(room.seat_set.all(), key=lambda s: s.index)
        ],
        "url": request.build_absolute_uri(url) if request is not None else base + url,
        "private": room.private,
        "rated": room.rated,
        # A paced table (issue 41) says its pace apart from the rules' options.
        "pace": pace_of(room.options) or None,
        "bot_speed": bot_speed_of(room.options) if pace_of(room.options) else None,
        "equalise": equalise_of(room.options),  # latency equalisation (docs/fairness.md)
    }
    if viewer is not None and any(seat.user_id == viewer.pk for seat in room.seat_set.all()):
        answer["invite"] = room.invite_code
    return answer


def score_sheet(room: Room) -> dict[str, Any]:
    """Rounds as rows of points per seat, the totals, and the winners once the match is over.

    Rows come from the RoundScore rows written when each round ended; the winners are the
    engine's (the highest total or the lowest, as the game's rules decide, not this code).
    """
    match = Match.objects.filter(room=room).first()
    sheet: dict[str, Any] = {
        "room": room.pk,
        "game": room.game,
        "status": ROOM_STATUS[room.status],
        "options": room.options,
        "players": [],
        "rounds": [],
        "totals": [],
        "winners": None,
    }
    if match is None:
        return sheet
    players = list(match.players.all())
    sheet["players"] = [{"seat": p.seat, "name": p.name, "bot": p.is_bot} for p in players]
    rows: dict[int, dict[str, Any]] = {}
    scores = RoundScore.objects.filter(round__match=match).select_related("round")
    for score in scores.order_by("round__number", "seat"):
        row = rows.setdefault(
            score.round.number,
            {
                "round": score.round.number,
                "points": [0] * len(players),
                "reason": score.round.end_reason or None,
            },
        )
        row["points"][score.seat] = score.points
    sheet["rounds"] = [rows[n] for n in sorted(rows)]
    seats = range(len(players))
    sheet["totals"] = [sum(row["points"][s] for row in sheet["rounds"]) for s in seats]
    if match.status == Match.Status.FINISHED:
        table = rooms.read(room.pk)
        sheet["winners"] = table.view(None).get("winners") if table is not None else None
    return sheet


def _seat_name(seat: Seat) -> str:
    """A seat's name as the Board API gives it: a bot's the same in every language."""
    return seat.name if seat.user_id else stable_bot_name(seat.bot_level, seat.index)
