"""Bearer tokens: who a request or a socket speaks for."""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models.signals import post_delete
from django.utils import timezone

from api.models import ApiToken, hash_token

# `last_used_at` is for people reading their profile: a minute's precision is plenty, and it
# saves a write on nearly every call.
LAST_USED_PRECISION = timedelta(minutes=1)


def token_for(raw: Any) -> ApiToken | None:
    """Return the token `raw` is, with its active user, or None (unknown, revoked, or banned)."""
    # Tokens are ASCII (PREFIX + url-safe base64): anything else is no token, and never hashed.
    if not isinstance(raw, str) or not raw or len(raw) > 200 or not raw.isascii():
        return None
    token = ApiToken.objects.select_related("user").filter(key=hash_token(raw)).first()
    # A ban is Django's own flag: an inactive user's tokens stop working.
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def user_for_token(raw: Any) -> Any:
    """Return the active user `raw` is a token of, or None (unknown, revoked, or banned)."""
    token = token_for(raw)
    return None if token is None else token.user


def token_group(token_id: int) -> str:
    """The group of the streams opened with this token: revoking it closes them."""
    return f"api_token.{token_id}"


def _close_streams(token_id: int) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(token_group(token_id), {"type": "token.revoked"})


def _on_token_deleted(sender: Any, instance: ApiToken, **kwargs: Any) -> None:
    # Any path (the profile page, the admin, a cascade from a deleted user): after commit.
    transaction.on_commit(partial(_close_streams, instance.pk))


def connect_signals() -> None:
    """Called once from ApiConfig.ready()."""
    post_delete.connect(_on_token_deleted, sender=ApiToken, dispatch_uid="api.auth.revoked")


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


def export_tokens(user: Any) -> list[dict[str, Any]]:
    """His tokens as his data export lists them: names and dates, never a secret."""
    rows = ApiToken.objects.filter(user=user).values("name", "hint", "created_at", "last_used_at")
    return [dict(row) for row in rows]


def erase_tokens(user: Any) -> None:
    """Delete his tokens (his account is being deleted): each one's streams close."""
    for token in ApiToken.objects.filter(user=user):
        token.delete()
