"""How an Allegra table is drawn (A4-A9): the parts of the live page and what each is made of.

Pure: it reads Board API views and legal actions, never the state, so nothing here can show a
face-down value. The site (`tables.live.render`) renders `TEMPLATE`'s partials with these;
Ligretto's layout has the same names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from html import escape
from typing import Any

from games.allegra.rules import SEAT_WORDS
from games.cards import draw
from games.engine import Sentence as S  # noqa: N817 - one letter, as often as it is used
from games.engine import Words, away, ngettext, stood_in, term
from games.engine import gettext_noop as _
from games.sentences import replaced

TEMPLATE = "games/allegra/table.html"
HOW_TO_PLAY = "games/allegra/how_to_play.html"
BOARD_CLASS = "allegra"
STYLESHEETS = ("css/allegra.css",)
COLS = 4
SEAT_NAME = re.compile(r"\bSeat (\d+)")
PLACE_ACTIONS = ("reveal", "swap", "place")
OVER = ("finished", "closed")


def band(value: int) -> str:
    """The colour band of a value, like the printed cards (the number is always printed too)."""
    if value <= 0:
        return "b0"
    if value <= 3:
        return "b1"
    if value <= 6:
        return "b2"
    if value <= 9:
        return "b3"
    return "b4"


# --------------------------------------------------------------------------- parts and their data


def public_parts(view: dict[str, Any]) -> dict[str, Any]:
    """Each public part of the table and the data it is drawn from (compared between versions)."""
    players = {p["seat"]: p for p in view["players"]}
    grids = {g["seat"]: g["cells"] for g in view["grids"]}
    parts: dict[str, Any] = {
        # The banner tells what just happened (the events of this version): always redrawn.
        "status": view["version"],
        "pile": repr(
            [
                view[k]
                for k in (
                    "status",
                    "phase",
                    "turn",
                    "deck_count",
                    "discard_top",
                    "discard_count",
                    "drawn",
                    "drawn_from",
                    "hand",
                    "knocker",
                    "knocks",
                )
            ]
        ),
        "scores": repr(
            (view["players"], view["score_sheet"], view["status"], view.get("fairness"))
        ),
    }
    for seat, cells in grids.items():
        p = players[seat]
        parts[f"grid-{seat}"] = repr(
            (
                [row[:3] for row in cells],
                (p["name"], p["bot"], p["connected"], p["total"], p.get("away_until")),
                view["status"] in OVER,
                _active(view, seat),
                seat in view["knocks"],
                view["knocker"] == seat,
                view["ender"] == seat,
                view["area_sums"][seat],
                (view.get("revealed_count") or [None] * len(grids))[seat],
            )
        )
        parts[f"col-{seat}"] = repr([row[COLS - 1] for row in cells])
    # The ways out of a match being played (leave, close): taken away once it is over.
    parts["exits"] = view["status"] in OVER
    return parts


def private_part(view: dict[str, Any], legal: list[dict[str, Any]], seat: int) -> Any:
    """The data of `seat`'s own part: his area, what he may do now, and the cards it names."""
    area = next(a for a in view["areas"] if a["seat"] == seat)
    grids = {g["seat"]: g["cells"] for g in view["grids"]}
    cells = [[grids[p["seat"]][p["row"]][p["col"]] for p in row] for row in area["places"]]
    knocker_cells = None
    if view["knocker"] is not None and view["phase"] == "knock_take":
        knocker_cells = grids[view["knocker"]]
    return repr(
        (
            legal,
            cells,
            knocker_cells,
            [view[k] for k in ("status", "round", "phase", "turn", "drawn", "discard_top")],
            [view[k] for k in ("knocks", "knocker", "hand", "deck_count", "starts_at")],
            seat in view.get("ready", ()),
            stood_in(view, seat),
        )
    )


def draw_part(context: dict[str, Any], part: str) -> str | None:
    """None: every part of this game is drawn by its template's partial."""
    return None


def partial(context: dict[str, Any], part: str) -> str:
    """Name the partial that draws `part`, setting in `context` what it draws."""
    kind, _, seat = part.partition("-")
    if kind == "grid":
        context["g"] = context["grids"]()[int(seat)]
    elif kind == "col":
        context["c"] = context["cols"]()[int(seat)]
    return kind


# --------------------------------------------------------------------------- the template context


def context(
    view: dict[str, Any],
    seat: int | None,
    legal: list[dict[str, Any]],
    events: list[dict[str, Any]],
    words: Words,
) -> dict[str, Any]:
    """Everything the Allegra table template draws, for `seat` (None: a spectator)."""
    if stood_in(view, seat):
        legal = []  # a bot plays this seat: its person gets no move until he takes it back
    n = len(view["grids"])
    # Away (a bot plays for him soon) only while the match goes on.
    over = view["status"] in OVER
    players = {p["seat"]: dict(p, away=away(p) and not over) for p in view["players"]}
    names = {s: p["name"] for s, p in players.items()}
    grids = {g["seat"]: g["cells"] for g in view["grids"]}
    vanished = _vanished(events)

    def place(s: int, r: int, c: int) -> dict[str, Any]:
        cell = grids[s][r][c]
        info: dict[str, Any] = {"seat": s, "row": r, "col": c, "cell": cell}
        if cell and "value" in cell:
            info["band"] = band(cell["value"])
        info["gone"] = vanished.get((s, r, c))
        if info["gone"] is not None:
            info["gone_band"] = band(info["gone"])
        info["label"] = _label(cell, names[s], r, c, info["gone"])
        info["html"] = card_html(info)
        return info

    # Built only when a template asks (Django calls a callable context value): a seat's own
    # part draws none of the other grids, and a change redraws one part of many.
    @cache
    def grid_parts() -> list[dict[str, Any]]:
        return [
            {
                "seat": s,
                "player": players[s],
                "rows": [[place(s, r, c) for c in range(COLS - 1)] for r in range(3)],
                "active": _active(view, s),
                "knocked": s in view["knocks"],
                "knocker": view["knocker"] == s,
                "ender": view["ender"] == s,
                "area_sum": view["area_sums"][s],
                "revealed": (view.get("revealed_count") or [None] * n)[s],
            }
            for s in range(n)
        ]

    @cache
    def col_parts() -> list[dict[str, Any]]:
        return [
            {
                "seat": s,
                "right": (s - 1) % n,  # the column is also in the area of the seat on its right
                "name": names[s],
                "right_name": names[(s - 1) % n],
                "rows": [place(s, r, COLS - 1) for r in range(3)],
            }
            for s in range(n)
        ]

    ctx: dict[str, Any] = {
        "grids": grid_parts,
        "cols": col_parts,
        "ring": _ring(n, seat),
        "left_of": {s: (s + 1) % n for s in range(n)},
        "names": names,
        # What a screen reader is told once a round is over (issue 41): this seat's points.
        "my_points": _my_points(view, players, seat),
        "banner": banner(view, names),
        "news": news(events, names),
        "message": _named(view.get("message"), names),
        "sheet": cache(lambda: _sheet(view, names)),
        "how_to": True,
        # The colour bands of the loose face-up cards (the discard's top, the drawn card, the
        # knocker's hand card), drawn by the site's `face` tag.
        "loose": {
            name: band(view[key]["value"])
            for name, key in (("discard", "discard_top"), ("drawn", "drawn"), ("hand", "hand"))
            if isinstance(view.get(key), dict) and view[key].get("value") is not None
        },
        "match_end": ngettext(
            "%(rounds)s round; the lowest total wins.",
            "%(rounds)s rounds; the lowest total wins.",
            view["rounds"],
            rounds=view["rounds"],
        ),
    }
    if seat is not None:
        ctx["me"] = _me(view, seat, legal, names, place)
        ctx["stood_in"] = stood_in(view, seat)
    return ctx


def _active(view: dict[str, Any], seat: int) -> bool:
    """Whether it is `seat`'s turn: in the opening everyone turns his cards at once (A5)."""
    return bool(view["turn"] == seat and view["status"] == "playing" and view["phase"] != "opening")


def _ring(n: int, seat: int | None) -> list[dict[str, Any]]:
    """The other players' grids, laid out so that each area reads left to right (A4).

    Seat s's area is its left neighbour's (s+1) last column followed by its own four, so the
    grids run in descending seat order: each shared column lies between its two owners. A
    seated player's own grid and the two columns of his area are drawn in his own part instead.
    """
    first = n if seat is None else seat
    order = [(first - k) % n for k in range(1, n + (seat is None))]
    return [
        {
            "seat": s,
            # The seated player's own last column is in this seat's area, drawn below.
            "after_mine": seat is not None and s == (seat - 1) % n,
            "col_is_mine": seat is not None and s == (seat + 1) % n,
        }
        for s in order
    ]


def _me(
    view: dict[str, Any],
    seat: int,
    legal: list[dict[str, Any]],
    names: dict[int, str],
    place: Callable[[int, int, int], dict[str, Any]],
) -> dict[str, Any]:
    n = len(view["grids"])
    area = next(a for a in view["areas"] if a["seat"] == seat)
    by_place: dict[tuple[int, int, int], dict[str, Any]] = {}
    kinds = {a["type"] for a in legal}
    for a in legal:
        if a["type"] in PLACE_ACTIONS:
            p = a["place"]
            by_place[(p["seat"], p["row"], p["col"])] = a
    take = "take" in kinds
    targets = {
        (a["to"]["seat"], a["to"]["row"], a["to"]["col"]) for a in legal if a["type"] == "take"
    }
    rows: list[list[dict[str, Any]]] = []
    for row in area["places"]:
        out: list[dict[str, Any]] = []
        for p in row:
            key = (p["seat"], p["row"], p["col"])
            info = place(*key)
            action = by_place.get(key)
            info["action"] = json.dumps(action) if action else None
            info["verb"] = action["type"] if action else None
            info["target"] = json.dumps(p) if take and key in targets else None
            info["shared"] = p["col"] == COLS - 1
            info["left"] = p["seat"] != seat
            info["place_class"] = place_class(info)
            info["place_html"] = place_html(info, len(rows), len(out))
            out.append(info)
        rows.append(out)
    me: dict[str, Any] = {
        "seat": seat,
        "rows": rows,
        "left": (seat + 1) % n,
        "right": (seat - 1) % n,
        "kinds": kinds,
        "legal": legal,
        "deck": {"type": "draw", "source": "deck"} in legal,
        "discard_pile": {"type": "draw", "source": "discard"} in legal,
        "gives": [{"to": a["to"], "name": names[a["to"]]} for a in legal if a["type"] == "give"],
        "hint": hint(view, seat, legal, names),
        "ready": seat in view.get("ready", ()),
    }
    if take:
        knocker = view["knocker"]
        sources = {
            (a["from"]["seat"], a["from"]["row"], a["from"]["col"])
            for a in legal
            if a["type"] == "take"
        }
        knocker_area = next(a for a in view["areas"] if a["seat"] == knocker)
        me["take_from"] = [
            [
                dict(
                    place(p["seat"], p["row"], p["col"]),
                    value=json.dumps(p),
                    takeable=(p["seat"], p["row"], p["col"]) in sources,
                )
                for p in row
            ]
            for row in knocker_area["places"]
        ]
        me["knocker_name"] = names[knocker]
    return me


def card_html(x: dict[str, Any]) -> str:
    """One card as HTML (in Python, by games/cards.py: a table has up to 90 in every render)."""
    attrs = f' data-place="{x["seat"]}-{x["row"]}-{x["col"]}" aria-label="{escape(x["label"])}"'
    cell, gone = x["cell"], x["gone"]
    if cell is not None and "hidden" in cell:
        return draw("back", None, attrs)
    if cell is not None:
        return draw(band(cell["value"]), cell["value"], attrs)
    if gone is not None:
        # A triple's card, shown once more as it leaves (A8).
        return draw(f"gone vanish {band(gone)}", gone, attrs, sym=False)
    return draw("gone", None, attrs)


def place_class(x: dict[str, Any]) -> str:
    """The classes of a place of a player's own area."""
    cls = "place"
    if x["verb"]:
        cls += f" {x['verb']}"
    if x["left"]:
        cls += f" left s{x['seat']}"  # the left neighbour's column, in his colour
    if x["shared"]:
        cls += " shared"
    return cls


def place_html(x: dict[str, Any], row: int, col: int) -> str:
    """One place of a player's own area: a button when he may act on it, else the card alone.

    Drawn in Python like the cards: it is 15 of them in every render of a seat's own part.
    """
    ident = f'id="me-{row}-{col}" class="{place_class(x)}"'
    label = escape(x["label"])
    if x["target"]:  # the take step of a knock: a submit of the take form (A7)
        return (
            f'<button type="submit" name="to" value="{escape(x["target"])}" {ident}'
            f' aria-label="{label}: replace it">{x["html"]}</button>'
        )
    if x["action"]:
        return (
            f'<button type="button" {ident} ws-send hx-vals="{escape(x["action"])}"'
            f' aria-label="{label}: {x["verb"]}">{x["html"]}</button>'
        )
    return f"<span {ident}>{x['html']}</span>"


def _label(cell: Any, owner: str, r: int, c: int, gone: Any) -> str:
    where = {"owner": owner, "row": r + 1, "col": c + 1}
    if cell is None and gone is not None:
        return S(
            _("%(owner)s's row %(row)s, column %(col)s: empty (%(a_card)s left in a triple)"),
            a_card=_a(gone),
            **where,
        )
    if cell is None:
        return S(_("%(owner)s's row %(row)s, column %(col)s: empty"), **where)
    if "hidden" in cell:
        return S(_("%(owner)s's row %(row)s, column %(col)s: face down"), **where)
    return S(_("%(owner)s's row %(row)s, column %(col)s: %(value)s"), value=cell["value"], **where)


def _vanished(events: list[dict[str, Any]]) -> dict[tuple[int, int, int], int]:
    out = {}
    for e in events:
        if e.get("type") == "triple_removed":
            for p, v in zip(e["places"], e["values"], strict=True):
                out[(p["seat"], p["row"], p["col"])] = v
    return out


def _named(text: str | None, names: dict[int, str]) -> str | None:
    """Say the engine's "Seat 2" with the player's name (a Sentence stays one, with the name
    as its parameter, so that the site still words it in each reader's language)."""
    if not text:
        return text
    if isinstance(text, S):

        def name(value: S) -> str | None:
            seat = value.params.get("seat")
            if value.template == SEAT_WORDS and seat in names:
                return names[seat]
            return None

        return replaced(text, name)
    return SEAT_NAME.sub(lambda m: names.get(int(m.group(1)), m.group(0)), text)


def _sheet(view: dict[str, Any], names: dict[int, str]) -> list[dict[str, Any]]:
    rows = []
    for entry in view["score_sheet"]:
        cells = [
            {
                "points": pts,
                "sum": entry["sums"][s],
                "doubled": entry["doubled"] == s,
                "ender": entry["ender"] == s,
            }
            for s, pts in enumerate(entry["points"])
        ]
        rows.append({"round": entry["round"], "cells": cells, "ender": names[entry["ender"]]})
    return rows


# --------------------------------------------------------------------------- words


def banner(view: dict[str, Any], names: dict[int, str]) -> dict[str, str]:
    """Whose turn it is and, in words, what he may do now (A5-A9).

    Sentences keep their templates and parameters (games.engine.Sentence): the site words them
    in the reader's language; as strings they are the English.
    """
    status, phase, turn = view["status"], view["phase"], view["turn"]
    rnd = view["round"]
    if status == "starting":
        return {"headline": S(_("Round %(round)s starts in a moment."), round=rnd), "detail": ""}
    if status == "round_over":
        return {"headline": S(_("Round %(round)s is over."), round=rnd), "detail": ""}
    if status == "finished":
        return {"headline": S(_("The match is over.")), "detail": ""}
    if status == "closed":
        return {"headline": S(_("This room was closed; the match stopped here.")), "detail": ""}
    who = names.get(turn, "")
    drawn = (view.get("drawn") or {}).get("value")
    turn_of = S(_("%(who)s's turn"), who=who)
    if phase == "opening":
        return {
            "headline": S(_("Round %(round)s: everyone turns two cards face up."), round=rnd),
            "detail": S(
                _("Any two face-down cards of your area, all at once; then %(who)s begins."),
                who=who,
            ),
        }
    if phase == "draw":
        return {
            "headline": turn_of,
            "detail": S(_("%(who)s may draw from the deck or take the discard."), who=who),
        }
    if phase == "decide" and drawn is None:
        return {
            "headline": turn_of,
            "detail": S(
                _("%(who)s discarded the card and turns one face-down card of their area face up."),
                who=who,
            ),
        }
    if phase == "decide" and view["drawn_from"] == "discard":
        return {
            "headline": turn_of,
            "detail": S(
                _(
                    "%(who)s took the %(card)s from the discard and swaps it for a card of "
                    "their area."
                ),
                who=who,
                card=drawn,
            ),
        }
    if phase == "decide":
        knocked = [names[k] for k in view["knocks"]] if len(view["players"]) >= 3 else None
        params = {"who": who, "a_card": _a(drawn)}
        if knocked is None:
            detail = S(
                _(
                    "%(who)s drew %(a_card)s from the deck and swaps it for a card of their "
                    "area, or discards it and turns a card face up."
                ),
                **params,
            )
        elif knocked:
            detail = S(
                _(
                    "%(who)s drew %(a_card)s from the deck and swaps it for a card of their "
                    "area, or discards it and turns a card face up. Knocked: %(knocked)s; "
                    "%(who)s may give the card to one of them."
                ),
                knocked=", ".join(knocked),
                **params,
            )
        else:
            detail = S(
                _(
                    "%(who)s drew %(a_card)s from the deck and swaps it for a card of their "
                    "area, or discards it and turns a card face up. The others may knock for "
                    "it now."
                ),
                **params,
            )
        return {"headline": turn_of, "detail": detail}
    knocker = names.get(view["knocker"], "")
    knocked_turn = S(_("%(who)s's turn: %(knocker)s knocked"), who=who, knocker=knocker)
    if phase == "knock_place":
        return {
            "headline": knocked_turn,
            "detail": S(
                _(
                    "%(who)s gave the %(card)s to %(knocker)s, who swaps it for a card of "
                    "their own area."
                ),
                who=who,
                card=drawn,
                knocker=knocker,
            ),
        }
    hand = (view.get("hand") or {}).get("value")
    return {
        "headline": knocked_turn,
        "detail": S(
            _(
                "%(who)s takes a card of %(knocker)s's area that is not in their own and swaps "
                "it into their area; %(knocker)s's %(hand)s fills the hole."
            ),
            who=who,
            knocker=knocker,
            hand=hand,
        ),
    }


def hint(
    view: dict[str, Any], seat: int, legal: list[dict[str, Any]], names: dict[int, str]
) -> str:
    """What `seat` may do now, addressed to him, with the keys (a Sentence, see `banner`)."""
    kinds = {a["type"] for a in legal}
    drawn = (view.get("drawn") or {}).get("value")
    status = view["status"]
    if status == "starting":
        return S(_("The round starts in a moment."))
    if "ready" in kinds:
        last = view["round"] >= view["rounds"]
        if last:
            return S(_("Press R to see the result."))
        return S(_("Press R when you are ready to go on."))
    if status == "round_over":
        return S(_("Waiting for the others to be ready."))
    if status == "finished":
        return S(_("The match is over."))
    if view["phase"] == "opening":
        if "reveal" in kinds:
            left = 2 - (view.get("revealed_count") or [0] * (seat + 1))[seat]
            return ngettext(
                "Turn %(left)s card of your area face up: click them.",
                "Turn %(left)s cards of your area face up: click them.",
                left,
                left=left,
            )
        return S(_("Waiting for the others to turn their cards."))
    if "draw" in kinds:
        return S(_("Your turn: draw from the deck (D) or take the discard (P)."))
    if "take" in kinds:
        return S(
            _(
                "Choose a card of %(knocker)s's area, then click the card of your area it "
                "replaces (that one goes to the discard)."
            ),
            knocker=names[view["knocker"]],
        )
    if "place" in kinds:
        return S(_("You got the %(card)s: click the card of your area to swap it for."), card=drawn)
    if "swap" in kinds:
        discard, give = "discard" in kinds, "give" in kinds
        if discard and give:
            text = _(
                "Click a card of your area to swap the %(card)s for, or discard it (X) and turn "
                "a card face up, or give it to a knocker."
            )
        elif discard:
            text = _(
                "Click a card of your area to swap the %(card)s for, or discard it (X) and turn "
                "a card face up."
            )
        elif give:
            text = _("Click a card of your area to swap the %(card)s for, or give it to a knocker.")
        else:
            text = _("Click a card of your area to swap the %(card)s for.")
        return S(text, card=drawn)
    if "reveal" in kinds:
        return S(_("Turn one face-down card of your area face up: click it."))
    if "knock" in kinds:
        return S(
            _(
                "Knock (K) to ask for the %(card)s: swap it in, then %(turn)s takes one of "
                "your cards."
            ),
            card=drawn,
            turn=names[view["turn"]],
        )
    if seat in view["knocks"]:
        return S(_("You knocked: %(turn)s decides."), turn=names[view["turn"]])
    if view["phase"] == "knock_place":
        return S(_("Waiting for %(knocker)s to place the card."), knocker=names[view["knocker"]])
    return S(_("Waiting for %(turn)s."), turn=names.get(view["turn"], ""))


def _a(value: int | None) -> str:
    """A card value with its article, as it is read out: "an 8", "an 11", "a 3", "a -1"."""
    if value in (8, 11):
        return S(_("an %(value)s"), value=value)
    return S(_("a %(value)s"), value=value)


def news(events: list[dict[str, Any]], names: dict[int, str]) -> list[str]:
    """The events of one change, in words (the public ones only: events carry no hidden value).

    Sentences with the players' names as parameters: the site words them per reader.
    """
    out: list[str] = []
    for e in events:
        who = names.get(e["seat"], "") if isinstance(e.get("seat"), int) else ""
        kind = e.get("type")
        value, old = e.get("value"), e.get("old")
        if kind == "card_drawn":
            if e["source"] == "deck":
                line = S(_("%(who)s took %(card)s from the deck."), who=who, card=_a(value))
            else:
                line = S(_("%(who)s took %(card)s from the discard."), who=who, card=_a(value))
        elif kind == "card_swapped":
            line = S(
                _("%(who)s swapped in the %(value)s; the %(old)s went to the discard."),
                who=who,
                value=value,
                old=old,
            )
        elif kind == "card_discarded":
            line = S(_("%(who)s discarded the %(value)s."), who=who, value=value)
        elif kind == "card_revealed":
            line = S(_("%(who)s turned up %(card)s."), who=who, card=_a(value))
        elif kind == "knocked":
            line = S(_("%(who)s knocked."), who=who)
        elif kind == "card_given":
            to = names.get(e["to"], "")
            line = S(_("%(who)s gave the %(value)s to %(to)s."), who=who, value=value, to=to)
        elif kind == "card_placed":
            line = S(
                _("%(who)s swapped in the %(value)s; the %(old)s is in their hand."),
                who=who,
                value=value,
                old=old,
            )
        elif kind == "card_taken":
            line = S(
                _("%(who)s took the %(value)s; the %(old)s went to the discard."),
                who=who,
                value=value,
                old=old,
            )
        elif kind == "hole_filled":
            line = S(_("%(who)s's %(value)s filled the hole."), who=who, value=value)
        elif kind == "triple_removed":
            values = [S(_("%(value)ss"), value=v) for v in sorted(set(e["values"]))]
            line = ngettext(
                "Triple! %(cards)s card (%(values)s) left the game.",
                "Triple! %(cards)s cards (%(values)s) left the game.",
                len(e["values"]),
                cards=len(e["values"]),
                values=listed(values),
            )
        elif kind == "deck_reshuffled":
            line = S(_("The discard pile was shuffled into a new deck."))
        elif kind == "turn_skipped":
            line = S(_("%(who)s has no card left and skips their turn."), who=who)
        else:
            continue
        out.append(line)
    return out


def _my_points(
    view: dict[str, Any], players: dict[int, dict[str, Any]], seat: int | None
) -> tuple[int, int] | None:
    """(`seat`'s points in the last round scored, its total), once a round is over."""
    if seat is None or view["status"] not in ("round_over", "finished") or not view["scores"]:
        return None
    return view["scores"][-1]["points"][seat], players[seat]["total"]


def private_pieces(view: dict[str, Any], legal: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    """The seat's own part is drawn whole (no pieces of its own)."""
    return {"me": private_part(view, legal, seat)}


def container(part: str) -> str | None:
    """Every part is a part of its own (no piece inside another)."""
    return None


def listed(items: list[Any]) -> str:
    """Items as one list, "A, B and C" (a Sentence: the site joins them in its language)."""
    if len(items) < 2:
        return items[0] if items else ""
    head = ", ".join(str(i) for i in items[:-1])
    return S(_("%(names)s and %(last)s"), names=head, last=items[-1])


# --------------------------------------------------------------------------- words


# The words the site has for this game's codes, by the catalogue's context (`Game.term`): what
# a click on a place of one's own area does (a place's `verb`, an action type).
TERMS: dict[tuple[str, str], S] = {
    ("place action", "reveal"): term("place action", "reveal"),
    ("place action", "swap"): term("place action", "swap"),
    ("place action", "place"): term("place action", "place"),
}


def describe_action(action: dict[str, Any], names: dict[int, str]) -> S:
    """Say what an Allegra action did, from the action alone (what the seat sent: public), for
    a replay's list of moves, `names` naming the seats: a Sentence the site words in its
    reader's language."""
    kind = action.get("type")
    if kind == "draw":
        source = action.get("source", "deck")
        if source == "discard":
            return S(_("draws from the discard"))
        return S(_("draws from the deck"))
    if kind == "reveal":
        return S(_("turns up %(place)s"), place=_place_words(action.get("place"), names))
    if kind == "swap":
        return S(_("swaps in at %(place)s"), place=_place_words(action.get("place"), names))
    if kind == "place":
        return S(_("places at %(place)s"), place=_place_words(action.get("place"), names))
    if kind == "discard":
        return S(_("discards the drawn card"))
    if kind == "knock":
        return S(_("knocks"))
    if kind == "give":
        return S(_("gives the turn to %(name)s"), name=_seat_words(action.get("to"), names))
    if kind == "take":
        return S(
            _("takes %(source)s to %(target)s"),
            source=_place_words(action.get("from"), names),
            target=_place_words(action.get("to"), names),
        )
    if kind == "ready":
        return S(_("is ready"))
    return S(_("sends %(action)s"), action=str(kind))


def _seat_words(seat: Any, names: dict[int, str]) -> str:
    if isinstance(seat, int) and seat in names:
        return names[seat]
    return S(SEAT_WORDS, seat=seat) if type(seat) is int else "?"


def _place_words(place: Any, names: dict[int, str]) -> S:
    if not isinstance(place, dict):
        return S(_("a card"))
    return S(
        _("%(owner)s's row %(row)s, column %(col)s"),
        owner=_seat_words(place.get("seat"), names),
        row=_nth(place.get("row")),
        col=_nth(place.get("col")),
    )


def _nth(index: Any) -> str:
    # A refused move keeps what was sent, which the rules never checked: "?" for nonsense.
    return str(index + 1) if type(index) is int else "?"
