"""Attempts at the daily challenge: one per account and UTC day, made with its room."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Attempt(models.Model):
    """Someone's go at one day's deal: the room it is played in, ranked or not.

    The unique (user, day) row is written in the transaction that makes the room, so a second
    start the same day fails whoever races: starting is the attempt. A guest's attempt is
    unranked and stays so when the guest signs up (it could have scouted the deal).
    """

    day = models.DateField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="daily_attempts"
    )
    room = models.OneToOneField("lobby.Room", on_delete=models.CASCADE, related_name="daily")
    ranked = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["day", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["user", "day"], name="one_daily_attempt_per_day"),
        ]
        indexes = [models.Index(fields=["day", "ranked"])]

    def __str__(self) -> str:
        return f"{self.day} {self.user_id} (room {self.room_id})"
