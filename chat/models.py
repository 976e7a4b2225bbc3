"""Room chat: what players and spectators said, kept for moderation (hidden, never deleted)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

# Longest message, in characters: a chat line, not a letter.
MAX_LENGTH = 300


class ChatMessage(models.Model):
    room = models.ForeignKey("lobby.Room", on_delete=models.CASCADE, related_name="chat_messages")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_messages"
    )
    text = models.CharField(max_length=MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)
    # A moderator hid it: gone from every page, kept here with who hid it and when.
    hidden = models.BooleanField(default=False)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    hidden_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["room", "created_at", "pk"]
        indexes = [models.Index(fields=["room", "created_at"])]

    def __str__(self) -> str:
        return f"{self.user_id} in room {self.room_id}: {self.text[:40]}"
