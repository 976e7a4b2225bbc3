"""The Board API's JSON for every failure under /api/, whoever answers it (docs/api.md).

The API's views answer their own refusals. What they never see is answered here: a body that is
not strict JSON (too deep, NaN or Infinity, NUL, not UTF-8: refused before any view parses it),
a path under /api/ that is no call of /api/v1/, and any answer of Django's own that is not JSON
(a 400 for a bad host, a body too large for Django, a 500 page). The server's 413 for a body over
its limit is written by cardgames.server in the same shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt

from tables.live import stream

if TYPE_CHECKING:  # a str or a lazy translation (django-stubs' own alias)
    from django_stubs_ext import StrOrPromise

# What a status means when nothing more specific was said (the codes of docs/api.md).
# The sentences in the caller's language (Accept-Language), the codes in English.
CODES: dict[int, tuple[str, StrOrPromise]] = {
    400: ("bad_request", _("The request is not one this API understands.")),
    401: ("bad_token", _("That token is unknown, revoked, or its user is banned.")),
    403: ("forbidden", _("That is not allowed.")),
    404: ("not_found", _("There is no such API call; the API lives under /api/v1/.")),
    405: ("method_not_allowed", _("That method is not allowed here.")),
    413: ("too_large", _("The request body is too large.")),
    429: ("too_many_requests", _("Too many requests; try again later.")),
}
SERVER_ERROR: tuple[str, StrOrPromise] = ("server_error", _("Something went wrong on our side."))
# Headers of the original answer that still mean something on the JSON one.
KEPT_HEADERS = ("Retry-After", "Allow", "Vary")


def is_api(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


def error(code: str, message: StrOrPromise, status: int) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": str(message)}}, status=status)


@csrf_exempt  # no cookie is read under /api/: a POST to no call is a 404, not a CSRF 403
def not_found(request: HttpRequest, **kwargs: Any) -> JsonResponse:
    """Every path under /api/ that is not a call (cardgames.urls routes them here)."""
    return error(*CODES[404], 404)


class ApiErrorsMiddleware:
    """Outermost: under /api/, refuse a body that is not strict JSON and answer JSON always."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_api(request.path_info):
            return self.get_response(request)
        response = _check_body(request) or self.get_response(request)
        if response.status_code >= 400 and not _is_json(response):
            return _as_json(response)
        return response


def _check_body(request: HttpRequest) -> HttpResponse | None:
    if request.method not in ("POST", "PUT", "PATCH", "DELETE"):
        return None
    try:
        body = request.body
    except RequestDataTooBig:
        return error(*CODES[413], 413)
    if not body:
        return None
    try:
        stream.loads(body)  # the views parse it again; this makes sure they get strict JSON
    except stream.WireError as refusal:
        sentence = refusal.message.replace("The message", "The request body", 1)
        if refusal.code == "too_large":
            return error("too_large", sentence, 413)
        return error("bad_json", sentence, 400)
    return None


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


def _as_json(response: HttpResponse) -> JsonResponse:
    status = response.status_code
    code, message = CODES.get(status, SERVER_ERROR if status >= 500 else CODES[400])
    answer = error(code, message, status)
    for name in KEPT_HEADERS:
        if name in response:
            answer[name] = response[name]
    return answer
