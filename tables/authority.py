"""Who may act for a seat, judged when the action is made, not remembered from a connect.

A socket learns its seat when it opens; the player may leave the match (a bot plays his seat on),
be banned, or the seat may change hands while the socket stays open. So every move a transport
submits carries `holder(seat, user)`: a check the write path runs on the table it has locked (the
players are part of the table it holds anyway, so this costs no query), refusing a seat that is no
longer this user's. Group messages (`access_changed`, tables.sockets) tell open sockets at once;
this check is what makes a message that is late or lost harmless.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tables.current import Table
from tables.errors import PlayError


class NotYourSeat(PlayError):
    """The seat this socket was opened for is no longer the user's (he left, or was banned)."""

    def __init__(self) -> None:
        super().__init__("not_seated", "You no longer hold a seat at this table.", 403)


def holds(table: Table, seat: int | None, user: Any) -> bool:
    """Whether `user` (signed in and active) plays `seat` of `table` now."""
    if seat is None or user is None or not getattr(user, "is_authenticated", False):
        return False
    if not getattr(user, "is_active", True):
        return False
    return table.seat_of(user) == seat


@dataclass(frozen=True)
class Holder:
    """The check a transport passes to `tables.play.act`: raise unless the user holds `seat`.

    Plain data (the seat, the user's id and whether his account is active), so that a move
    forwarded to the room's owner process carries its check along (`tables.live.owners`).
    """

    seat: int | None
    user_id: int | None  # None: not signed in
    active: bool = True

    def __call__(self, table: Table) -> None:
        if not self.holds(table):
            raise NotYourSeat

    def holds(self, table: Table) -> bool:
        if self.seat is None or self.user_id is None or not self.active:
            return False
        # As Table.seat_of judges it, from the user's id alone.
        held = (p.seat for p in table.players if p.user_id == self.user_id and not p.left)
        return next(held, None) == self.seat

    def data(self) -> dict[str, Any]:
        return {"seat": self.seat, "user": self.user_id, "active": self.active}

    @classmethod
    def of(cls, data: dict[str, Any]) -> Holder:
        return cls(seat=data["seat"], user_id=data["user"], active=bool(data["active"]))


def holder(seat: int | None, user: Any) -> Holder:
    """The check for `user` (as he is now) holding `seat`."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Holder(seat, None, False)
    return Holder(seat, user.pk, bool(getattr(user, "is_active", True)))
