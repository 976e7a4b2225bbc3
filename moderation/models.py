"""Moderation records: mutes, player reports and the audit log of every moderator action.

A ban is Django's own `is_active = False` (the login, the session, the API tokens and the open
sockets all honour it); who banned whom, when and why is in the audit log.
"""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def can_moderate(user) -> bool:  # noqa: ANN001
    """Whether `user` may take moderator actions: active staff with the "moderate" permission.

    The one check, for every moderator action: bans, mutes, closing rooms, reports, hiding chat.
    """
    return bool(
        user is not None
        and getattr(user, "is_authenticated", False)
        and user.is_active
        and user.is_staff
        and user.has_perm("moderation.moderate")
    )


class MuteQuerySet(models.QuerySet):
    def active(self, now=None):  # noqa: ANN001, ANN201
        return self.filter(until__gt=now or timezone.now())


class Mute(models.Model):
    """The user may not chat until `until`."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mutes"
    )
    until = models.DateTimeField()
    reason = models.CharField(max_length=200)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MuteQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["user", "until"])]

    def __str__(self) -> str:
        return f"{self.user} muted until {self.until:%Y-%m-%d %H:%M}"


def muted_until(user) -> datetime.datetime | None:  # noqa: ANN001
    """Return until when `user` may not chat, or None if he may."""
    mute = Mute.objects.active().filter(user=user).order_by("-until").first()
    return mute.until if mute else None


class Report(models.Model):
    """A player's report of another, from a room; a moderator resolves or dismisses it."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        RESOLVED = "resolved", _("Resolved")
        DISMISSED = "dismissed", _("Dismissed")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reports_made"
    )
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reports_received"
    )
    room = models.ForeignKey(
        "lobby.Room", on_delete=models.SET_NULL, null=True, blank=True, related_name="reports"
    )
    reason = models.CharField(max_length=500)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    handled_at = models.DateTimeField(null=True, blank=True)
    resolution = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "-created_at"])]

    def __str__(self) -> str:
        return f"Report {self.pk}: {self.reported} by {self.reporter} ({self.status})"


class AuditEntry(models.Model):
    """One moderator action: who, what, on whom or what, when and why. Append-only."""

    class Action(models.TextChoices):
        BAN = "ban", _("Ban")
        UNBAN = "unban", _("Unban")
        MUTE = "mute", _("Mute")
        UNMUTE = "unmute", _("Unmute")
        CLOSE_ROOM = "close_room", _("Close room")
        HIDE_MESSAGE = "hide_message", _("Hide chat message")
        RESOLVE_REPORT = "resolve_report", _("Resolve report")
        DISMISS_REPORT = "dismiss_report", _("Dismiss report")
        CLEAR_REACTION = "clear_reaction", _("Clear reaction-time flag")

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="moderation_actions"
    )
    action = models.CharField(max_length=20, choices=Action.choices)
    reason = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="moderation_history",
    )
    room = models.ForeignKey(
        "lobby.Room", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    message = models.ForeignKey(
        "chat.ChatMessage", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    report = models.ForeignKey(
        Report, on_delete=models.SET_NULL, null=True, blank=True, related_name="audit"
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "audit entries"
        # Staff with this permission may take moderator actions (moderation.services).
        permissions = [("moderate", "Can ban, mute, close rooms and handle reports")]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.moderator}: {self.get_action_display()}"


def record(moderator, action: str, reason: str, **targets) -> AuditEntry:  # noqa: ANN001
    """Write one audit entry; call it inside the transaction of the action it records."""
    return AuditEntry.objects.create(moderator=moderator, action=action, reason=reason, **targets)
