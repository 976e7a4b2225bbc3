"""Input no page may pass on: a NUL character anywhere in the path, the query or a form.

PostgreSQL refuses NUL in text (a 500 from deep inside a query), and no person types one. Django's
form fields refuse it already; views that read `request.POST` or a path's `<str:…>` directly do
not, so it is refused here, once, before any view: 400, with no traceback in the log.
The API's bodies are JSON and checked by cardgames.apierrors (bad_json), which comes first.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.http.multipartparser import MultiPartParserError

from cardgames.apierrors import is_api

NUL = "\x00"


class RefuseNulMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Answered, not raised: a raised BadRequest logs a traceback for every such request.
        if NUL in request.path_info or _has_nul(request.GET):
            return _refused("address")
        if request.method == "POST" and not is_api(request.path_info):
            try:
                form = request.POST
            except MultiPartParserError:
                form = None  # Django answers the malformed body itself (400) when it is read
            if form is not None and _has_nul(form):
                return _refused("form")
        return self.get_response(request)


def _refused(where: str) -> HttpResponse:
    # Under /api/ cardgames.apierrors turns this into the API's JSON (bad_request).
    return HttpResponseBadRequest(
        f"A NUL character in the {where} is not allowed.\n", content_type="text/plain"
    )


def _has_nul(query) -> bool:  # noqa: ANN001 - a QueryDict
    return any(NUL in key or any(NUL in v for v in values) for key, values in query.lists())
