"""The public shuffle verifier, /verify/ (docs/fairness.md): a round's deal rebuilt from its seed.

The work is tables.fairness.verify, the same as GET /api/v1/verify's; the form swaps its result
(`#verify-result`, the page's `result` partial) in place with htmx, and works without it.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from django.views.decorators.http import require_GET

from games.registry import GAMES
from lobby.htmx import is_htmx
from tables import fairness
from tables.words import game_name, term

FIELDS = ("game", "seats", "seed", "server_seed", "client_seeds", "commitment")
# The names of a deal's parts, as the engines' `dealt` name them (another game's: as it says).
PARTS = {
    "seats": gettext_lazy("Seats"),
    "row": gettext_lazy("Row"),
    "stack": gettext_lazy("Stack"),
    "hand": gettext_lazy("Hand"),
    "waste": gettext_lazy("Waste"),
    "grids": pgettext_lazy("a dealt part", "Grids"),
    "deck": pgettext_lazy("a dealt part", "Deck"),
    "discard": pgettext_lazy("a dealt part", "Discard pile"),
    "hands": pgettext_lazy("a dealt part", "Hands"),
    "stock": pgettext_lazy("a dealt part", "Stock"),
}


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
        "lines": deal_lines(result["cards"]) if result else [],
        "problem": problem,
    }
    template = "fairness/verify.html#result" if is_htmx(request) else "fairness/verify.html"
    response = render(request, template, context, status=400 if problem else 200)
    patch_vary_headers(response, ["HX-Request"])
    return response


def deal_lines(cards: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """A deal (`Game.dealt`) in the reader's words: per part, one line per seat or item."""
    return [
        (str(PARTS.get(part, part)), [_said(item) for item in fairness.items(value)])
        for part, value in cards.items()
    ]


def _said(value: Any) -> str:
    # Cards are lists of numbers and colour names; a seat's cards are named parts.
    if isinstance(value, dict):
        return "; ".join(f"{PARTS.get(k, k)}: {_said(v)}" for k, v in value.items())
    if isinstance(value, list):
        if all(not isinstance(v, list | dict) for v in value):
            return " ".join(_said(v) for v in value)
        return ", ".join(f"[{_said(v)}]" for v in value)
    if isinstance(value, str):
        return term("card colour", value)
    return "–" if value is None else str(value)
