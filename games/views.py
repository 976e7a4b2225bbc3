"""The table page: the same parts the table's socket pushes, laid out for one viewer."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games import play, push


def table_page(request: HttpRequest, table: play.Table) -> HttpResponse:
    """Render the room's live table for the signed-in player (or a spectator)."""
    seat = table.seat_of(request.user)
    view = table.view(None)
    context = push.render_context(table, view, seat)
    room = table.match.room
    context["can_close"] = (
        request.user.is_authenticated
        and room.host_id == request.user.pk
        and room.status == room.Status.PLAYING
    )
    return render(request, push.layout_for(table.match.game).template, context)


def how_to_play_allegra(request: HttpRequest) -> HttpResponse:
    """The rules of Allegra in short, citing the rule book's ids, with a drawn example."""
    return render(request, "games/allegra/how_to_play.html")
