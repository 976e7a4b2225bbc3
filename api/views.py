"""The Board API over HTTP (`/api/v1/`): thin typed views on lobby.services and tables.play.

Each view is one ninja operation: its body schema (api.schemas) has checked the shape of the
request, the Bearer token has named the caller (`request.auth`), and every refusal it raises
becomes `{"error": {"code", "message"}}` with its status (api.http). How to add a call:
docs/api.md.
"""

from __future__ import annotations

from typing import Annotated, Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.http import JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from ninja import Query, Status

from api import schemas as s
from api.http import ApiError, ApiRequest, api
from api.models import ApiToken
from api.serialize import room_json, score_sheet
from games.engine import IllegalAction
from lobby import access, ratelimit, services
from lobby.forms import SignupForm
from lobby.models import Room
from tables import current, play
from tables.live import rooms as live_rooms
from tables.live import stream
from tables.live.equalise import receipt
from tables.live.room import holder
from tables.live.stream import race_of
from tables.words import game_name, refusal_text

# Refusals by the engines that mean "this is not an action at all", not "not now".
MALFORMED = {"bad_action"}

ROOM = "/rooms/{int:room_id}"


def answers(ok: int, schema: Any, *errors: int) -> dict[Any, Any]:
    """The `response=` of an operation: `ok` with `schema`, the error statuses with Error.

    Every call may answer 400: a query or a path with a NUL, a parameter of the wrong type.
    """
    return {ok: schema, frozenset({400, *errors}): s.Error}


def posted(ok: int, schema: Any, *errors: int) -> dict[Any, Any]:
    """`answers` for a call with a body: it may be malformed (400) or too large (413)."""
    return answers(ok, schema, 413, *errors)


def room_call(schema: Any = s.Room, *errors: int) -> dict[Any, Any]:
    return answers(200, schema, 401, 404, 429, *errors)


def room_post(schema: Any = s.Room, *errors: int) -> dict[Any, Any]:
    return posted(200, schema, 401, 404, 429, *errors)


# A query's invite code: text (a NUL in a query is refused before any view).
InviteQuery = Annotated[str | None, Query(pattern=s.NO_NUL)]


def _too_many(sentence: str, wait: int) -> ApiError:
    """429 with `sentence` (translated, a `%(seconds)d` hole) and when to come back."""
    return ApiError("too_many_requests", sentence % {"seconds": wait}, 429, retry_after=wait)


def _load(room_id: int) -> Room | None:
    return (
        Room.objects.select_related("host")
        .prefetch_related("seat_set__user")
        .filter(pk=room_id)
        .first()
    )


def _room(room_id: int, user: Any, invite: Any = None) -> Room:
    """The room, if `user` may see it (a private one: its people, staff, or the invite code)."""
    room = _load(room_id)
    if room is None or not access.may_view(room, user, _invited(room, invite)):
        raise ApiError("no_such_room", _("There is no such room."), 404)
    return room


def _invited(room: Room, invite: Any) -> bool:
    # Not secrets.compare_digest on str: it raises TypeError on non-ASCII text.
    return stream.same_secret(invite, room.invite_code)


def room_answer(request: ApiRequest, room_id: int, invite: Any = None) -> dict[str, Any]:
    """The room as its caller may see it (api/replays.py answers rooms too)."""
    return _room_answer(request, room_id, invite)


def _room_answer(request: ApiRequest, room_id: int, invite: Any = None) -> dict[str, Any]:
    return room_json(_room(room_id, request.auth, invite), request, viewer=request.auth)


def _table(room_id: int, user: Any, invite: Any = None) -> current.Table:
    _room(room_id, user, invite)
    table = live_rooms.read(room_id)
    if table is None:
        raise ApiError("not_started", _("This room has not started yet."), 409)
    return table


# An empty body counts as {} (docs/api.md): bodies whose every field is optional say so with a
# default; for the others an empty body is refused as {} would be (api.http).
EMPTY, EMPTY_INVITE, EMPTY_CLOSE, EMPTY_BOTS = s.Empty(), s.Invite(), s.Close(), s.Bots()

# --------------------------------------------------------------------------- accounts


@api.post("/signup", auth=None, response=posted(201, s.SignedUp, 409, 429))
def signup(request: ApiRequest, body: s.NewUser) -> Status:
    """Create an account and its first token."""
    # The site's own limit on accounts made per address, shared by both ways in; only
    # accounts made count (lobby.accounts.signup does the same).
    address = ratelimit.client_address(request)
    if ratelimit.exhausted("signup", address, settings.SIGNUPS_PER_ADDRESS):
        raise _too_many(
            _("Too many accounts made from your address; try again in %(seconds)d s."),
            settings.SIGNUP_WINDOW,
        )
    # The site's own sign-up form: the same username and password rules as the browser's.
    form = SignupForm(
        {"username": body.username, "password1": body.password, "password2": body.password}
    )
    if not form.is_valid():
        raise _signup_refusal(form)
    new = form.save()
    ratelimit.record("signup", address, settings.SIGNUP_WINDOW)
    _token, raw = ApiToken.objects.issue(new, "signup")
    return Status(201, {"username": new.username, "token": raw})


def _signup_refusal(form: SignupForm) -> ApiError:
    errors = form.errors.as_data()
    for problem in errors.get("username", ()):
        # A name someone has is a conflict with the site's state, not a bad request: the
        # schema cannot know it (docs/api.md, "Schemathesis").
        if problem.code == "unique":
            return ApiError("username_taken", " ".join(problem.messages), 409)
        return ApiError("invalid_username", " ".join(problem.messages))
    problems = [p for field in ("password1", "password2") for p in errors.get(field, ())]
    message = " ".join(m for p in problems for m in p.messages) or _("Choose another password.")
    return ApiError("weak_password", message)


@api.post("/token", auth=None, response=posted(200, s.Token, 401, 429))
def token(request: ApiRequest, body: s.TokenRequest) -> dict[str, Any]:
    """Get a new token for an account."""
    # A token request is a log-in: the site's log-in throttle (per name and per address).
    address = ratelimit.client_address(request)
    wait = ratelimit.login_wait(body.username, address)
    if wait:
        raise _too_many(_("Too many failed log-ins; try again in %(seconds)d s."), wait)
    found = authenticate(request, username=body.username, password=body.password)
    # Django's ModelBackend already refuses inactive (banned) users here.
    if found is None:
        ratelimit.login_failed(body.username, address)
        raise ApiError("bad_credentials", _("That username and password do not match."), 401)
    ratelimit.login_succeeded(body.username)
    _token, raw = ApiToken.objects.issue(found, (body.name or "")[:60] or "api")
    return {"token": raw}


# --------------------------------------------------------------------------- rooms


@api.get("/rooms", response=answers(200, s.RoomList, 401, 429))
def rooms(request: ApiRequest) -> dict[str, Any]:
    """List open rooms, newest first."""
    listed = (
        Room.objects.filter(status=Room.Status.OPEN, private=False)
        .select_related("host")
        .prefetch_related("seat_set__user")
        .order_by("-created_at")[:100]
    )
    return {"rooms": [room_json(r, request) for r in listed]}


@api.post("/rooms", response=posted(201, s.Room, 401, 409, 429))
def open_room(request: ApiRequest, body: s.NewRoom) -> Status:
    """Open a room; the caller hosts it and sits in seat 0."""
    user = request.auth
    options = body.options.model_dump(exclude_unset=True) if body.options else None
    room = services.create_room(user, body.game, body.seats, options, body.private, body.rated)
    return Status(201, _room_answer(request, room.pk))


@api.get(ROOM, response=room_call())
def room(request: ApiRequest, room_id: int, invite: InviteQuery = None) -> dict[str, Any]:
    """A room."""
    return _room_answer(request, room_id, invite)


@api.post(ROOM + "/join", response=room_post(s.Room, 403, 409))
def join(
    request: ApiRequest, room_id: int, body: s.Invite = EMPTY_INVITE, invite: InviteQuery = None
) -> Any:
    """Take the lowest free seat."""
    invite = body.invite or invite
    room = _room(room_id, request.auth, invite)
    services.join_room(room_id, request.auth, invited=_invited(room, invite))
    return _room_answer(request, room_id)


@api.post(ROOM + "/leave", response=room_post(s.Room, 409))
def leave(request: ApiRequest, room_id: int, body: s.Empty = EMPTY) -> dict[str, Any]:
    """Give up your seat."""
    _room(room_id, request.auth)
    left = services.leave_room(room_id, request.auth)
    # As he sees it on his way out: a private room he no longer sits in is not his to see after.
    return room_json(_load(left.pk) or left, request, viewer=request.auth)


@api.post(ROOM + "/remove", response=room_post(s.Room, 403, 409))
def remove(request: ApiRequest, room_id: int, body: s.Remove) -> dict[str, Any]:
    """Remove a player before the start (host)."""
    _room(room_id, request.auth)
    services.remove_player(room_id, request.auth, body.seat)
    return _room_answer(request, room_id)


@api.post(ROOM + "/close", response=room_post(s.Room, 403, 409))
def close(request: ApiRequest, room_id: int, body: s.Close = EMPTY_CLOSE) -> dict[str, Any]:
    """Close the room; a match stops (host)."""
    _room(room_id, request.auth)
    services.close_room(room_id, request.auth, body.reason)
    return _room_answer(request, room_id)


@api.post(ROOM + "/bots", response=room_post(s.Room, 403, 409))
def bots(request: ApiRequest, room_id: int, body: s.Bots = EMPTY_BOTS) -> dict[str, Any]:
    """Fill free seats with bots (host)."""
    room = _room(room_id, request.auth)
    levels = room.game_info.bot_levels
    if body.level not in levels:  # a level of another game's bots: not at this room
        raise ApiError("invalid_level", _bot_levels(room, levels), 409)
    services.add_bots(room_id, request.auth, count=body.count, level=body.level)
    return _room_answer(request, room_id)


@api.post(ROOM + "/start", response=room_post(s.Room, 403, 409))
def start(request: ApiRequest, room_id: int, body: s.Empty = EMPTY) -> dict[str, Any]:
    """Start the room (host)."""
    _room(room_id, request.auth)
    services.start_room(room_id, request.auth)
    return _room_answer(request, room_id)


def _bot_levels(room: Room, levels: tuple[str, ...]) -> str:
    sentence = _("%(game)s bots come in these levels: %(levels)s.")
    return sentence % {"game": game_name(room.game), "levels": ", ".join(levels)}


# --------------------------------------------------------------------------- playing


@api.get(ROOM + "/view", response=room_call(s.View, 409))
def view(request: ApiRequest, room_id: int, invite: InviteQuery = None) -> dict[str, Any]:
    """Your view of the table."""
    table = _table(room_id, request.auth, invite)
    return table.view(table.seat_of(request.auth))


@api.post(ROOM + "/actions", response=room_post(s.ViewAnswer, 403, 409))
def actions(request: ApiRequest, room_id: int, body: s.ActionRequest) -> Any:
    """Play an action."""
    table = _table(room_id, request.auth)
    seat = table.seat_of(request.auth)
    if seat is None:
        raise ApiError(
            "not_seated", _("You have no seat at this table; spectators only watch."), 403
        )
    throttle_action(request.auth)
    result = act(room_id, seat, body.action.sent(), request.auth, shaped=True)
    if "error" in result:
        # A refusal carries the caller's view as it stands: the answer as the write path made it.
        wait = result.pop("retry_after", None)
        response = JsonResponse(result, status=result.pop("status"))
        if wait:
            response["Retry-After"] = str(wait)  # a refusal for now (a paced table's queue)
        return response
    return result


# A user's actions are counted in one window, HTTP and stream together: the stream counts
# them in the event loop itself (api.consumers: `ratelimit.ahit` with this scope), so that a
# move on it enters none of the HTTP operations.
ACTIONS = "api-actions"


def throttle_action(user: Any) -> None:
    """Count one action of `user` (HTTP and stream together) against his limit, or raise 429."""
    window = settings.API_ACTION_WINDOW
    if not ratelimit.hit(ACTIONS, user.pk, settings.API_ACTIONS_PER_USER, window):
        raise too_many_actions(window)


def too_many_actions(window: int) -> ApiError:
    """The refusal of an action over the user's limit (HTTP's 429, the stream's error)."""
    # The window started with its first action: the wait is at most the whole window.
    return _too_many(_("Too many actions; try again in %(seconds)d s."), window)


def act(
    room_id: int, seat: int, action: dict[str, Any], user: Any, shaped: bool = False
) -> dict[str, Any]:
    """Play `action` through the one write path: {"view"}, or {"error", "view", "status"}.

    The seat was read from the table for this call; the write path checks again, on the table
    it applies the move to, that `user` still holds it (a leave may have come in between).
    `shaped`: the action has the shape of some game's (s.ActionRequest), so a `bad_action` of
    the rules means "not one of this table's game" (409), not a malformed request (400).
    """
    received = receipt()  # before anything else: the request's receipt time settles races
    try:
        outcome = play.act(room_id, seat, action, check=holder(seat, user), received=received)
    except IllegalAction as refusal:
        status = refusal.status if isinstance(refusal, play.PlayError) else 409
        if refusal.code in MALFORMED:
            status = 409 if shaped else 400
        now = live_rooms.read(room_id)
        answer = {
            # The code stays English for machines; the sentence is in the caller's language.
            # A lost race: who took it and how much earlier (docs/fairness.md).
            "error": {
                "code": refusal.code,
                "message": refusal_text(refusal),
                **(race_of(refusal) or {}),
            },
            "view": now.view(seat) if now is not None else None,
            "status": status,
        }
        if status == 429:
            # A refusal for now: when to try again (a forwarded refusal may not say: 1 s).
            answer["retry_after"] = getattr(refusal, "retry_after", None) or 1
        return answer
    return {"view": outcome.view(seat)}


@api.get(ROOM + "/scores", response=room_call(s.ScoreSheet))
def scores(request: ApiRequest, room_id: int, invite: InviteQuery = None) -> dict[str, Any]:
    """The score sheet."""
    return score_sheet(_room(room_id, request.auth, invite))


# --------------------------------------------------------------------------- the rest


@api.get("/schema", auth=None, include_in_schema=False)
def schema(request: ApiRequest) -> JsonResponse:
    """The OpenAPI document, made from the operations above (servers: the site asked)."""
    document = api.get_openapi_schema(path_prefix=request.path.removesuffix("schema"))
    document["servers"] = [{"url": request.build_absolute_uri("/").rstrip("/")}]
    return JsonResponse(document)


@csrf_exempt  # a token API: no cookie is read, so a typo's POST is told 404, not a CSRF 403
def not_found(request: ApiRequest, rest: str = "") -> JsonResponse:
    return JsonResponse(
        {
            "error": {
                "code": "not_found",
                "message": "There is no such API call; see /api/v1/schema.",
            }
        },
        status=404,
    )
