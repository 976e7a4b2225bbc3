"""How a High Card table is drawn: its public parts and a seat's own, from views only (pure)."""

from __future__ import annotations

from typing import Any

from games.engine import Words
from tests.thirdgame.rules import describe_end

TEMPLATE = "thirdgame/table.html"
HOW_TO_PLAY = "thirdgame/how_to_play.html"


def public_parts(view: dict[str, Any]) -> dict[str, Any]:
    """Each public part of the page, mapped to the data it is drawn from (compared per version)."""
    parts: dict[str, Any] = {
        "status": (view["status"], view["round"], view["turn"], view.get("message")),
        "trick": repr(view["trick"]),
        "scores": (repr(view["players"]), repr(view["scores"]), repr(view.get("fairness"))),
    }
    for h in view["hands"]:
        parts[f"seat-{h['seat']}"] = repr(h)
    return parts


def private_part(view: dict[str, Any], legal: list[dict[str, Any]], seat: int) -> Any:
    """The data of `seat`'s own part (`me`): its hand and what it may do, from its own view."""
    return (tuple(view["hand"] or ()), repr(legal), view["status"])


def context(
    view: dict[str, Any],
    seat: int | None,
    legal: list[dict[str, Any]],
    events: list[dict[str, Any]],
    words: Words,
) -> dict[str, Any]:
    """Everything the High Card template draws, for `seat` (None: a spectator)."""
    players = {p["seat"]: p for p in view["players"]}
    return {
        "hands": [dict(h, player=players[h["seat"]]) for h in view["hands"]],
        "my_hand": view.get("hand") or [],
        "can_play": any(a["type"] == "play" for a in legal),
        "can_ready": any(a["type"] == "ready" for a in legal),
        "match_end": describe_end(view["options"]),
    }


def draw_part(context: dict[str, Any], part: str) -> str | None:
    """None: every part of this game is drawn by its template's partial."""
    return None


def partial(context: dict[str, Any], part: str) -> str:
    """Name the partial that draws `part`, setting in `context` what it draws."""
    if part.startswith("seat-"):
        context["h"] = context["hands"][int(part.removeprefix("seat-"))]
        return "seat"
    return part


def private_pieces(view: dict[str, Any], legal: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    """The seat's own part is drawn whole (no pieces of its own)."""
    return {"me": private_part(view, legal, seat)}


def container(part: str) -> str | None:
    """Every part is a part of its own (no piece inside another)."""
    return None
