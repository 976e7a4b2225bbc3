"""Friends, blocks, who is online, invitations and notifications: the rows of the social app."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

USER = settings.AUTH_USER_MODEL


class Friendship(models.Model):
    """A request from `sender` to `recipient`; once accepted, they are friends (both ways)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"

    sender = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="friend_requests_sent")
    recipient = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="friend_requests")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["sender", "recipient"], name="one_request_per_pair"),
            models.CheckConstraint(
                condition=~Q(sender=models.F("recipient")), name="no_friendship_with_oneself"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sender_id} -> {self.recipient_id} ({self.status})"


class Block(models.Model):
    """`blocker` sees nothing more of `blocked`: no requests, invitations or chat lines."""

    blocker = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="blocks")
    blocked = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="blocked_by")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="one_block_per_pair"),
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"


class Connection(models.Model):
    """One open page of a signed-in user (its social socket): online while one exists.

    `room` is the table the page shows when its user holds a seat of that room's match;
    `visible` is what the page last said of itself (the Page Visibility API).
    """

    user = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="connections")
    channel = models.CharField(max_length=200, unique=True)
    process = models.CharField(max_length=64)
    room = models.ForeignKey("lobby.Room", on_delete=models.SET_NULL, null=True, blank=True)
    visible = models.BooleanField(default=True)
    opened_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user_id} on {self.channel}"


class Settings(models.Model):
    """A user's social settings: when he was last seen, and his notification preferences.

    `routes` maps a notification kind to the routes it takes ({"site", "push", "email"});
    a kind not in it takes its default (notifications.DEFAULT_ROUTES).
    """

    user = models.OneToOneField(USER, on_delete=models.CASCADE, related_name="social")
    last_seen = models.DateTimeField(null=True, blank=True)
    # The language his pages last spoke (for pushes and mail when he chose none).
    language = models.CharField(max_length=8, blank=True)
    routes = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"settings of {self.user_id}"


class Invitation(models.Model):
    """`sender`, seated in `room`, asks `recipient` to sit there too."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"  # he sits there (or will, at the next round's start)
        DECLINED = "declined"
        WITHDRAWN = "withdrawn"  # the room is over, or its sender left it

    room = models.ForeignKey("lobby.Room", on_delete=models.CASCADE, related_name="invitations")
    sender = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="invitations_sent")
    recipient = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="invitations")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["room", "recipient"],
                condition=Q(status="pending"),
                name="one_pending_invitation_per_room",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sender_id} invites {self.recipient_id} to {self.room_id} ({self.status})"


class Notification(models.Model):
    """Something to tell `user`: a kind and its parameters, worded when shown (his language)."""

    user = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=30)
    params = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    # Which routes it took besides the site ("push", "email"): for the record and the tests.
    sent = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["user", "read_at"])]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id}"


class PushSubscription(models.Model):
    """A browser's Web Push subscription (its endpoint and keys, RFC 8291)."""

    user = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"push of {self.user_id}"


class Export(models.Model):
    """One export of a user's data (social.data): its progress, then the zip itself."""

    class Status(models.TextChoices):
        RUNNING = "running"
        READY = "ready"
        FAILED = "failed"

    user = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="exports")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    percent = models.PositiveSmallIntegerField(default=0)
    archive = models.BinaryField(blank=True, default=b"")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"export {self.pk} of {self.user_id} ({self.status}, {self.percent}%)"
