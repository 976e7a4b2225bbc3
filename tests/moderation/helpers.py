"""Moderators for tests: staff with the "moderate" permission and the admin's view rights."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db.models import Q

from tests.conftest import make_user

# What a moderator reads in the admin besides acting.
VIEWED = [
    ("auth", "user"),
    ("lobby", "room"),
    ("lobby", "seat"),
    ("moderation", "report"),
    ("moderation", "mute"),
    ("moderation", "auditentry"),
    ("chat", "chatmessage"),
    ("tables", "reactionprofile"),
]


def make_moderator(username: str = "mod", **kw):
    """Return a staff user who may moderate (a fresh instance: permissions are cached)."""
    user = make_user(username, is_staff=True, **kw)
    wanted = Q(codename="moderate", content_type__app_label="moderation")
    for app, model in VIEWED:
        wanted |= Q(codename=f"view_{model}", content_type__app_label=app)
    user.user_permissions.add(*Permission.objects.filter(wanted))
    return get_user_model().objects.get(pk=user.pk)
