"""Score history pages: a match's score sheet, a player's page, the leaderboards; the rematch.

Reads go through tables.history; the rematch goes through lobby.services like every room change.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.html import escape
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from games.registry import GAMES
from lobby import access, services
from lobby.htmx import is_htmx
from tables import charts, history, ratings
from tables.models import Match
from tables.words import game_name


def sheet(request: HttpRequest, room_id: int) -> HttpResponse:
    """The score sheet of a room's match: rounds, totals, winner(s) and the running totals."""
    match = get_object_or_404(Match.objects.select_related("room"), room_id=room_id)
    if not _may_view(request, match.room):
        raise Http404("There is no such room.")  # as for the room page: reveals nothing
    data = history.match_sheet(match)
    context = {
        "sheet": data,
        "room": match.room,
        "game_name": game_name(match.game),
        "lowest_wins": history.lowest_wins(match.game),
        "can_rematch": data.finished and services.was_player(match.room, request.user),
    }
    return render(request, "games/sheet.html", context)


def player(request: HttpRequest, username: str) -> HttpResponse:
    """A player's public page: his record per game, his latest matches, his chart."""
    person = get_object_or_404(get_user_model(), username=username, is_active=True)
    records, recent = history.player_record(person)
    # His private rooms' sheets only for those who may see those rooms (they still count).
    recent = [m for m in recent if _may_view(request, m.match.room)]
    context = {
        "person": person,
        "records": records,
        "recent": recent,
        "games": GAMES,
        "ratings": _ratings_shown(person),
    }
    return render(request, "games/player.html", context)


def leaderboard(request: HttpRequest, game: str = "") -> HttpResponse:
    """The humans with the most wins in one game's finished matches (a tab per game)."""
    game = game or next(iter(GAMES))  # the first tab: the registry's first game
    if game not in GAMES:
        raise Http404("There is no such game.")
    context = {
        "game": game,
        "game_name": game_name(game),
        "games": GAMES,
        "standings": history.leaderboard(game),
        "rated": ratings.leaderboard(game),
        "provisional_matches": settings.RATING_PROVISIONAL_MATCHES,
    }
    return render(request, "games/leaderboard.html", context)


@require_POST
def rematch(request: HttpRequest, room_id: int) -> HttpResponse:
    """Open the rematch of a finished room, or join the one another player opened."""
    if not request.user.is_authenticated:
        login = redirect_to_login(reverse("lobby:sheet", args=[room_id]))
        if is_htmx(request):
            return HttpResponse(status=401, headers={"HX-Redirect": login["Location"]})
        return login
    try:
        if not access.may_view_id(room_id, request.user, request.session):
            raise services.RoomError("no_such_room", "There is no such room.", 404)
        room = services.rematch(room_id, request.user)
    except services.RoomError as refusal:
        if is_htmx(request):
            # Say it in the page's error line; the table around the button stays as it is.
            response = HttpResponse(escape(refusal.message), status=refusal.status)
            response["HX-Retarget"] = "#site-error"
            response["HX-Reswap"] = "innerHTML"
            return response
        messages.error(request, refusal.message)
        if refusal.status == 404:
            raise Http404(refusal.message) from refusal
        return redirect("lobby:sheet", room_id)
    if is_htmx(request):
        return HttpResponse(headers={"HX-Redirect": room.get_absolute_url()})
    return redirect(room)


def _ratings_shown(person: Any) -> list[dict[str, Any]]:
    """His ratings as his page shows them: each game's, then each paced pool of it apart (a
    paced table's ratings are kept apart, one pool per pace: tables.ratings.rating_key)."""
    shown = []
    for key, rating, points in ratings.player_ratings(person):
        game, pace = ratings.game_of_key(key), ratings.pace_of_key(key)
        if game not in GAMES:
            continue
        name = game_name(game)
        paced = gettext("paced: %(seconds)s s") % {"seconds": floatformat(pace, "-1")}
        shown.append(
            {
                "key": key,
                "game": game,
                "name": name,
                "paced": paced if pace else "",
                "rating": rating,
                "chart": _rating_chart(f"{name}, {paced}" if pace else name, points),
                # An id of letters, digits and dashes: "ligretto-mini-paced-1-5".
                "id": key.replace("@", "-paced-").replace(".", "-"),
                "order": (list(GAMES).index(game), pace),
            }
        )
    return sorted(shown, key=lambda row: row["order"])


def _rating_chart(name: str, points: list[int]) -> str:
    """His shown rating after each of his last rated matches (from 1500 if all of them fit)."""
    recent = points[-history.CHART_MATCHES :]
    if len(recent) == len(points):
        recent = [ratings.display(ratings.START_MU), *recent]
    return charts.line_chart(
        [charts.Series(gettext("rating (%(game)s)") % {"game": name}, recent, "s0")],
        title=gettext("%(game)s: rating") % {"game": name},
        css="chart rating-chart",
        x_title=gettext("rated match"),
        from_zero=False,  # scaled to the ratings themselves: their changes are what it shows
    )


def _may_view(request: HttpRequest, room) -> bool:  # noqa: ANN001 - a lobby Room
    return access.may_view(room, request.user, room.pk in access.invited_rooms(request.session))
