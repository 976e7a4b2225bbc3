"""The public shuffle verifier, /verify/ (docs/fairness.md): a round's deal rebuilt from its seed.

The work is tables.fairness.verify, the same as GET /api/v1/verify's; the form swaps its result
(`#verify-result`, the page's `result` partial) in place with htmx, and works without it.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.registry import GAMES
from lobby.htmx import is_htmx
from tables import fairness
from tables.words import game_name

FIELDS = ("game", "seats", "seed", "server_seed", "client_seeds", "commitment")


@require_GET
def verify(request: HttpRequest) -> HttpResponse:
    """The form, and with a seed, the deal it gives (400 with one sentence for bad input)."""
    asked = {name: request.GET.get(name, "")[:2000] for name in FIELDS}
    result, problem = None, ""
    if asked["seed"]:
        try:
            result = fairness.verify(
                asked["game"],
                asked["seats"],
                asked["seed"],
                asked["server_seed"],
                asked["client_seeds"],
                asked["commitment"],
            )
        except fairness.VerifyError as refusal:
            problem = _(refusal.message)
    context = {
        "asked": asked,
        "games": [(slug, game_name(slug)) for slug in GAMES],
        "result": result,
        "lines": fairness.lines(result["cards"]) if result else [],
        "problem": problem,
    }
    template = "fairness/verify.html#result" if is_htmx(request) else "fairness/verify.html"
    response = render(request, template, context, status=400 if problem else 200)
    patch_vary_headers(response, ["HX-Request"])
    return response
