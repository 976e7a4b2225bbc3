"""Seat claims: a person takes a bot's seat of a match in progress at the next deal.

Nobody joins mid-round: an invited player who accepts while a round is played claims a seat a
bot has held from the start (`Player.claimed_by`, recorded through the move path's `touch`:
tables.presence.claim_seat), and the change that deals the next round seats him
(tables.live.room calls `on_deal` in memory, tables.live.store writes the `seated` rows in the
same transaction as the new round's row). So the bot leaves and the person sits in one version:
every page sees him in the seat with the new round. A claim on a seat that is no longer a
bot's by then is dropped, never applied; a match that ends before another deal drops it too.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from tables import current, signals
from tables.current import Table
from tables.models import Match, Player


def open_seat(player: Player) -> bool:
    """Whether a person may claim `player`'s seat: a bot has held it from the start (never a
    leaver's, whose name stays in the score history) and nobody claims it yet."""
    return player.user_id is None and not player.left and player.claimed_by_id is None


def claim_of(table: Table, user_id: int | None) -> int | None:
    """The seat `user_id` takes at `table`'s next deal, or None."""
    if user_id is None:
        return None
    return next((p.seat for p in table.players if p.claimed_by_id == user_id), None)


def on_deal(players: list[Player], now: datetime) -> tuple[list[Player], tuple[int, ...]]:
    """The players once the next round is dealt: each claimed bot seat is its claimant's.

    Returns the players (the same list when nobody claims a seat: a deal without claims
    costs nothing) and the seats whose claim this deal settled, seated or dropped. A seated
    claimant is away until his table page counts his socket (tables.presence.connected): a
    stand-in comes after the leaver's grace if he never opens it.
    """
    if all(p.claimed_by_id is None for p in players):
        return players, ()
    after, settled = [], []
    for player in players:
        if player.claimed_by_id is None:
            after.append(player)
            continue
        player = current.clone(player)
        if player.user_id is None and not player.left:  # still a bot's: the claimant sits
            player.user_id = player.claimed_by_id
            player.name = player.claimed_name
            player.stand_in = False
            player.away_since = now
        player.claimed_by_id = None
        player.claimed_name = ""
        after.append(player)
        settled.append(player.seat)
    return after, tuple(settled)


def seated(table: Table, seats: Iterable[int]) -> list[Player]:
    """The player rows of the seats a deal settled (the store writes them with the deal)."""
    chosen = set(seats)
    return [player for player in table.players if player.seat in chosen]


def announce(table: Table, players: Iterable[Player]) -> None:
    """Tell the layers above who sits where now, in the transaction that wrote the deal
    (`signals.seat_claimed`: the lobby's seat row)."""
    for player in players:
        if player.user_id is not None:
            signals.seat_claimed.send(
                sender=Match, match=table.match, seat=player.seat, user_id=player.user_id
            )
