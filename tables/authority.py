"""Who may act for a seat, judged when the action is made, not remembered from a connect.

A socket learns its seat when it opens; the player may leave the match (a bot plays his seat on),
be banned, or the seat may change hands while the socket stays open. So every move a transport
submits carries `holder(seat, user)`: a check the write path runs on the table it has locked (the
players are part of the table it holds anyway, so this costs no query), refusing a seat that is no
longer this user's. Group messages (`access_changed`, tables.sockets) tell open sockets at once;
this check is what makes a message that is late or lost harmless.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.engine import IllegalAction
from tables.current import Table


class NotYourSeat(IllegalAction):
    """The seat this socket was opened for is no longer the user's (he left, or was banned)."""

    status = 403

    def __init__(self) -> None:
        super().__init__("not_seated", "You no longer hold a seat at this table.")


def holds(table: Table, seat: int | None, user: Any) -> bool:
    """Whether `user` (signed in and active) plays `seat` of `table` now."""
    if seat is None or user is None or not getattr(user, "is_authenticated", False):
        return False
    if not getattr(user, "is_active", True):
        return False
    return table.seat_of(user) == seat


def holder(seat: int | None, user: Any) -> Callable[[Table], None]:
    """The check a transport passes to `tables.play.act`: raise unless `user` holds `seat`."""

    def check(table: Table) -> None:
        if not holds(table, seat, user):
            raise NotYourSeat

    return check
