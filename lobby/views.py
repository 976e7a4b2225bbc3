"""Lobby and room pages. Changes go through lobby.services; pages render lobby.roomview."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.views import defaults
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from games.registry import DEFAULT_GAME, GAMES, PACES
from lobby import access, guests, live, quickplay, services
from lobby.forms import RoomForm
from lobby.htmx import is_htmx
from lobby.models import Room
from lobby.roomview import room_context
from lobby.table_views import table_page
from tables.live import rooms


def index(request: HttpRequest) -> HttpResponse:
    quickplay.fill_due()  # rooms whose wait is over and whose timer was lost (a restart)
    services.expire_unopened()  # rematches nobody came to
    context = {**live.listed_rooms(), "games": GAMES, "paces": PACES}
    return render(request, "lobby/index.html", context)


@login_required
@vary_on_headers("HX-Request")
def create_room(request: HttpRequest) -> HttpResponse:
    if guests.is_guest(request.user):
        messages.info(request, _("Guests practise against bots; sign up to open rooms."))
        return redirect("signup")
    form = RoomForm(request.POST or None, initial=RoomForm.initial_from(request.GET))
    status = 400 if request.method == "POST" else 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            room = services.create_room(
                request.user,
                data["game"],
                data["seats"],
                data["options"],
                data["private"],
                rated=not data["unrated"],
            )
        except services.RoomError as refusal:
            # Too many rooms or too fast: say so on the form, which keeps what was typed.
            form.add_error(None, refusal.message)
            status = refusal.status
        else:
            return redirect(room)
    game = request.POST.get("game") or request.GET.get("game") or DEFAULT_GAME
    min_seats, max_seats = form.seat_limits(game)
    context = {
        "form": form,
        "option_fields": form.fields_for(game),
        "min_seats": min_seats,
        "max_seats": max_seats,
        "games": GAMES,
    }
    # Changing the game re-renders just the fields that depend on it.
    template = "lobby/room_form.html#game-fields" if is_htmx(request) else "lobby/room_form.html"
    return render(request, template, context, status=status)


@vary_on_headers("HX-Request")
def room_detail(request: HttpRequest, room_id: int) -> HttpResponse:
    room = get_object_or_404(Room.objects.select_related("host"), pk=room_id)
    if not access.may_view(room, request.user, room.pk in access.invited_rooms(request.session)):
        raise Http404("There is no such room.")
    if room.moved_to_id is not None:
        return redirect("lobby:room", room.moved_to_id)  # quick play paired him elsewhere (merge)
    if room.quick_fill_at is not None and quickplay.fill_room(room.pk):
        room.refresh_from_db()  # its wait was over and its timer lost: bots took the seats
    if room.status != Room.Status.OPEN:
        table = rooms.read(room.pk)
        if table is not None:
            return table_page(request, table)
    return _room_page(request, room)


def invite(request: HttpRequest, code: str) -> HttpResponse:
    """Show the holder of an invite link the room, with a button to take a seat.

    Opening a link changes nothing (link previews and prefetching open links too); only the
    Join button's POST takes a seat. The room's id is remembered in the session as invited,
    for rooms that only invited people may join.
    """
    room = get_object_or_404(Room, invite_code=code)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path(), login_url="signup")
    access.remember_invite(request.session, room.pk)
    if not room.seat_set.filter(user=request.user).exists():
        if room.removed.filter(pk=request.user.pk).exists():
            messages.info(request, _("The host removed you from this room; you can only watch."))
        elif room.is_open and room.seat_set.count() < room.seats:
            messages.info(request, _("You were invited to this room: take a seat to play."))
        elif room.is_open:
            messages.info(request, _("Every seat in this room is taken; you can watch."))
        else:
            messages.info(request, _("This room has already started; you can watch."))
    return redirect(room)


@require_POST
def join(request: HttpRequest, room_id: int) -> HttpResponse:
    invited = room_id in access.invited_rooms(request.session)

    def take_seat(room_id: int, user) -> object:
        return services.join_room(room_id, user, invited=invited)

    return _act(request, room_id, take_seat)


@require_POST
def remove(request: HttpRequest, room_id: int) -> HttpResponse:
    try:
        index = int(request.POST.get("seat", ""))
    except ValueError:
        index = None  # refused below with a clear message

    def free_seat(room_id: int, user) -> object:
        return services.remove_player(room_id, user, index)

    return _act(request, room_id, free_seat)


@require_POST
def close(request: HttpRequest, room_id: int) -> HttpResponse:
    reason = request.POST.get("reason", "")

    def close_room(room_id: int, user) -> object:
        return services.close_room(room_id, user, reason)

    return _act(request, room_id, close_room)


@require_POST
def leave(request: HttpRequest, room_id: int) -> HttpResponse:
    """Give up a seat: a waiting room's page shows the room; leaving a match under way takes
    the player back to the lobby, which says what became of the match."""
    if not Room.objects.filter(pk=room_id, status=Room.Status.PLAYING).exists():
        return _act(request, room_id, services.leave_room)
    left: list[Room] = []
    response = _act(request, room_id, lambda pk, user: left.append(services.leave_room(pk, user)))
    if not left:
        return response  # refused: the page says why
    if left[0].status == Room.Status.CLOSED:
        said = _("You left room %(room)s; nobody else played there, so its match ended unscored.")
    else:
        said = _("You left room %(room)s; a bot plays your seat to the end of the match.")
    messages.info(request, said % {"room": room_id})
    if is_htmx(request):
        return HttpResponse(headers={"HX-Redirect": reverse("lobby:index")})
    return redirect("lobby:index")


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
        if is_htmx(request):
            # A session that expired under an open page: send the whole page to the login.
            return HttpResponse(status=401, headers={"HX-Redirect": login["Location"]})
        return login
    room = get_object_or_404(Room, pk=room_id)
    if not access.may_view(room, request.user, room.pk in access.invited_rooms(request.session)):
        raise Http404("There is no such room.")
    try:
        operation(room_id, request.user)
    except services.RoomError as refusal:
        if refusal.status == 404:
            raise Http404(refusal.message) from refusal
        return _room_page(request, room, error=refusal.message, status=refusal.status)
    room = Room.objects.get(pk=room_id)
    if is_htmx(request):
        return _room_page(request, room)
    return redirect(room)


# A visitor's (or a guest's) Play now, kept in his session through sign-up or log-in.
PLAY_NOW_INTENT = "play_now"


@require_http_methods(["GET", "POST"])
def play_now(request: HttpRequest, game: str) -> HttpResponse:
    """Seat the player at a waiting room of `game` near his rating, or open one (quickplay).

    A visitor or a guest is asked to sign up (or log in) first; his Play now is kept in the
    session and done when he comes back here (`next`), once: a GET does nothing else.
    """
    pace = request.POST.get("pace") or request.GET.get("pace")  # a paced table (issue 41)
    if not guests.is_member(request.user):
        request.session[PLAY_NOW_INTENT] = {"game": str(game), "pace": pace}
        return redirect(f"{reverse('signup')}?{urlencode({'next': request.path})}")
    if request.method == "GET":
        intent = request.session.pop(PLAY_NOW_INTENT, None)
        if not intent or intent.get("game") != game:
            return redirect("lobby:index")
        pace = intent.get("pace")
    return _quick(request, lambda: quickplay.play_now(request.user, game, pace))


@require_POST
def practise(request: HttpRequest, game: str) -> HttpResponse:
    """Start a table of `game` against bots of the chosen level at once (unrated).

    A visitor without an account practises as a guest (lobby.guests), made here.
    """
    level = request.POST.get("level", "normal")
    pace = request.POST.get("pace")

    def practise_as_guest_or_member() -> Room:
        quickplay.check_practice(game, level)  # a bad request makes no guest
        quickplay.paced_options(pace)
        user = request.user if request.user.is_authenticated else guests.start(request)
        return quickplay.practise(user, game, level, pace)

    return _quick(request, practise_as_guest_or_member)


def _quick(request: HttpRequest, operation) -> HttpResponse:
    try:
        room = operation()
    except services.RoomError as refusal:
        messages.error(request, refusal.message)
        return redirect("signup" if refusal.code == "guest" else "lobby:index")
    return redirect(room)


def favicon(request: HttpRequest) -> HttpResponse:
    # Browsers ask for /favicon.ico on pages that name no icon (the admin's, a file's).
    return redirect(static("favicon.svg"))


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_htmx(request):
        return _error_line(request, _("That room or page does not exist (any more)."), 404)
    return defaults.page_not_found(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_htmx(request):
        return _error_line(request, _("You may not do that here."), 403)
    return defaults.permission_denied(request, exception)


def _error_line(request: HttpRequest, sentence: str, status: int) -> HttpResponse:
    """Answer an htmx request with a sentence for the page's error line, leaving the rest be.

    Swapping a whole error page into the element that asked would break the page around it.
    """
    response = HttpResponse(escape(sentence), status=status)
    response["HX-Retarget"] = "#site-error"
    response["HX-Reswap"] = "innerHTML"
    return response


def _room_page(
    request: HttpRequest, room: Room, error: str | None = None, status: int = 200
) -> HttpResponse:
    template = "lobby/room.html#live" if is_htmx(request) else "lobby/room.html"
    base_url = f"{request.scheme}://{request.get_host()}"
    context = room_context(room, request.user, base_url, error)
    return render(request, template, context, status=status)
