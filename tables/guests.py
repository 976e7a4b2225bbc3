"""Who is a guest: a visitor playing without an account, a user in the `guests` group.

A guest practises against bots and watches; he is never rated, never on a leaderboard, and
reads the chat without writing. Signing up turns the same user into a member, so his finished
practice matches stay his. Made and claimed by lobby.guests; asked here by every layer.
"""

from __future__ import annotations

from typing import Any

GROUP = "guests"


def is_guest(user: Any) -> bool:
    """Whether `user` is a signed-in guest (an anonymous visitor is not one yet)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    known = getattr(user, "_is_guest", None)
    if known is None:
        known = user.groups.filter(name=GROUP).exists()
        user._is_guest = known  # asked several times per request: one query
    return bool(known)


def is_member(user: Any) -> bool:
    """Whether `user` is signed in with an account of his own (not a guest)."""
    return bool(getattr(user, "is_authenticated", False)) and not is_guest(user)
