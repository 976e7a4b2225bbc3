"""The table page: the same parts the table's socket pushes, laid out for one viewer."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from games.registry import GAMES, equalise_of, pace_of
from lobby.models import Room
from tables import claims, current, ratings
from tables.guests import guests_among
from tables.live import render as live_render
from tables.words import game_name


def table_page(request: HttpRequest, table: current.Table) -> HttpResponse:
    """Render the room's live table for the signed-in player (or a spectator)."""
    seat = table.seat_of(request.user)
    view = table.view(seat)  # one viewer's page: drawn from his own view
    context = live_render.render_context(table, view, seat)
    # The page's title and bar, which no pushed part draws: the game's name, a paced table
    # (issue 41, 0 if not), latency equalisation (issue 42).
    options = table.match.options
    context.update(
        game_name=game_name(table.match.game), pace=pace_of(options), equalise=equalise_of(options)
    )
    # A spectator who takes a bot's seat at the next deal (an invitation accepted) is told so.
    context["claimed_seat"] = claims.claim_of(table, request.user.pk)
    room = table.match.room
    context["can_close"] = (
        request.user.is_authenticated
        and room.host_id == request.user.pk
        and not room.hostless
        and room.status == room.Status.PLAYING
    )
    # Leaving is asked first, saying what it does: with no other person at the table, the
    # match ends (lobby.services.leave_room) rather than a bot playing on for nobody.
    context["only_human"] = seat is not None and not any(
        p.human and not p.left and p.seat != seat for p in table.players
    )
    # A guest has no rating (he is never rated): he is not listed with a made-up 1500?.
    humans = [(p.name, p.user_id) for p in table.players if p.user_id is not None]
    guests = guests_among([uid for _, uid in humans])
    people = [(name, uid) for name, uid in humans if uid not in guests]
    shown = ratings.ratings_of(
        [uid for _, uid in people], ratings.rating_key(table.match.game, table.match.options)
    )
    context["table_ratings"] = [(name, shown[uid]) for name, uid in people]
    context["room_rated"] = room.rated
    if view["status"] == "finished":
        context.update(_rematch_notice(table.match.room_id))
    return render(request, live_render.layout_for(table.match.game).TEMPLATE, context)


def how_to_play(request: HttpRequest, game: str) -> HttpResponse:
    """A game's rules in short (its layout's `HOW_TO_PLAY` page), with drawn examples."""
    if game not in GAMES:
        raise Http404("There is no such game.")
    context = {"game": game, "game_name": game_name(game), "games": GAMES}
    return render(request, GAMES[game].how_to_play, context)


def _rematch_notice(room_id: int) -> dict[str, object]:
    """The context of the "X opened a rematch" note, if someone did (games/_rematch.html)."""
    rematch = Room.objects.filter(rematch_of_id=room_id).select_related("host").first()
    if rematch is None:
        return {}
    return {"rematch_id": rematch.pk, "by": rematch.host.username}
