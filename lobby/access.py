"""Who may see a room: a public room anyone; a private one only its people and link holders.

A private room is not listed anywhere. Its page, its table, its sockets and its API answers
are for: whoever holds (or held) a seat there, whoever opened its invite link (remembered in the
session as `invited_rooms`; the API passes the code as `invite`), and staff. Everyone else gets
the same 404 as for a room that does not exist, so a private room's number reveals nothing.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from lobby.models import Room

SESSION_KEY = "invited_rooms"


def invited_rooms(session: Any) -> list[int]:
    """The rooms whose invite link this session opened (the newest few)."""
    if session is None:
        return []
    try:
        rooms = session.get(SESSION_KEY, [])
    except Exception:  # noqa: BLE001 - a socket without a session store
        return []
    return [r for r in rooms if isinstance(r, int)]


def remember_invite(session: Any, room_id: int) -> None:
    rooms = invited_rooms(session)
    if room_id not in rooms:
        # The newest few are enough; the list must not grow without end in the session.
        session[SESSION_KEY] = [*rooms, room_id][-20:]


def is_member(room: Room, user: Any) -> bool:
    """Whether `user` holds a seat in the room now, played its match, or the one it rematches."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if room.seat_set.filter(user=user).exists():
        return True
    from tables.models import Player

    # A bot's seat he takes at the next deal (an invitation accepted) lets him watch till then.
    if Player.objects.filter(Q(user=user) | Q(claimed_by=user), match__room=room).exists():
        return True
    # A private rematch is open to the earlier room's people, link or not.
    return (
        room.rematch_of_id is not None
        and Player.objects.filter(match__room_id=room.rematch_of_id, user=user).exists()
    )


def may_view(room: Room, user: Any, invited: bool = False) -> bool:
    """Whether `user` may open the room's page, table and sockets (see the module docstring)."""
    if not room.private or invited:
        return True
    if user is not None and getattr(user, "is_staff", False) and user.is_active:
        return True
    return is_member(room, user)


def may_view_id(room_id: int, user: Any, session: Any = None) -> bool:
    """`may_view` by id, for sockets: False also when there is no such room."""
    room = Room.objects.filter(pk=room_id).only("pk", "private").first()
    if room is None:
        return False
    return may_view(room, user, room_id in invited_rooms(session))
