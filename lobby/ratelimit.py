"""Count failed logins per username and per client address, in the cache."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache


def _keys(username: str, address: str) -> list[str]:
    return [f"login-fail:user:{username.lower()}", f"login-fail:addr:{address}"]


def is_blocked(username: str, address: str) -> bool:
    counts = cache.get_many(_keys(username, address)).values()
    return any(count >= settings.LOGIN_RATE_LIMIT for count in counts)


def record_failure(username: str, address: str) -> None:
    for key in _keys(username, address):
        # add() starts the window; incr() keeps its expiry, so the window is fixed, not sliding.
        if not cache.add(key, 1, timeout=settings.LOGIN_RATE_WINDOW):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, timeout=settings.LOGIN_RATE_WINDOW)


def reset(username: str, address: str) -> None:
    cache.delete_many(_keys(username, address))
