"""The replay page of a round: step through it as a spectator saw it (tables.replay).

Same access as the room (lobby.access): a private room's replays only for who may see the room,
everyone else gets the 404 of a room that never existed. The page lives at
/rooms/<id>/replay, beside the table's page, so the relative links the game's parts carry
(a finished table's "sheet/") lead where they lead on the table.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from games.registry import GAMES
from lobby import access
from lobby.verify_views import deal_lines
from tables import fairness, replay
from tables.models import Match
from tables.words import game_name, player_name


def replay_page(request: HttpRequest, room_id: int) -> HttpResponse:
    """A round's replay; `?round=N&step=K`, and `&part=board` for the board alone (the player)."""
    match = get_object_or_404(Match.objects.select_related("room"), room_id=room_id)
    room = match.room
    if not access.may_view(room, request.user, room.pk in access.invited_rooms(request.session)):
        raise Http404("There is no such room.")
    rounds = [r for r in match.rounds.defer("state") if replay.available(match, r)]
    if not rounds:
        raise Http404("No round of this match has ended yet.")
    number = _int(request.GET.get("round"), rounds[0].number)
    if not any(r.number == number for r in rounds):
        raise Http404("That round cannot be watched again (yet).")
    rep = replay.replay_round(match, number)
    step = min(max(_int(request.GET.get("step"), 0), 0), len(rep.steps))
    board = replay.render_step(rep, step)
    if request.GET.get("part") == "board":
        return HttpResponse(board)
    context = {
        "room": room,
        "match": match,
        "game_name": game_name(match.game),
        "board_class": GAMES[match.game].board_class,
        "stylesheets": GAMES[match.game].stylesheets,
        "replay": rep,
        "step": step,
        "board": board,
        "rounds": [r.number for r in rounds],
        # A shuffle anyone can check: the round's seeds, and the cards its deal gave.
        "fair": fairness.revealed(GAMES[match.game], match.fair_secret, rep.states[0]),
        "dealt": deal_lines(GAMES[match.game].dealt(rep.states[0])),
        "seats": len(rep.players),
        # Its fairness log: the contested moments, and each player's races.
        "races": _races(rep),
        "race_summary": replay.race_summary(rep),
        # For playing in real time: the recorded gap before each step.
        "timeline": [round(g, 3) for g in rep.gaps],
    }
    return render(request, "replays/round.html", context)


def _races(rep: replay.Replay) -> list[dict[str, Any]]:
    """The races as the page says them: the winning step's words, the names a page shows."""
    shown = {p.seat: player_name(p) for p in rep.players}
    return [
        {
            "step": r.step,
            "seat": r.seat,
            "who": shown.get(r.seat, r.seat),
            "said": rep.steps[r.step - 1].said,
            "rule": r.rule,
            "losses": [
                {
                    "seat": loss.seat,
                    "who": shown.get(loss.seat, loss.seat),
                    "later_ms": loss.later_ms,
                }
                for loss in r.losses
            ],
        }
        for r in rep.races
    ]


def _int(text: str | None, default: int) -> int:
    # Only ASCII digits: int() would take "٣" or " 3 ", and a page number has no need of them.
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 6:
        return default
    return int(text)
