"""What `manage.py check --deploy` says of the accounts a site keeps."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Tags, Warning, register

# Hashers a real site must not hash new passwords with: fast, so a leaked table is read in hours.
WEAK_HASHERS = {
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.UnsaltedMD5PasswordHasher",
    "django.contrib.auth.hashers.UnsaltedSHA1PasswordHasher",
}


@register(Tags.security, deploy=True)
def password_hasher(app_configs: Any, **kwargs: Any) -> list[Warning]:
    """`PASSWORD_HASHERS` (docs/operations.md) names a fast hasher first: a test site's choice."""
    first = settings.PASSWORD_HASHERS[0] if settings.PASSWORD_HASHERS else ""
    if first not in WEAK_HASHERS:
        return []
    return [
        Warning(
            f"PASSWORD_HASHERS hashes new passwords with {first.rsplit('.', 1)[-1]}, which is "
            "fast to guess: leave PASSWORD_HASHERS unset on a real site.",
            id="lobby.W001",
        )
    ]
