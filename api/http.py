"""The Board API's HTTP plumbing on django-ninja: strict bodies, Bearer tokens, one error shape.

Every refusal, whoever makes it (the parser, a request schema, the token check, the lobby, the
rules), answers `{"error": {"code", "message"}}` with its status; a bug of ours answers 500
`server_error` in the same shape, never an HTML page. Views only raise.
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.utils.translation import gettext as _
from ninja import NinjaAPI, Router
from ninja.errors import AuthenticationError, HttpError, ValidationError, ValidationErrorContext
from ninja.parser import Parser
from ninja.security import HttpBearer

from api import auth, schemas
from lobby.services import RoomError
from tables.live import stream

log = logging.getLogger(__name__)


class ApiRequest(HttpRequest):
    """A request as an API view gets it: `auth` is the caller the Bearer token named."""

    auth: Any


class ApiError(Exception):
    """A refusal of the API itself, answered as JSON with `status`."""

    def __init__(self, code: str, message: str, status: int = 400, retry_after: int = 0) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.retry_after = code, message, status, retry_after


def error(code: str, message: str, status: int, **extra: Any) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}, **extra}, status=status)


class StrictParser(Parser):
    """Bodies through `tables.live.stream.loads`, whatever the Content-Type says (curl's `-d`
    is form)."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        body = stream.loads(request.body)
        if not isinstance(body, dict):
            raise stream.WireError("bad_json", _("The request body must be a JSON object."))
        return body


class Bearer(HttpBearer):
    """`Authorization: Bearer <token>`: the caller, or 401 `no_token` / `bad_token`."""

    def __call__(self, request: HttpRequest) -> Any:
        raw = auth.bearer(request.headers.get("Authorization", ""))
        if raw is None:
            raise ApiError(
                "no_token", "Send your API token as `Authorization: Bearer <token>`.", 401
            )
        return self.authenticate(request, raw)

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        user = auth.user_for_token(token)
        if user is None:
            raise ApiError(
                "bad_token", _("That token is unknown, revoked, or its user is banned."), 401
            )
        return user


class BoardApi(NinjaAPI):
    """NinjaAPI with the Board API's errors, its JSON content type and its public path names."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The finished OpenAPI document per path prefix. Building it takes most of a second of
        # CPU (ninja rebuilds every operation's models), and it depends only on the routes and
        # the game registry, both fixed once the process has started, never on the reader (its
        # texts are not translated): made once, a copy handed out per call (a few ms).
        self._documents: dict[str | None, dict[str, Any]] = {}

    def get_content_type(self) -> str:
        return "application/json"  # as before the move; clients compare it exactly

    def validation_error_from_error_contexts(
        self, error_contexts: list[ValidationErrorContext]
    ) -> ValidationError:
        # The request schemas turn their first problem into the API's own code and sentence
        # (schemas.Body); an empty body is validated as {} so that it gets the same answer.
        for context in error_contexts:
            for problem in context.pydantic_validation_error.errors(include_url=False):
                refusal = schemas.refusal_from(problem)
                if refusal is None and problem["type"] == "missing" and len(problem["loc"]) == 1:
                    payload = context.model.model_fields[str(problem["loc"][0])].annotation
                    refusal = schemas.refusal_of(payload, {})
                if refusal is not None:
                    raise ApiError(*refusal)
        raise ApiError("bad_request", _("The request is not what this call takes."))

    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> Any:
        if path_params is not None:  # not asked by this site: made afresh, as ninja would
            document = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
            return schemas.finish_document(document)
        made = self._documents.get(path_prefix)
        if made is None:
            made = schemas.finish_document(super().get_openapi_schema(path_prefix=path_prefix))
            self._documents[path_prefix] = made
        return copy.deepcopy(made)


api = BoardApi(
    title="cardgames Board API",
    version="1",
    description=schemas.DESCRIPTION,
    openapi_url=None,  # served by the `schema` call instead, with the caller's own server
    docs_url=None,
    urls_namespace="api",
    auth=Bearer(),
    parser=StrictParser(),
    # Answers say what their data has: an optional field nobody set (a room's `invite` for a
    # stranger) is left out, not sent as null.
    default_router=Router(exclude_unset=True),
)


@api.exception_handler(ApiError)
def _api_error(request: HttpRequest, refusal: ApiError) -> HttpResponse:
    response = error(refusal.code, refusal.message, refusal.status)
    if refusal.retry_after:
        response["Retry-After"] = str(refusal.retry_after)
    return response


@api.exception_handler(RoomError)
def _room_error(request: HttpRequest, refusal: RoomError) -> HttpResponse:
    response = error(refusal.code, refusal.message, refusal.status)
    if refusal.status == 429:
        response["Retry-After"] = str(getattr(settings, "ROOM_ACTION_WINDOW", 60))
    return response


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, problem: HttpError) -> HttpResponse:
    # ninja wraps what the parser raised: answer the wire's own code and sentence.
    cause = problem.__cause__
    if isinstance(cause, stream.WireError):
        return error(cause.code, cause.message, 413 if cause.code == "too_large" else 400)
    return error("bad_request", str(problem), problem.status_code)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, problem: AuthenticationError) -> HttpResponse:
    return error("no_token", "Send your API token as `Authorization: Bearer <token>`.", 401)


@api.exception_handler(Exception)
def _bug(request: HttpRequest, problem: Exception) -> HttpResponse:
    # A bug of ours, not the client's: say so in JSON, never an HTML page.
    log.exception("API call %s %s failed", request.method, request.path, exc_info=problem)
    return error("server_error", _("Something went wrong on our side."), 500)


METHOD_ORDER = ("GET", "POST", "PUT", "PATCH", "DELETE")


def json_405(view: Any) -> Any:
    """Wrap a ninja path view so that a wrong method answers the API's JSON 405."""

    def call(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if isinstance(response, HttpResponseNotAllowed):
            allowed = [m for m in METHOD_ORDER if m in set(re.split(r",\s*", response["Allow"]))]
            refusal = error("method_not_allowed", f"Use {' or '.join(allowed)} here.", 405)
            refusal["Allow"] = ", ".join(allowed)  # RFC 9110: a 405 names the methods it takes
            return refusal
        return response

    call.csrf_exempt = True  # type: ignore[attr-defined]  # no cookies are read here
    return call
