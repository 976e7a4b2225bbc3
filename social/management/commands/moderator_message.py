"""Send a player a message from the moderators (a `moderator` notification, in his bell, and
by Web Push when none of his pages is visible)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from social.notify import notify


class Command(BaseCommand):
    help = "Send a player a message from the moderators."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("text")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"There is no player called {options['username']!r}.")
        text = " ".join(str(options["text"]).split())[:500]
        if not text:
            raise CommandError("Say something.")
        note = notify(user, "moderator", {"text": text})
        self.stdout.write("sent" if note is not None else "not sent: he turned these off")
