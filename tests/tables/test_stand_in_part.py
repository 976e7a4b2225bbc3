"""The stand-in's person (issue 45, item 10): while a bot plays his seat, his own part says so,
offers his seat back and no move; taking it back gives him his moves again."""

from __future__ import annotations

import re

import pytest

from tables import presence
from tables.live import render, rooms
from tables.models import Player
from tests.conftest import make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db

NOTICE = "A bot plays your seat for now."


def _stand_in(room_id: int, seat: int, on: bool) -> None:
    Player.objects.filter(match__room_id=room_id, seat=seat).update(
        stand_in=on, bot_level="normal" if on else "", connections=1
    )
    rooms.forget(room_id)


def _live_buttons(html: str) -> list[str]:
    """The buttons of a part that send a move and are not disabled."""
    buttons = re.findall(r"<button\b[^>]*>", html)
    return [b for b in buttons if "ws-send" in b and "disabled" not in b]


@pytest.mark.parametrize("game", ["ligretto", "allegra"])
def test_a_stood_in_seat_sees_a_bot_plays_for_it_and_no_move(game):
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    room = started_room(alice, [bob, carol], game=game, rounds=1)
    table = rooms.read(room.pk)
    before = table.view(1)
    mine = render.render_part(table, before, "me", 1)
    assert NOTICE not in mine and _live_buttons(mine)

    _stand_in(room.pk, 1, True)
    table = rooms.read(room.pk)
    view = table.view(1)
    mine = render.render_part(table, view, "me", 1)
    assert NOTICE in mine
    assert 'id="take-seat-back"' in mine
    assert _live_buttons(mine) == []
    # A push redraws the whole part when the stand-in comes (its "me" piece changed).
    layout = render.layout_for(game)
    was = layout.private_pieces(before, before["legal"], 1)["me"]
    assert layout.private_pieces(view, view["legal"], 1)["me"] != was
    # The others' parts are theirs as before.
    assert NOTICE not in render.render_part(table, table.view(0), "me", 0)

    presence.connected(room.pk, 1)  # the page reloaded by "Take my seat back"
    table = rooms.read(room.pk)
    mine = render.render_full(table, 1)
    assert NOTICE not in mine and _live_buttons(mine)
