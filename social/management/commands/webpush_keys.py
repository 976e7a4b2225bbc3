"""Print a new VAPID key pair for the WEBPUSH_VAPID_* settings (docs/operations.md)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from social.keys import new_pair


class Command(BaseCommand):
    help = "Print a new VAPID key pair for Web Push, as environment variables."

    def handle(self, *args: Any, **options: Any) -> None:
        public, private = new_pair()
        self.stdout.write(
            f"WEBPUSH_VAPID_PUBLIC_KEY={public}\nWEBPUSH_VAPID_PRIVATE_KEY={private}\n"
        )
