"""Bearer tokens: who a request or a socket speaks for, and limits on how fast."""

from __future__ import annotations

import math
import time
from datetime import timedelta
from typing import Any

from django.core.cache import cache
from django.utils import timezone

from api.models import ApiToken, hash_token

# `last_used_at` is for people reading their profile: a minute's precision is plenty, and it
# saves a write on nearly every call.
LAST_USED_PRECISION = timedelta(minutes=1)


def user_for_token(raw: Any) -> Any:
    """Return the active user `raw` is a token of, or None (unknown, revoked, or banned)."""
    if not isinstance(raw, str) or not raw or len(raw) > 200:
        return None
    token = ApiToken.objects.select_related("user").filter(key=hash_token(raw)).first()
    # There is no ban yet beyond Django's own flag: an inactive user's tokens stop working.
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def bearer(header: str) -> str | None:
    """Return the token of an `Authorization: Bearer <token>` header, or None."""
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def limit(scope: str, who: Any, count: int, window: int) -> int:
    """Count one call of `who` in `scope`; return 0, or the seconds to wait once over `count`.

    A fixed window that starts with the first call (Django's cache: Redis when several
    processes serve); its start is kept beside the count so that the wait is exact.
    """
    now = time.time()
    key = f"api-rl:{scope}:{who}"
    if cache.add(key, 1, timeout=window):
        cache.set(f"{key}:start", now, timeout=window)
        return 0
    try:
        used = cache.incr(key)
    except ValueError:  # expired between add() and incr(): a new window
        cache.set_many({key: 1, f"{key}:start": now}, timeout=window)
        return 0
    if used <= count:
        return 0
    start = cache.get(f"{key}:start") or now
    return max(1, math.ceil(start + window - now))
