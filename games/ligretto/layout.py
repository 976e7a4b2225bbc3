"""How a Ligretto table is drawn (L3-L14): the parts of the live page and what each is made of.

Pure: it reads Board API views only, never the state, so nothing here can show a hidden card.
The site (`tables.live.render`) renders `TEMPLATE`'s partials with these; see
games/allegra/layout.py for the other game's, with the same names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import partial as later
from types import MappingProxyType
from typing import Any

from games.cards import colour_face
from games.engine import Sentence, Words, away, escape, squeeze, stood_in, term
from games.engine import gettext_noop as _
from games.ligretto.rules import COLORS, SEAT_WORDS, SEATS_WORDS, TOP_VALUE, describe_end
from games.sentences import replaced

TEMPLATE = "games/ligretto/table.html"
# Both presets' page: it tells them apart by the `game` it is drawn for.
HOW_TO_PLAY = "games/ligretto/how_to_play.html"
BOARD_CLASS = "ligretto"
STYLESHEETS: tuple[str, ...] = ()
OVER = ("finished", "closed")
_SEAT = re.compile(r"\b[Ss]eats? (\d+(?:, \d+)*)")


# A part's data is the view's own objects, not a copy or a text of them: views are never
# changed once made (a caller that changes one copies it first), and the engine keeps each
# pile's and each tableau's object for as long as it does not change, so the comparison with
# the last version's data (`!=`) meets the very same object for every part a move left alone
# and stops there.


def public_parts(view: dict[str, Any]) -> dict[str, Any]:
    """Each public part of the page, mapped to the data it is drawn from (compared per version)."""
    parts: dict[str, Any] = {
        "status": (
            view["status"],
            view["round"],
            view.get("message"),
            view.get("starts_at"),
            tuple(view.get("ready", ())),
        ),
        "scores": (view["players"], view["scores"], view.get("fairness")),
        # The centre as a whole: which piles are open, in order, and the closed ones (drawn
        # together in one line). Each open pile is a part inside it (`pile-N`): a card played
        # redraws its pile alone, not every pile of the centre (16 at 4 seats, 40 at 10).
        "center": tuple(p if p["closed"] else p["pile"] for p in view["center"]),
    }
    for pile in view["center"]:
        if not pile["closed"]:
            parts[f"pile-{pile['pile']}"] = pile
    players = {p["seat"]: p for p in view["players"]}
    for t in view["tableaus"]:
        # The seat's header draws its player's name, marks and total: a round's end changes
        # every total, and each seat's part must be redrawn then, not only the ender's. A card
        # played changes `in_center`, so the seat that played is redrawn whole (it glows).
        seat = t["seat"]
        parts[f"seat-{seat}"] = (
            t["row"],
            t["stack_top"],
            t["stack_count"],
            t["in_center"],
            players.get(seat),
            view["status"] in OVER,
        )
        # Inside it, what a flip changes: redrawn alone when the rest of the seat is not.
        parts[f"seat-{seat}-flip"] = (t["waste_top"], t["waste_count"], t["hand_count"])
    # The ways out of a match being played (leave, close): taken away once it is over.
    parts["exits"] = view["status"] in OVER
    return parts


def container(part: str) -> str | None:
    """The part that `part` is drawn inside of (None: a part of its own). A page drawn whole
    draws only the outer parts; a push that redraws an outer part leaves out what is in it."""
    if part.startswith("seat-") and part.endswith("-flip"):
        return part.removesuffix("-flip")
    if part.startswith("pile-"):
        return "center"
    return None


def private_part(view: dict[str, Any], legal: list[dict[str, Any]], seat: int) -> Any:
    """The data of `seat`'s own part (`me`), from that seat's view."""
    return (
        view["tableaus"][seat],
        view["status"],
        view["round"],
        seat in view.get("ready", ()),
        view.get("starts_at"),
    )


def private_pieces(view: dict[str, Any], legal: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    """`seat`'s own part in pieces that are redrawn alone when only they change: the row
    (`me_row`), the stack (`me_stack`), and the waste and the hand (`me_flip`, all a flip
    changes); "me" is what lies around them (the round, its status, the ready button).
    Made for every seat a change is drawn for, to be compared: only the data, in one pass."""
    t = view["tableaus"][seat]
    status = view["status"]
    row_variant = bool((view.get("options") or {}).get("row_variant"))
    playable, keys = _playable_keys(t, legal)
    return {
        "me": (
            status,
            view["round"],
            seat in view.get("ready", ()),
            view.get("starts_at"),
            stood_in(view, seat),
        ),
        "me_row": (
            t["row"],
            t["row_depth"],
            status,
            # The row variant's buttons under each slot put the stack or waste top there.
            row_variant and (t["stack_top"] is None, t["waste_top"] is None),
        ),
        "me_stack": (t["stack_top"], t["stack_count"], status),
        "me_flip": (t["waste_top"], t["waste_count"], t["hand_count"], status),
        # What a screen reader is told about this seat (issue 41): the cards it can play now,
        # and its points once a round is over. Redrawn alone when only these change.
        "me_say": (status, tuple(playable), tuple(keys), _my_points(view, seat)),
    }


def _playable_keys(
    t: dict[str, Any], legal: list[dict[str, Any]]
) -> tuple[list[tuple[str, int, str]], list[str]]:
    """The cards a seat (its tableau `t`) can play onto a pile now, each with the key that
    plays it, and the keys (the buttons' data-key) of its `legal` actions: what scan mode
    steps through (the cards' keys, then a flip's and the ready button's)."""
    playable, keys = [], []
    flip = ready = False
    for action in legal:
        kind = action.get("type")
        if kind == "play":
            if action.get("to") == "row":
                continue
            source = action.get("from")
            if source == "row":
                card, key = t["row"][action["index"]], str(action["index"] + 1)
            else:
                card, key = t[f"{source}_top"], "S" if source == "stack" else "W"
            if card:
                playable.append((card["color"], card["value"], key))
                keys.append(key.lower())
        elif kind == "flip":
            flip = True
        elif kind == "ready":
            ready = True
    return playable, keys + [" "] * flip + ["r"] * ready


def _my_points(view: dict[str, Any], seat: int) -> tuple[int | None, int | None]:
    """(`seat`'s points in the last round scored, its total) once a round is over."""
    if view["status"] not in ("round_over", "finished") or not view.get("scores"):
        return None, None
    mine = next((p for p in view["players"] if p["seat"] == seat), None)
    return view["scores"][-1]["points"][seat], (mine or {}).get("total")


def context(
    view: dict[str, Any],
    seat: int | None,
    legal: list[dict[str, Any]],
    events: list[dict[str, Any]],
    words: Words,
) -> dict[str, Any]:
    """Everything the Ligretto table template draws, for `seat` (None: a spectator); the
    parts this layout draws itself (`draw_part`) are drawn in the reader's `words`.

    What only some parts draw (every seat's strip, the reader's own cards, the piles, his
    sentence, the match's end) is made when first asked, once (`_Drawing`): a change's
    context draws one part or two (a flip: a seat's waste and hand, the mover's own), a page
    draws them all. The template calls each (Django calls a callable it is handed)."""
    drawing = _Drawing(view, seat, legal, events, words)
    message = view.get("message")
    return {
        "drawing": drawing,
        "tableaus": drawing.tableaus,
        "center": drawing.center,
        "names": drawing.names,
        # The change being pushed: its piles and players glow once (static/css/table.css).
        "just_piles": drawing.just_piles,
        "just_seats": drawing.just_seats,
        "message": _named(message, drawing.players()) if message else message,
        "me": drawing.me,
        "match_end": drawing.match_end,
        # The rules name the match's winners once its last round is over (L6).
        "final_round": view.get("status") == "round_over" and "match_winners" in view,
        "stood_in": drawing.stood,
        "words": words,
        # The seat's sentence for a screen reader (`me_say`), drawn here.
        "say": drawing.say,
    }


class _Drawing:
    """One context's pieces (one reader, one language, one change), each made when a part
    first asks for it and kept for the others: a part draws from the view's own objects and
    only what it shows."""

    def __init__(
        self,
        view: dict[str, Any],
        seat: int | None,
        legal: list[dict[str, Any]],
        events: list[dict[str, Any]],
        words: Words,
    ) -> None:
        self.view, self.seat, self.words = view, seat, words
        self.stood = stood_in(view, seat)
        # A bot plays a stood-in seat: its person gets no move until he takes it back.
        self.legal = [] if self.stood else legal
        self.status: str | None = view.get("status")
        played = [e for e in events if e.get("type") == "card_played"]
        self.just_piles = {e["pile"] for e in played}
        self.just_seats = {e["seat"] for e in played}
        self._players: dict[int, dict[str, Any]] | None = None
        self._names: dict[int, str] | None = None
        self._tableaus: list[dict[str, Any]] | None = None
        self._center: list[dict[str, Any]] | None = None
        self._me: dict[str, Any] | None = None
        self._say: str | None = None

    def players(self) -> dict[int, dict[str, Any]]:
        """The view's players by seat, each marked away (a bot plays for him soon) only
        while the match goes on: once it is over, leaving the table is what everyone does."""
        if self._players is None:
            over = self.status in OVER
            self._players = {
                p["seat"]: dict(p, away=away(p) and not over) for p in self.view["players"]
            }
        return self._players

    def names(self) -> dict[int, str]:
        if self._names is None:
            self._names = {p["seat"]: p["name"] for p in self.view["players"]}
        return self._names

    def tableaus(self) -> list[dict[str, Any]]:
        if self._tableaus is None:
            players, words = self.players(), self.words
            self._tableaus = [
                _seat(t, players[t["seat"]], t["seat"] in self.just_seats, words)
                for t in self.view.get("tableaus", ())
            ]
        return self._tableaus

    def center(self) -> list[dict[str, Any]]:
        if self._center is None:
            self._center = _piles(self.view["center"], self.names(), self.just_piles, self.words)
        return self._center

    def mine(self) -> dict[str, Any]:
        """The reader's own tableau, from his view."""
        tableau: dict[str, Any] = self.view["tableaus"][self.seat]
        return tableau

    def me(self) -> dict[str, Any] | None:
        """The reader's own tableau as his part draws it: his row, stack, waste and hand."""
        seat = self.seat
        if self._me is None and seat is not None and seat < len(self.view.get("tableaus", ())):
            self._me = dict(self.mine(), row=self.row, stack=self.stack, flip=self.flip)
        return self._me

    def row(self) -> str:
        variant = bool((self.view.get("options") or {}).get("row_variant"))
        return _draw_row(self.mine(), self.status, self.stood, variant, self.words)

    def stack(self) -> str:
        return _draw_stack(self.mine(), self.status, self.stood, self.words)

    def flip(self) -> str:
        assert self.seat is not None  # the reader's own part: he has a seat
        return _draw_flip(self.mine(), self.seat, self.status, self.stood, self.words)

    def say(self) -> str:
        if self._say is None:
            seat, view = self.seat, self.view
            playable: list[tuple[str, int, str]] = []
            keys: list[str] = []
            points: tuple[int | None, int | None] = (None, None)
            if seat is not None:
                if seat < len(view.get("tableaus", ())):
                    playable, keys = _playable_keys(view["tableaus"][seat], self.legal)
                points = _my_points(view, seat)
            self._say = _draw_say(self.status, playable, keys, points, self.words)
        return self._say

    def centre(self) -> str:
        """The centre as a whole (`center`): every open pile drawn, the closed ones listed."""
        return _draw_centre(self.center(), self.words)

    def own(self) -> str:
        """The reader's own part as a whole (`me`): his cards, his sentence, the ready button."""
        assert self.seat is not None  # the reader's own part: he has a seat
        cards = ("", "", "") if self.me() is None else (self.row(), self.stack(), self.flip())
        return _draw_own(self.view, self.seat, self.stood, *cards, self.say(), self.words)

    def match_end(self) -> str:
        return describe_end(self.view["options"])


# What the parts draw beside the view's own data, so that their template uses plain variables
# and Django's own tags: each card's HTML (games/cards.py), the game's word for its colour (its
# `TERMS` entry, which the template translates in the reader's language) and the names of a
# pile's players. Each is made only if a part that shows it is drawn (Django calls a callable
# it is handed): a context is built for every language and seat a change is drawn for, and
# most of its parts are not drawn.


def _colour(code: str, context: str = "card colour") -> str:
    """This game's word for a colour `code` (the catalogue's text, worded by the template)."""
    return TERMS.get((context, code), code)


# Every face this game can show (both presets' colours and values, big and small, and the
# empty slot), drawn once when the layout is imported: a move looks its cards' HTML up here,
# so no move of a running process enters games/cards.py (the walk, docs/architecture.md).
_Face = tuple[str | None, int | None, bool]
_FACES: Mapping[_Face, str] = MappingProxyType(
    {
        (colour, value, small): colour_face(colour, value, small)
        for colour in {c for preset in COLORS.values() for c in preset}
        for value in range(1, max(TOP_VALUE.values()) + 1)
        for small in (False, True)
    }
    | {(None, None, small): colour_face(None, None, small) for small in (False, True)}
)


def _face(card: dict[str, Any] | None, small: bool = False) -> _Face:
    return (card["color"], card["value"], small) if card else (None, None, small)


def _piles(
    center: list[dict[str, Any]], names: dict[int, str], just: set[int], words: Words
) -> list[dict[str, Any]]:
    return [_pile(p, names, just, words) for p in center]


def _seat(t: dict[str, Any], player: dict[str, Any], just: bool, words: Words) -> dict[str, Any]:
    """A seat's tableau as its strip draws it (`seat-N`), and its waste and hand alone."""
    return dict(
        t,
        player=player,
        drawn=later(_draw_seat, t, player, just, words),
        flip=later(_draw_seat_flip, t, words),
    )


def _pile(
    pile: dict[str, Any], names: dict[int, str], just: set[int], words: Words
) -> dict[str, Any]:
    """A centre pile as the centre draws it: its colour's word and letter (a closed one's),
    and an open one drawn (`pile-N`)."""
    return dict(
        pile,
        colour=_colour(pile["color"]),
        letter=_colour(pile["color"], "card colour, as a letter"),
        drawn=later(_draw_pile, pile, names, pile["pile"] in just, words),
    )


# --------------------------------------------------------------------------- parts drawn here


# The parts a move redraws (a seat, its waste and hand, a pile, the centre when a pile opens or
# closes, the reader's own part whole or its row, stack, waste and hand, his sentence), drawn
# in Python: the same bytes as the template's partials drew (squeezed, as every pushed part
# is), at well under half the cost of a change (docs/performance.md, "Ligretto's parts drawn in
# Python", "the centre and the own part"). The page's template shows the very same drawing
# (`t.drawn`, `t.flip`, `drawing.centre`, `drawing.own`), so each part is drawn one way. Held
# to the bytes the templates drew by tests/tables/test_drawn_parts.py. The status, the scores
# and the ways out stay the template's: they word the engine's Sentences, name the site's
# URLs and draw its chart (and a change draws them seldom: a round's start and end).


def draw_part(context: dict[str, Any], part: str) -> str | None:
    """The HTML of `part` if this layout draws it itself (None: the template's partial does)."""
    drawing: _Drawing = context["drawing"]
    if part.startswith("seat-"):
        if part.endswith("-flip"):
            return _draw_seat_flip(drawing.view["tableaus"][int(part[5:-5])], drawing.words)
        t = drawing.view["tableaus"][int(part[5:])]
        just = t["seat"] in drawing.just_seats
        return _draw_seat(t, drawing.players()[t["seat"]], just, drawing.words)
    if part == "me_flip":
        return drawing.flip()
    if part == "me_stack":
        return drawing.stack()
    if part == "me_row":
        return drawing.row()
    if part == "me_say":
        return drawing.say()
    if part == "center":
        return drawing.centre()
    if part == "me":
        return drawing.own()
    if part.startswith("pile-"):
        number = int(part[5:])
        pile = next(p for p in drawing.view["center"] if p["pile"] == number)
        just = number in drawing.just_piles
        return _draw_pile(pile, drawing.names(), just, drawing.words)
    return None


def _draw_seat(t: dict[str, Any], player: dict[str, Any], just: bool, words: Words) -> str:
    """A seat's strip (`seat-N`): its player (a bot, away), total, row, stack, waste and hand
    and its cards in the centre; glowing when it just played."""
    seat, marks = t["seat"], (" just" if just else "") + (" away" if player["away"] else "")
    tags = ""
    if player["bot"]:
        bot = words.gettext("bot")
        tags = f' <span class="tag">{bot}</span>'
    if player["away"]:
        until, soon = player.get("away_until"), ""
        away = words.gettext("away")
        if until:
            soon = " · " + words.gettext('a bot plays in <span class="secs"></span>&nbsp;s')
        when = f' data-until="{escape(until)}"' if until else ""
        tags += f' <span class="tag away"{when}>{away}{soon}</span>'
    total, stack = words.gettext("Total points"), words.gettext("Stack")
    centre, short = words.gettext("Centre"), words.pgettext("in the centre, as one letter", "C")
    within = words.gettext("In the centre")
    row = "".join(_FACES[_face(c, True)] for c in t["row"])
    # Squeezed whole: a player's name is his own text.
    return squeeze(
        f' <article id="lg-seat-{seat}" class="tableau s{seat}{marks}" data-seat="{seat}"'
        f' data-seat-box data-self-hidden> <header><span class="name">'
        f'{escape(str(player["name"]))}</span>{tags} <span class="total" title="{total}">'
        f'{player["total"]}</span></header> <div class="mini-row">{row}</div> <dl'
        f' class="counts"> <div><dt>{stack}</dt><dd class="stack">'
        f'{_FACES[_face(t["stack_top"], True)]}<span class="n">{t["stack_count"]}</span></dd>'
        f'</div> {_draw_seat_flip(t, words)} <div><dt>{centre}</dt><dd class="n in-center"'
        f' data-short="{short}" title="{within}">{t["in_center"]}</dd></div> </dl> </article> '
    )


def _draw_seat_flip(t: dict[str, Any], words: Words) -> str:
    """A seat's waste and hand, as its strip shows them (`seat-N-flip`)."""
    # Each word asked outside the f-strings: the site's extraction does not read inside them.
    waste, hand = words.gettext("Waste"), words.gettext("Hand")
    short, title = words.pgettext("in hand, as one letter", "H"), words.gettext("In hand")
    seat = t["seat"]
    return (
        f'<div id="lg-seat-{seat}-waste"><dt>{waste}</dt><dd class="waste">'
        f'{_FACES[_face(t["waste_top"], True)]}<span class="n">{t["waste_count"]}</span></dd>'
        f'</div> <div id="lg-seat-{seat}-hand"><dt>{hand}</dt><dd class="n hand"'
        f' data-short="{short}" title="{title}">{t["hand_count"]}</dd></div>'
    )


def _said_colour(card: dict[str, Any], words: Words) -> str:
    """A card's colour in the reader's words, escaped (as `{% translate ... as colour %}`)."""
    return escape(words.pgettext("card colour", _colour(card["color"])))


def _draw_row(
    t: dict[str, Any], status: str | None, stood: bool, variant: bool, words: Words
) -> str:
    """The reader's row (`me_row`): each card a button, and in the row variant (L16) the
    buttons that put the stack's or the waste's top onto it."""
    idle = status != "playing" or stood
    slots = []
    for i, card in enumerate(t["row"]):
        n = i + 1
        if card:
            said = words.gettext("%(colour)s %(value)s, row slot %(slot)s, key %(slot)s") % {
                "colour": _said_colour(card, words),
                "value": card["value"],
                "slot": n,
            }
        else:
            said = words.gettext("empty, row slot %(slot)s, key %(slot)s") % {"slot": n}
        off = "disabled" if not card or idle else ""
        onto = ""
        if variant and card:
            stack = words.gettext("Put your stack top onto row slot %(slot)s (S↓)") % {"slot": n}
            waste = words.gettext("Put your waste top onto row slot %(slot)s (W↓)") % {"slot": n}
            no_stack = "disabled" if not t["stack_top"] or idle else ""
            no_waste = "disabled" if not t["waste_top"] or idle else ""
            onto = (
                f'<span class="to-row"> <button type="button" id="me-row-{i}-from-stack" ws-send'
                f' hx-vals=\'{{"type": "play", "from": "stack", "to": "row", "index": {i}}}\''
                f' aria-label="{stack}" {no_stack}>S↓</button> <button type="button"'
                f' id="me-row-{i}-from-waste" ws-send hx-vals=\'{{"type": "play", "from":'
                f' "waste", "to": "row", "index": {i}}}\' aria-label="{waste}" {no_waste}>W↓'
                "</button> </span>"
            )
        slots.append(
            f'<div class="row-slot"> <button type="button" id="me-row-{i}" class="slot" ws-send'
            f' hx-vals=\'{{"type": "play", "from": "row", "index": {i}}}\' data-key="{n}"'
            f' data-command="p {n}" {off}> <span class="visually-hidden">{said}</span> <span'
            f' aria-hidden="true">{_FACES[_face(card)]}<kbd>{n}</kbd></span> </button> {onto}'
            " </div>"
        )
    label = words.gettext("Your row")
    # Squeezed whole, as the template's drawing was: every run of whitespace one space.
    return squeeze(
        f'<div class="my-row" id="lg-me-row" data-position role="group" aria-label="{label}">'
        f" {' '.join(slots)} </div>"
    )


def _draw_stack(t: dict[str, Any], status: str | None, stood: bool, words: Words) -> str:
    """The reader's Ligretto stack (`me_stack`)."""
    top, left = t["stack_top"], t["stack_count"]
    off = " disabled" if not top or status != "playing" or stood else " "
    if top:
        said = words.ngettext(
            "Ligretto stack: %(colour)s %(value)s, %(left)s left, key S",
            "Ligretto stack: %(colour)s %(value)s, %(left)s left, key S",
            left,
        ) % {"colour": _said_colour(top, words), "value": top["value"], "left": left}
    else:
        said = words.gettext("Ligretto stack: empty, key S")
    count = words.ngettext("%(left)s left", "%(left)s left", left) % {"left": left}
    return (
        '<button type="button" id="me-stack" class="slot stack" ws-send hx-vals=\'{"type":'
        f' "play", "from": "stack"}}\' data-key="s" data-command="p s"{off}> <span'
        f' class="visually-hidden">{said}</span> <span aria-hidden="true">'
        f'{_FACES[_face(top)]}<kbd>S</kbd><span class="n">{count}</span></span> </button>'
    )


def _draw_flip(t: dict[str, Any], seat: int, status: str | None, stood: bool, words: Words) -> str:
    """The reader's waste and hand (`me_flip`): all a flip changes of his own part."""
    top, waste, hand = t["waste_top"], t["waste_count"], t["hand_count"]
    off = " disabled" if not top or status != "playing" or stood else " "
    if top:
        said = words.gettext("Waste: %(colour)s %(value)s, key W") % {
            "colour": _said_colour(top, words),
            "value": top["value"],
        }
    else:
        said = words.gettext("Waste: empty, key W")
    no_flip = " disabled" if status != "playing" or stood or not hand and not waste else " "
    flip = words.ngettext(
        "Flip three cards off your hand (%(cards)s in hand), key space",
        "Flip three cards off your hand (%(cards)s in hand), key space",
        hand,
    ) % {"cards": hand}
    in_hand = words.ngettext("%(cards)s in hand", "%(cards)s in hand", hand) % {"cards": hand}
    space = words.gettext("space")
    return (
        '<button type="button" id="me-waste" class="slot waste" ws-send hx-vals=\'{"type":'
        f' "play", "from": "waste"}}\' data-key="w" data-command="p w"{off}> <span'
        f' class="visually-hidden">{said}</span> <span aria-hidden="true">'
        f'{_FACES[_face(top)]}<kbd>W</kbd><span class="n">{waste}</span></span> </button>'
        ' <button type="button" id="me-flip" class="slot hand" ws-send hx-vals=\'{"type":'
        f' "flip"}}\' data-key=" " data-command="d"{no_flip}> <span class="visually-hidden">'
        f'{flip}</span> <span aria-hidden="true"><span class="card back s{seat}"></span>'
        f'<kbd>{space}</kbd><span class="n">{in_hand}</span></span> </button>'
    )


def _draw_pile(pile: dict[str, Any], names: dict[int, str], just: bool, words: Words) -> str:
    """An open pile of the centre (`pile-N`): its top card, whose it is, how many it holds
    (glowing when a card was just played onto it)."""
    number, top, owner, owners = pile["pile"], pile["top"], pile.get("owner"), pile.get("owners")
    colour = escape(words.pgettext("card colour", _colour(pile["color"])))
    cards = words.ngettext("%(n)s card", "%(n)s cards", pile["count"]) % {"n": pile["count"]}
    whose = mark = ""
    if owner is not None:
        whose = f"{escape(names.get(owner, ''))}: "
        mark = f' s{owner}" data-owner="{owner}'
    held = " "
    if owners:
        said = words.gettext("Whose cards:")
        named = ", ".join(escape(names.get(o, "")) for o in owners)
        marks = "".join(f'<i class="s{o}"></i>' for o in owners)
        held = f' <span class="owners" role="img" aria-label="{said} {named}">{marks}</span> '
    glow = (" just", " data-arrived") if just else ("", "")
    # Squeezed whole: a player's name is the players' own text.
    return squeeze(
        f'<div class="pile{glow[0]}"{glow[1]} id="pile-{number}" data-pile="{number}"'
        f' data-say="all" data-say-text="{whose}{colour} {top}" title="{cards}"> <span'
        f' class="card c-{escape(pile["color"])}{mark}" role="img" aria-label="{colour} {top}">'
        f'<span class="v">{top}</span><span class="sym" aria-hidden="true"></span></span>{held}'
        "</div>"
    )


def _draw_centre(piles: list[dict[str, Any]], words: Words) -> str:
    """The centre (`center`): each open pile (`pile-N`, drawn by itself), and one line of the
    closed ones, each by its colour's letter and the seats whose cards it holds."""
    drawn = [p["drawn"]() for p in piles if not p["closed"]]
    if piles:
        inside = " ".join(drawn) if drawn else ""
    else:
        inside = '<p class="empty">' + words.gettext("No piles yet: any 1 starts one.") + "</p>"
    closed = []
    for pile in piles:
        if not pile["closed"]:
            continue
        colour = escape(words.pgettext("card colour", pile["colour"]))
        said = words.gettext("%(colour)s, closed") % {"colour": colour}
        letter = escape(words.pgettext("card colour, as a letter", pile["letter"]))
        owners = ""
        if pile.get("owners"):
            marks = "".join(f'<i class="s{o}"></i>' for o in pile["owners"])
            owners = f'<span class="owners closed-owners">{marks}</span>'
        closed.append(
            f'<span class="closed c-{escape(pile["color"])}" id="closed-{pile["pile"]}"'
            f' data-say="all" title="{said}" data-say-text="{said}">{letter}</span>{owners}'
        )
    label, closed_word = words.gettext("Centre piles"), words.pgettext("piles", "Closed:")
    # Squeezed whole, as the template's drawing was: a closed colour's word is the catalogue's.
    return squeeze(
        f' <section id="lg-center" data-position class="center" aria-label="{label}">'
        f' <div class="piles"> {inside} </div> <p class="closed-piles">{closed_word}'
        f" {''.join(closed)}</p> </section> "
    )


def _draw_own(
    view: dict[str, Any],
    seat: int,
    stood: bool,
    row: str,
    stack: str,
    flip: str,
    say: str,
    words: Words,
) -> str:
    """The reader's own part (`me`): around his row, stack, waste and hand and his sentence,
    the stand-in's notice and, once a round is over, the ready button (or the wait)."""
    status = view["status"]
    back = ""
    if stood:
        bot = words.gettext("A bot plays your seat for now.")
        take = words.gettext("Take my seat back")
        back = (
            f'<div class="stood-in" id="lg-stood-in" role="status"><p>{bot}</p><form'
            ' method="get" action=""><button type="submit" id="take-seat-back"'
            f' class="primary">{take}</button></form></div>'
        )
    ready = ""
    if status == "round_over":
        if seat in view.get("ready", ()) or stood:
            # Asked outside the f-string: the site's extraction does not read inside one.
            waiting = words.gettext("Waiting for the others…")
            ready = f'<p class="waiting">{waiting}</p>'
        else:
            if "match_winners" in view:  # the match's last round (L6)
                label = words.gettext("Show the result")
            else:
                label = words.gettext("Ready for round %(round)s") % {"round": view["round"] + 1}
            mine = words.gettext("Your seed (optional)")
            ready = (
                '<button type="button" id="me-ready" class="primary" ws-send hx-vals=\'{"type":'
                ' "ready"}\' hx-include="#me-seed" data-key="r">'
                f'{label} <kbd>R</kbd></button><details class="client-seed"><summary>{mine}'
                '</summary><input type="text" id="me-seed" name="seed" maxlength="64"'
                ' pattern="[A-Za-z0-9_\\-]{1,64}" autocomplete="off" spellcheck="false"'
                f' aria-label="{mine}"></details>'
            )
    label = words.gettext("Your cards")
    # Squeezed whole, as the template's drawing was.
    return squeeze(
        f' <section id="lg-me" class="me s{seat}" data-own-area aria-label="{label}"'
        f' data-status="{escape(str(status))}"> {back} {row} <div class="my-piles"'
        f' id="lg-me-piles" data-position> {stack} {flip} </div> {say} {ready} </section> '
    )


def _draw_say(
    status: str | None,
    playable: list[Any],
    keys: list[str],
    points: tuple[int | None, int | None],
    words: Words,
) -> str:
    """What a screen reader is told of the reader's cards (`me_say`)."""
    said = ""
    if status == "playing" and playable:
        cards = [
            words.gettext("%(colour)s %(value)s (key %(key)s)")
            % {
                "colour": escape(words.pgettext("card colour", _colour(c))),
                "value": v,
                "key": escape(k),
            }
            for c, v, k in playable
        ]
        said = words.gettext("You can play:") + " " + ", ".join(cards) + "."
    elif points[0] is not None:
        said = words.gettext("Your points this round: %(points)s; your total: %(total)s.") % {
            "points": points[0],
            "total": points[1],
        }
    legal = "".join(f"{escape(k)}|" for k in keys)
    return (
        f'<p id="lg-me-say" class="visually-hidden" data-say="mine" data-legal-keys="{legal}">'
        f"{said}</p>"
    )


def partial(context: dict[str, Any], part: str) -> str:
    """Name the partial that draws `part`, setting in `context` what it draws."""
    if part.startswith("seat-"):
        seat, _, piece = part.removeprefix("seat-").partition("-")
        context["t"] = context["drawing"].tableaus()[int(seat)]
        return f"seat_{piece}" if piece else "seat"
    return part


def _named(message: str | None, players: dict[int, dict[str, Any]]) -> str | None:
    """Put the players' names where the engine's sentence names seats ("seat 1 emptied…").

    A Sentence keeps its template, with the names as its parameters, so that the site still
    words it in each reader's language; a plain English one (from an older snapshot) has its
    seats replaced in the text.
    """
    if not message:
        return message
    if isinstance(message, Sentence):
        return _names_in(message, players)

    def names(match: re.Match[str]) -> str:
        seats = [int(n) for n in match.group(1).split(", ")]
        if any(n not in players for n in seats):
            return match.group(0)
        return " and ".join(str(players[n]["name"]) for n in seats)

    return _SEAT.sub(names, message)


def _names_in(said: Sentence, players: dict[int, dict[str, Any]]) -> Sentence:
    def name(value: Sentence) -> str | None:
        seats = value.params.get("seats", [value.params.get("seat")])
        if value.template in (SEAT_WORDS, SEATS_WORDS) and all(s in players for s in seats):
            return listed([str(players[s]["name"]) for s in seats])
        return None

    return replaced(said, name)


def listed(names: list[str]) -> str:
    """Names as one list, "A, B and C" (a Sentence: the site joins them in its language)."""
    if len(names) < 2:
        return names[0] if names else ""
    return Sentence(_("%(names)s and %(last)s"), names=", ".join(names[:-1]), last=names[-1])


# --------------------------------------------------------------------------- words


# The words the site has for this game's codes, by the catalogue's context (`Game.term`): a
# card colour, and the letter the closed piles' row writes for it (German yellow and green
# both begin with G, so the catalogue may give two letters).
TERMS: dict[tuple[str, str], Sentence] = {
    ("card colour", "red"): term("card colour", "red"),
    ("card colour", "yellow"): term("card colour", "yellow"),
    ("card colour", "green"): term("card colour", "green"),
    ("card colour", "blue"): term("card colour", "blue"),
    ("card colour, as a letter", "red"): term("card colour, as a letter", "R"),
    ("card colour, as a letter", "yellow"): term("card colour, as a letter", "Y"),
    ("card colour, as a letter", "green"): term("card colour, as a letter", "G"),
    ("card colour, as a letter", "blue"): term("card colour, as a letter", "B"),
}


def describe_action(action: dict[str, Any], names: dict[int, str]) -> Sentence:
    """Say what a Ligretto action did, from the action alone (what the seat sent: public), for
    a replay's list of moves: a Sentence the site words in its reader's language. A refused
    play keeps what was sent, which the rules never checked: a place it names that makes no
    sense is said as "?"."""
    kind = action.get("type")
    if kind == "flip":
        return Sentence(_("flips the hand"))
    if kind == "ready":
        return Sentence(_("is ready"))
    if kind != "play":
        return Sentence(_("sends %(action)s"), action=str(kind))
    source = str(action.get("from"))
    if action.get("to") == "row":
        slot = _nth(action.get("index"))
        if source == "row":
            return Sentence(_("moves the row card to row slot %(slot)s"), slot=slot)
        if source == "stack":
            return Sentence(_("moves the stack to row slot %(slot)s"), slot=slot)
        if source == "waste":
            return Sentence(_("moves the waste to row slot %(slot)s"), slot=slot)
        return Sentence(_("moves a card to row slot %(slot)s"), slot=slot)
    pile = action.get("pile")
    if source == "row":
        n = _nth(action.get("index"))
        if pile is None:
            return Sentence(_("plays the row card %(n)s"), n=n)
        return Sentence(_("plays the row card %(n)s on pile %(pile)s"), n=n, pile=pile)
    if source == "stack":
        if pile is None:
            return Sentence(_("plays the stack"))
        return Sentence(_("plays the stack on pile %(pile)s"), pile=pile)
    if source == "waste":
        if pile is None:
            return Sentence(_("plays the waste"))
        return Sentence(_("plays the waste on pile %(pile)s"), pile=pile)
    if pile is None:
        return Sentence(_("plays a card"))
    return Sentence(_("plays a card on pile %(pile)s"), pile=pile)


def _nth(index: Any) -> str:
    return str(index + 1) if type(index) is int else "?"
