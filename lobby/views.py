"""Lobby and room pages. Changes go through lobby.services; pages render lobby.roomview."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from games import play
from games.views import table_page
from lobby import live, services
from lobby.forms import RoomForm
from lobby.models import Room
from lobby.roomview import room_context


def index(request: HttpRequest) -> HttpResponse:
    return render(request, "lobby/index.html", live.listed_rooms())


@login_required
@vary_on_headers("HX-Request")
def create_room(request: HttpRequest) -> HttpResponse:
    form = RoomForm(request.POST or None, initial=RoomForm.initial_from(request.GET))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        room = services.create_room(request.user, data["game"], data["seats"], data["options"])
        return redirect(room)
    game = request.POST.get("game") or request.GET.get("game") or "ligretto"
    min_seats, max_seats = form.seat_limits(game)
    context = {
        "form": form,
        "option_fields": form.fields_for(game),
        "min_seats": min_seats,
        "max_seats": max_seats,
    }
    # Changing the game re-renders just the fields that depend on it.
    template = "lobby/room_form.html#game-fields" if request.htmx else "lobby/room_form.html"
    status = 400 if request.method == "POST" else 200
    return render(request, template, context, status=status)


@vary_on_headers("HX-Request")
def room_detail(request: HttpRequest, room_id: int) -> HttpResponse:
    room = get_object_or_404(Room.objects.select_related("host"), pk=room_id)
    if room.status != Room.Status.OPEN:
        table = play.load_table(room.pk)
        if table is not None:
            return table_page(request, table)
    return _room_page(request, room)


def invite(request: HttpRequest, code: str) -> HttpResponse:
    """Take the holder of an invite link straight to a seat (signing up or in first)."""
    room = get_object_or_404(Room, invite_code=code)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path(), login_url="signup")
    if not room.seat_set.filter(user=request.user).exists():
        try:
            services.join_room(room.pk, request.user)
        except services.RoomError as refusal:
            messages.warning(request, f"{refusal.message} You are watching instead.")
    return redirect(room)


@require_POST
def join(request: HttpRequest, room_id: int) -> HttpResponse:
    return _act(request, room_id, services.join_room)


@require_POST
def leave(request: HttpRequest, room_id: int) -> HttpResponse:
    return _act(request, room_id, services.leave_room)


@require_POST
def start(request: HttpRequest, room_id: int) -> HttpResponse:
    return _act(request, room_id, services.start_room)


@require_POST
def add_bots(request: HttpRequest, room_id: int) -> HttpResponse:
    level = request.POST.get("level", "normal")
    try:
        count = int(request.POST.get("count", "1"))
    except ValueError:
        count = 0  # refused below with a clear message

    def fill(room_id: int, user) -> object:
        return services.add_bots(room_id, user, count=count, level=level)

    return _act(request, room_id, fill)


def _act(request: HttpRequest, room_id: int, operation) -> HttpResponse:
    """Run one room operation for the signed-in user and show the room as it now stands."""
    if not request.user.is_authenticated:
        login = redirect_to_login(Room(pk=room_id).get_absolute_url())
        if request.htmx:
            # A session that expired under an open page: send the whole page to the login.
            return HttpResponse(status=401, headers={"HX-Redirect": login["Location"]})
        return login
    try:
        operation(room_id, request.user)
    except services.RoomError as refusal:
        room = get_object_or_404(Room, pk=room_id)
        return _room_page(request, room, error=refusal.message, status=refusal.status)
    room = Room.objects.get(pk=room_id)
    if request.htmx:
        return _room_page(request, room)
    return redirect(room)


def _room_page(
    request: HttpRequest, room: Room, error: str | None = None, status: int = 200
) -> HttpResponse:
    template = "lobby/room.html#live" if request.htmx else "lobby/room.html"
    base_url = f"{request.scheme}://{request.get_host()}"
    context = room_context(room, request.user, base_url, error)
    return render(request, template, context, status=status)
