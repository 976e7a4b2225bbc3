"""A page kept up by the pushes alone is the page drawn afresh, after every move.

A browser's table gets the whole table once and then only the parts a change redraws, swapped
in by id (htmx's ws extension). A part whose data compared equal while its drawing changed
would leave the page wrong until the next whole table; this plays matches through the one
write path and, after every move, holds each seat's page and a spectator's, patched by every
pushed part, against `render_full` of the table as it stands.
"""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser
from itertools import pairwise

import pytest

from tables import play
from tables.live import render, rooms
from tests.conftest import make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db

VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
# The change's glow and the mark of a pile a card just reached: drawn with the change, not after.
GLOW = re.compile(r" just(?=[\s\"])| data-arrived(?=[\s>])")


class _Ids(HTMLParser):
    """Where each element with an id starts and ends in a text of HTML."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.lines = [0]
        for line in text.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.open: list[tuple[str, str | None, int]] = []
        self.found: dict[str, tuple[int, int]] = {}
        self.top: list[str] = []  # ids of the elements at the outermost level, in order
        self.feed(text)
        self.close()

    def _at(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def handle_starttag(self, tag, attrs):
        start, ident = self._at(), dict(attrs).get("id")
        if tag in VOID:
            end = start + len(self.get_starttag_text())
            if ident:
                self.found[ident] = (start, end)
                if not self.open:
                    self.top.append(ident)
            return
        self.open.append((tag, ident, start))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag("input", attrs)  # a self-closed element: ends where it starts

    def handle_endtag(self, tag):
        closed, ident, start = self.open.pop()
        assert closed == tag, f"</{tag}> closes <{closed}>"
        end = self._at() + len(f"</{tag}>")
        if ident:
            self.found[ident] = (start, end)
            if not self.open:
                self.top.append(ident)


def _swap(page: str, html: str) -> str:
    """Swap each outermost element of `html` into `page` by its id, as the ws extension does."""
    pieces = _Ids(html)
    places = _Ids(page).found
    for ident in pieces.top:
        assert ident in places, f"a pushed #{ident} has no place on the page"
    # The page is read once: its places are swapped from the last one back, so that each swap
    # leaves the places before it where they were. No pushed part sits inside another on the
    # page (that part's bytes would be sent twice in one push).
    spans = sorted((places[ident], ident) for ident in pieces.top)
    for (a, outer), (b, inner) in pairwise(spans):
        assert a[1] <= b[0], f"pushed #{inner} sits inside pushed #{outer} on the page"
    for at, ident in reversed(spans):
        start, end = pieces.found[ident]
        page = page[: at[0]] + html[start:end] + page[at[1] :]
    return page


def _drawn(page: str) -> str:
    return GLOW.sub("", page)


@pytest.mark.parametrize(
    ("game", "seats", "seed", "options", "most"),
    [
        ("ligretto-mini", 2, 1, {}, 2000),  # to the match's end (each deal is new)
        ("ligretto-mini", 2, 3, {"row_variant": True}, 2000),
        ("ligretto", 3, 2, {}, 120),  # a long round: its first moves
    ],
)
def test_a_page_patched_by_every_push_is_the_page_drawn_afresh(
    game, seats, seed, options, most, monkeypatch, django_capture_on_commit_callbacks
):
    users = [make_user(name) for name in ("alice", "bob", "carol")[:seats]]
    room = started_room(users[0], users[1:], game=game, **options)
    pushed: list[dict] = []
    monkeypatch.setattr(render, "wants_html", lambda room, alone: True)  # as if a browser listened
    monkeypatch.setattr(
        rooms,
        "send_inline",
        lambda delivery, listeners: pushed.extend([*delivery.private.values(), delivery.public]),
    )
    table = rooms.read(room.pk)
    pages = {seat: render.render_full(table, seat) for seat in (None, *range(seats))}
    rng = random.Random(seed)
    moves = 0
    statuses = set()
    while moves < most and table.match.status != "finished":
        choices = [
            (seat, action)
            for seat in range(seats)
            for action in table.game.legal_actions(table.state, seat)
        ]
        seat, action = rng.choice(choices)
        with django_capture_on_commit_callbacks(execute=True):  # the push after the commit
            play.act(room.pk, seat, action)
        moves += 1
        for message in pushed:
            if message["type"] == "table.public":
                for page in pages:
                    pages[page] = _swap(pages[page], message["html"])
            elif message["type"] == "table.private":
                pages[message["seat"]] = _swap(pages[message["seat"]], message["html"])
        pushed.clear()
        table = rooms.read(room.pk)
        statuses.add(table.status())
        for page, html in pages.items():
            assert _drawn(html) == _drawn(render.render_full(table, page)), (moves, page, action)
    if game == "ligretto-mini":
        assert {"round_over", "finished"} <= statuses  # a round's end redraws every seat
    else:
        assert moves == most
