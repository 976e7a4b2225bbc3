"""Rooms the site arranges (a tournament's tables, the daily challenge): seated and started at
once through the lobby's write path, dealt from a fixed seed, with bots of a fixed seed."""

from __future__ import annotations

import pytest

from games.registry import GAMES
from lobby import services
from lobby.models import Room
from tables.models import Match

pytestmark = pytest.mark.django_db


def test_it_seats_people_and_bots_in_order_and_starts(alice, bob):
    room = services.arrange_room(alice, "ligretto", [bob, "easy", alice])
    room.refresh_from_db()
    assert room.status == Room.Status.PLAYING and room.private and room.seats == 3
    seats = list(room.seat_set.order_by("index").values_list("user__username", "bot_level"))
    assert seats == [("bob", ""), (None, "easy"), ("alice", "")]


def test_two_rooms_with_one_deal_seed_deal_every_seat_the_same_cards(alice, bob, carol, dave):
    first = services.arrange_room(alice, "ligretto", [alice, bob, "normal"], deal_seed=12345)
    second = services.arrange_room(alice, "ligretto", [carol, dave, "fast"], deal_seed=12345)
    other = services.arrange_room(alice, "ligretto", [carol, dave, "fast"], deal_seed=54321)
    game = GAMES["ligretto"]

    def seat_views(room: Room) -> list[object]:
        match = Match.objects.get(room=room)
        state = game.load(match.rounds.get().state)
        return [game.player_view(state, s) for s in range(3)]

    assert Match.objects.get(room=first).seed == 12345
    assert seat_views(first) == seat_views(second)
    assert seat_views(first) != seat_views(other)


def test_the_bots_seed_goes_with_the_match(alice):
    room = services.arrange_room(alice, "ligretto-mini", [alice, "normal"], bot_seed=7)
    assert Match.objects.get(room=room).bot_seed == 7
    fresh = services.arrange_room(alice, "ligretto-mini", [alice, "normal"])
    assert Match.objects.get(room=fresh).bot_seed is None


def test_a_seat_count_the_game_refuses_is_a_clear_error(alice):
    with pytest.raises(services.RoomError):
        services.arrange_room(alice, "ligretto-mini", [alice, "normal", "normal"])
