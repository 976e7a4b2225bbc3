"""Guests: a visitor practises against bots without an account, and may sign up afterwards.

Pressing "Practise" without an account makes a guest: a user with no password, in the
`guests` group (tables.guests), signed in to this browser's session. A guest practises and
watches; he cannot open or join rooms, play rated games or chat. Each guest is a user row, so
making them is limited per address like sign-ups. Signing up in the same session turns the
guest into a member in place (`claim`): his finished practice matches stay his.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.contrib.auth.models import Group
from django.db import transaction
from django.http import HttpRequest
from django.utils.translation import gettext as _

from lobby import ratelimit
from lobby.services import RoomError
from lobby.usernames import GUEST_PREFIX
from tables.guests import GROUP, is_guest, is_member

__all__ = ["claim", "is_guest", "is_member", "start"]

BACKEND = "django.contrib.auth.backends.ModelBackend"


def start(request: HttpRequest) -> Any:
    """Make a guest for this visitor and sign him in, or raise RoomError (429) when his
    address made too many guests lately."""
    address = ratelimit.client_address(request)
    if ratelimit.exhausted("guest", address, settings.GUESTS_PER_ADDRESS):
        raise RoomError(
            "too_many_guests",
            _("Too many guests came from your address recently; please sign up to play."),
            429,
        )
    with transaction.atomic():
        user = get_user_model().objects.create_user(f"{GUEST_PREFIX}{secrets.token_hex(4)}")
        user.groups.add(Group.objects.get_or_create(name=GROUP)[0])
    ratelimit.record("guest", address, settings.GUEST_WINDOW)
    login(request, user, backend=BACKEND)
    return user


def claim(request: HttpRequest, user: Any) -> None:
    """Make the guest `user`, who just chose a name and a password, a member (signed in)."""
    groups = Group.objects.filter(name=GROUP)
    user.groups.remove(*groups)
    user._is_guest = False
    login(request, user, backend=BACKEND)  # the password changed: a fresh session hash
