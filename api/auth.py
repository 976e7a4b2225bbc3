"""Bearer tokens: who a request or a socket speaks for."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

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


def user_for_token_user_active(user_id: int) -> bool:
    """Return whether the user `user_id` may still use his tokens (not banned)."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(pk=user_id, is_active=True).exists()


def bearer(header: str) -> str | None:
    """Return the token of an `Authorization: Bearer <token>` header, or None."""
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
