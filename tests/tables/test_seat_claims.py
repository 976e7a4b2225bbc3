"""Seat claims: a person takes a bot's seat at the next deal, in the change that deals it."""

from __future__ import annotations

import pytest
from django.utils import timezone

from lobby import services
from lobby.models import Seat
from tables import claims, play, presence
from tables.live import rooms
from tables.models import ActionLog, Player
from tests.conftest import make_user
from tests.tables.helpers import set_state, started_room

pytestmark = pytest.mark.django_db


def _round_over(data):
    data.update(status="round_over", scores=[[1, 2, 3]], ready=[])
    return data


def _deal_next_round(room_id: int) -> None:
    """Everyone says ready: the last ready deals round 2."""
    for seat in range(3):
        play.act(room_id, seat, {"type": "ready"}, by_bot=seat != 0)


def test_a_claimed_bot_seat_changes_hands_in_the_change_that_deals_the_next_round():
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, game="ligretto", bots=2)
    assert presence.claim_seat(room.pk, 1, bob) == ""

    # Until the deal the bot plays on, and bob only watches (his page says he takes the seat).
    table = rooms.read(room.pk)
    claimed = table.players[1]
    assert claimed.is_bot and claimed.user_id is None and claimed.claimed_by_id == bob.pk
    assert table.seat_of(bob) is None and claims.claim_of(table, bob.pk) == 1
    assert not Seat.objects.filter(room=room, user=bob).exists()

    set_state(room.pk, _round_over)
    play.act(room.pk, 0, {"type": "ready"})
    play.act(room.pk, 1, {"type": "ready"}, by_bot=True)
    before = rooms.read(room.pk)
    assert before.players[1].user_id is None and before.progress.round == 1
    play.act(room.pk, 2, {"type": "ready"}, by_bot=True)  # the last ready deals round 2

    after = rooms.read(room.pk)
    seat = after.players[1]
    # One version: the new round and bob in the seat, the bot gone, the claim settled.
    assert after.version == before.version + 1 and after.progress.round == 2
    assert after.round is not None and after.round.number == 2
    assert seat.user_id == bob.pk and seat.name == "bob" and not seat.is_bot
    assert seat.claimed_by_id is None and seat.claimed_name == ""
    assert seat.away_since is not None  # until his table page counts his socket
    assert after.seat_of(bob) == 1
    row = Player.objects.get(match__room=room, seat=1)
    assert (row.user_id, row.name, row.claimed_by_id) == (bob.pk, "bob", None)
    # The room's seat row is his from the same transaction (the lobby's receiver).
    assert Seat.objects.get(room=room, index=1).user == bob
    assert ActionLog.objects.filter(match__room=room, version=after.version).count() == 1
    # The table rebuilt from the database agrees with the room's memory.
    rooms.forget(room.pk)
    again = rooms.read(room.pk)
    assert again.players[1].user_id == bob.pk and again.version == after.version
    # From this round on he plays the seat himself; the bot no longer may.
    view = after.view(1)
    assert view["players"][1] == {**view["players"][1], "name": "bob", "bot": False}


def test_a_claim_is_refused_when_the_seat_is_no_longer_a_bots():
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    room = started_room(alice, game="ligretto", bots=2)
    assert presence.claim_seat(room.pk, 0, bob) == "not_a_bot"  # alice's
    assert presence.claim_seat(room.pk, 1, bob) == ""
    assert presence.claim_seat(room.pk, 1, carol) == "claimed"  # bob takes it
    assert presence.claim_seat(room.pk, 2, bob) == "seated"  # one seat a person
    assert presence.claim_seat(room.pk, 2, alice) == "seated"
    services.leave_room(room.pk, alice)  # the last human: the room and its match close
    assert presence.claim_seat(room.pk, 2, carol) == "no_match"


def test_the_lobby_gives_the_lowest_free_bot_seat_and_refuses_clearly():
    from lobby.services import RoomError

    alice, bob, carol, dave = (make_user(n) for n in ("alice", "bob", "carol", "dave"))
    room = started_room(alice, game="ligretto", bots=2)
    assert services.take_bot_seat(room.pk, bob) == 1
    with pytest.raises(RoomError) as refused:
        services.take_bot_seat(room.pk, bob)
    assert refused.value.code == "already_claimed"
    assert services.take_bot_seat(room.pk, carol) == 2
    with pytest.raises(RoomError) as refused:
        services.take_bot_seat(room.pk, dave)
    assert refused.value.code == "room_full"


def test_a_deal_drops_a_claim_on_a_seat_that_is_no_longer_a_bots():
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, game="ligretto", bots=2)
    players = [Player(seat=0, user=alice, name="alice"), Player(seat=1, name="Bot")]
    players[1].claimed_by_id, players[1].claimed_name = bob.pk, "bob"
    players[1].user_id = alice.pk  # say a person sat there meanwhile
    after, settled = claims.on_deal(players, timezone.now())
    assert settled == (1,) and after[1].user_id == alice.pk and after[1].claimed_by_id is None
    assert players[1].claimed_by_id == bob.pk  # the table it was dealt from is left alone
    plain = [Player(seat=0, user=alice, name="alice")]
    assert claims.on_deal(plain, timezone.now()) == (plain, ())  # no claim: nothing made
    assert room.pk  # (a real room, so that the players' users exist)


def test_a_ban_drops_the_seat_he_would_take():
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, game="ligretto", bots=2)
    services.take_bot_seat(room.pk, bob)
    services.vacate_seats(bob)
    assert claims.claim_of(rooms.read(room.pk), bob.pk) is None
    set_state(room.pk, _round_over)
    _deal_next_round(room.pk)
    assert rooms.read(room.pk).players[1].user_id is None  # the bot stays


def test_a_claimant_may_watch_a_private_table_until_his_deal():
    from lobby import access
    from lobby.models import Room

    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    room = services.create_room(alice, "ligretto", 3, None, private=True)
    services.add_bots(room.pk, alice, count=2, level="normal")
    services.start_room(room.pk, alice)
    room = Room.objects.get(pk=room.pk)
    assert not access.may_view(room, bob)
    services.take_bot_seat(room.pk, bob)
    assert access.may_view(room, bob) and not access.may_view(room, carol)
