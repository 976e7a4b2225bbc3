"""Who is a guest: a visitor playing without an account, a user in the `guests` group.

A guest practises against bots and watches; he is never rated, never on a leaderboard, and
reads the chat without writing. Signing up turns the same user into a member, so his finished
practice matches stay his. Made and claimed by lobby.guests; asked here by every layer.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

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


def guests_among(user_ids: list[int]) -> set[int]:
    """Which of `user_ids` are guests (one query)."""
    users = get_user_model().objects.filter(pk__in=user_ids, groups__name=GROUP)
    return set(users.values_list("pk", flat=True))


def is_member(user: Any) -> bool:
    """Whether `user` is signed in with an account of his own (not a guest)."""
    return bool(getattr(user, "is_authenticated", False)) and not is_guest(user)
