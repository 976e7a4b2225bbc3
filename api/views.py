"""The Board API over HTTP (`/api/v1/`): thin JSON views on lobby.services and tables.play.

Every view takes the caller from his Bearer token, never from a session cookie, and answers
JSON for every outcome: `{"error": {"code", "message"}}` with the status the write path chose.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from api import auth
from api.models import ApiToken
from api.serialize import room_json, score_sheet
from games.engine import IllegalAction
from lobby import access, ratelimit, services
from lobby.forms import SignupForm
from lobby.models import Room
from lobby.services import RoomError
from tables import current, play
from tables.words import refusal_text

log = logging.getLogger(__name__)

# Refusals by the engines that mean "this is not an action at all", not "not now".
MALFORMED = {"bad_action"}


class ApiError(Exception):
    """A refusal of the API itself, answered as JSON with `status`."""

    def __init__(self, code: str, message: str, status: int = 400, retry_after: int = 0) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.retry_after = code, message, status, retry_after


def error(code: str, message: str, status: int, **extra: Any) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}, **extra}, status=status)


def endpoint(*methods: str, token: bool = True) -> Callable:
    """Make a view an API call: methods, Bearer auth, a JSON body, and JSON for every failure."""

    def wrap(view: Callable) -> Callable:
        @csrf_exempt  # no cookies are read here, so there is nothing to forge
        @wraps(view)
        def call(request: HttpRequest, **kwargs: Any) -> JsonResponse:
            try:
                if request.method not in methods:
                    raise ApiError(
                        "method_not_allowed", f"Use {' or '.join(methods)} here.", status=405
                    )
                user = _caller(request) if token else None
                body = _body(request) if request.method == "POST" else {}
                return view(request, user, body, **kwargs)
            except ApiError as refusal:
                response = error(refusal.code, refusal.message, refusal.status)
                if refusal.retry_after:
                    response["Retry-After"] = str(refusal.retry_after)
                return response
            except RoomError as refusal:
                response = error(refusal.code, refusal.message, refusal.status)
                if refusal.status == 429:
                    response["Retry-After"] = str(getattr(settings, "ROOM_ACTION_WINDOW", 60))
                return response
            except Exception:
                # A bug of ours, not the client's: say so in JSON, never an HTML page.
                log.exception("API call %s %s failed", request.method, request.path)
                return error("server_error", "Something went wrong on our side.", 500)

        return call

    return wrap


def _caller(request: HttpRequest) -> Any:
    raw = auth.bearer(request.headers.get("Authorization", ""))
    if raw is None:
        raise ApiError(
            "no_token", "Send your API token as `Authorization: Bearer <token>`.", status=401
        )
    user = auth.user_for_token(raw)
    if user is None:
        raise ApiError(
            "bad_token", _("That token is unknown, revoked, or its user is banned."), 401
        )
    return user


def _body(request: HttpRequest) -> dict[str, Any]:
    if not request.body:
        return {}
    try:
        body = json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        raise ApiError("bad_json", _("The request body is not valid JSON.")) from None
    if not isinstance(body, dict):
        raise ApiError("bad_json", _("The request body must be a JSON object."))
    return body


def _string(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str):
        raise ApiError("bad_request", f'"{name}" is required and must be a string.')
    return value


def _too_many(sentence: str, wait: int) -> ApiError:
    """429 with `sentence` (translated, a `%(seconds)d` hole) and when to come back."""
    return ApiError("too_many_requests", sentence % {"seconds": wait}, 429, retry_after=wait)


def _room(room_id: int, user: Any, invite: Any = None) -> Room:
    """The room, if `user` may see it (a private one: its people, staff, or the invite code)."""
    room = (
        Room.objects.select_related("host")
        .prefetch_related("seat_set__user")
        .filter(pk=room_id)
        .first()
    )
    if room is None or not access.may_view(room, user, _invited(room, invite)):
        raise ApiError("no_such_room", _("There is no such room."), 404)
    return room


def _invited(room: Room, invite: Any) -> bool:
    return isinstance(invite, str) and secrets.compare_digest(invite, room.invite_code)


def _invite_param(request: HttpRequest, body: dict[str, Any]) -> Any:
    return body.get("invite") or request.GET.get("invite")


def _room_answer(request: HttpRequest, user: Any, room_id: int, invite: Any = None) -> JsonResponse:
    return JsonResponse(room_json(_room(room_id, user, invite), request, viewer=user))


def _table(room_id: int, user: Any, invite: Any = None) -> current.Table:
    _room(room_id, user, invite)
    table = current.load_table(room_id)
    if table is None:
        raise ApiError("not_started", _("This room has not started yet."), 409)
    return table


# --------------------------------------------------------------------------- accounts


@endpoint("POST", token=False)
def signup(request: HttpRequest, user: None, body: dict[str, Any]) -> JsonResponse:
    username, password = _string(body, "username"), _string(body, "password")
    # The site's own limit on accounts made per address, shared by both ways in; only
    # accounts made count (lobby.accounts.signup does the same).
    address = ratelimit.client_address(request)
    if ratelimit.exhausted("signup", address, settings.SIGNUPS_PER_ADDRESS):
        raise _too_many(
            _("Too many accounts made from your address; try again in %(seconds)d s."),
            settings.SIGNUP_WINDOW,
        )
    # The site's own sign-up form: the same username and password rules as the browser's.
    form = SignupForm({"username": username, "password1": password, "password2": password})
    if not form.is_valid():
        raise _signup_refusal(form)
    new = form.save()
    ratelimit.record("signup", address, settings.SIGNUP_WINDOW)
    _token, raw = ApiToken.objects.issue(new, "signup")
    return JsonResponse({"username": new.username, "token": raw}, status=201)


def _signup_refusal(form: SignupForm) -> ApiError:
    errors = form.errors.as_data()
    for problem in errors.get("username", ()):
        code = "username_taken" if problem.code == "unique" else "invalid_username"
        return ApiError(code, " ".join(problem.messages))
    problems = [p for field in ("password1", "password2") for p in errors.get(field, ())]
    message = " ".join(m for p in problems for m in p.messages) or "Choose another password."
    return ApiError("weak_password", message)


@endpoint("POST", token=False)
def token(request: HttpRequest, user: None, body: dict[str, Any]) -> JsonResponse:
    username, password = _string(body, "username"), _string(body, "password")
    # A token request is a log-in: the site's log-in throttle (per name and per address).
    address = ratelimit.client_address(request)
    wait = ratelimit.login_wait(username, address)
    if wait:
        raise _too_many(_("Too many failed log-ins; try again in %(seconds)d s."), wait)
    found = authenticate(request, username=username, password=password)
    # Django's ModelBackend already refuses inactive (banned) users here.
    if found is None:
        ratelimit.login_failed(username, address)
        raise ApiError("bad_credentials", _("That username and password do not match."), 401)
    ratelimit.login_succeeded(username)
    name = body.get("name") if isinstance(body.get("name"), str) else "api"
    _token, raw = ApiToken.objects.issue(found, name[:60] or "api")
    return JsonResponse({"token": raw})


# --------------------------------------------------------------------------- rooms


@endpoint("GET", "POST")
def rooms(request: HttpRequest, user: Any, body: dict[str, Any]) -> JsonResponse:
    if request.method == "GET":
        listed = (
            Room.objects.filter(status=Room.Status.OPEN, private=False)
            .select_related("host")
            .prefetch_related("seat_set__user")
            .order_by("-created_at")[:100]
        )
        return JsonResponse({"rooms": [room_json(r, request) for r in listed]})
    game = body.get("game")
    if not isinstance(game, str):
        raise ApiError("bad_request", '"game" is required: ligretto-mini, ligretto or allegra.')
    seats = body.get("seats")
    if isinstance(seats, bool) or not isinstance(seats, int):
        raise ApiError("invalid_seats", '"seats" is required and must be a whole number.')
    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        raise ApiError("invalid_options", '"options" must be an object.')
    room = services.create_room(user, game, seats, options, body.get("private", False))
    return JsonResponse(room_json(_room(room.pk, user), request, viewer=user), status=201)


@endpoint("GET")
def room(request: HttpRequest, user: Any, body: dict[str, Any], room_id: int) -> JsonResponse:
    return _room_answer(request, user, room_id, _invite_param(request, body))


@endpoint("POST")
def join(request: HttpRequest, user: Any, body: dict[str, Any], room_id: int) -> JsonResponse:
    invite = _invite_param(request, body)
    room = _room(room_id, user, invite)
    services.join_room(room_id, user, invited=_invited(room, invite))
    return _room_answer(request, user, room_id)


@endpoint("POST")
def leave(request: HttpRequest, user: Any, body: dict[str, Any], room_id: int) -> JsonResponse:
    _room(room_id, user)
    services.leave_room(room_id, user)
    return _room_answer(request, user, room_id)


@endpoint("POST")
def remove(request: HttpRequest, user: Any, body: dict[str, Any], room_id: int) -> JsonResponse:
    _room(room_id, user)
    services.remove_player(room_id, user, body.get("seat"))
    return _room_answer(request, user, room_id)


@endpoint("POST")
def close(request: HttpRequest, user: Any, body: dict[str, Any], room_id: int) -> JsonResponse:
    reason = body.get("reason", "")
    if not isinstance(reason, str):
        raise ApiError("bad_request", '"reason" must be a string.')
    _room(room_id, user)
    services.close_room(room_id, user, reason)
    return _room_answer(request, user, room_id)


@endpoint("POST")
def bots(request: HttpRequest, user: Any, body: dict[str, Any], room_id: int) -> JsonResponse:
    level = body.get("level", "normal")
    if not isinstance(level, str):
        raise ApiError("invalid_level", '"level" must be "easy", "normal" or "fast".')
    _room(room_id, user)
    services.add_bots(room_id, user, count=body.get("count", 1), level=level)
    return _room_answer(request, user, room_id)


@endpoint("POST")
def start(request: HttpRequest, user: Any, body: dict[str, Any], room_id: int) -> JsonResponse:
    _room(room_id, user)
    services.start_room(room_id, user)
    return _room_answer(request, user, room_id)


# --------------------------------------------------------------------------- playing


@endpoint("GET")
def view(request: HttpRequest, user: Any, body: dict[str, Any], room_id: int) -> JsonResponse:
    table = _table(room_id, user, _invite_param(request, body))
    return JsonResponse(table.view(table.seat_of(user)))


@endpoint("POST")
def actions(request: HttpRequest, user: Any, body: dict[str, Any], room_id: int) -> JsonResponse:
    action = body.get("action")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise ApiError("bad_action", 'Send {"action": {"type": ..., ...}}.')
    table = _table(room_id, user)
    seat = table.seat_of(user)
    if seat is None:
        raise ApiError(
            "not_seated", _("You have no seat at this table; spectators only watch."), 403
        )
    throttle_action(user)
    result = act(room_id, seat, action)
    if "error" in result:
        return JsonResponse(result, status=result.pop("status"))
    return JsonResponse(result)


def throttle_action(user: Any) -> None:
    """Count one action of `user` (HTTP and stream together) against his limit, or raise 429."""
    window = settings.API_ACTION_WINDOW
    if not ratelimit.hit("api-actions", user.pk, settings.API_ACTIONS_PER_USER, window):
        # The window started with its first action: the wait is at most the whole window.
        raise _too_many(_("Too many actions; try again in %(seconds)d s."), window)


def act(room_id: int, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    """Play `action` through the one write path: {"view"}, or {"error", "view", "status"}."""
    try:
        outcome = play.act(room_id, seat, action)
    except IllegalAction as refusal:
        status = getattr(refusal, "status", 409)
        if refusal.code in MALFORMED:
            status = 400
        now = current.load_table(room_id)
        return {
            # The code stays English for machines; the sentence is in the caller's language.
            "error": {"code": refusal.code, "message": refusal_text(refusal)},
            "view": now.view(seat) if now is not None else None,
            "status": status,
        }
    return {"view": outcome.table.view(seat)}


@endpoint("GET")
def scores(request: HttpRequest, user: Any, body: dict[str, Any], room_id: int) -> JsonResponse:
    room = _room(room_id, user, _invite_param(request, body))
    return JsonResponse(score_sheet(room))


# --------------------------------------------------------------------------- the rest


@endpoint("GET", token=False)
def schema(request: HttpRequest, user: Any, body: dict[str, Any]) -> JsonResponse:
    from api.schema import openapi

    return JsonResponse(openapi(request))


@csrf_exempt
def not_found(request: HttpRequest, rest: str = "") -> JsonResponse:
    return error("not_found", "There is no such API call; see /api/v1/schema.", 404)
