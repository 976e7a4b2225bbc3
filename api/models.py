"""API tokens: a user's keys to the Board API, stored as hashes only."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models

# Tokens say what they are, so that one pasted somewhere public is easy to recognise.
PREFIX = "cg_"


def hash_token(raw: str) -> str:
    # A token is 256 random bits, so a fast hash is enough: nobody can guess from the hash
    # back to the token, and every request can afford to check it.
    return hashlib.sha256(raw.encode()).hexdigest()


class TokenQuerySet(models.QuerySet["ApiToken"]):
    def issue(self, user, name: str) -> tuple[ApiToken, str]:
        """Create a token for `user`; return it and its one-time readable value."""
        raw = PREFIX + secrets.token_urlsafe(32)
        token = self.create(user=user, name=name, key=hash_token(raw), hint=raw[-4:])
        return token, raw


class ApiToken(models.Model):
    """One Bearer token: who it speaks for, a name its owner gave it, and when it was used."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=60)
    key = models.CharField(max_length=64, unique=True)  # sha256 of the token, never the token
    hint = models.CharField(max_length=4)  # its last characters, to tell tokens apart
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    objects = TokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} (…{self.hint}) of user {self.user_id}"
