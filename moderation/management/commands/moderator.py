"""`manage.py moderator USERNAME [--remove]`: make someone a moderator (or no longer one).

A moderator is staff in the "Moderators" group, which holds the "moderate" permission and the
right to read the admin lists a moderator works from. The group is made (or completed) here.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.db.models import Q

GROUP = "Moderators"
# What a moderator reads in the admin besides acting: (app, model) pairs.
VIEWED = [
    ("auth", "user"),
    ("lobby", "room"),
    ("lobby", "seat"),
    ("tables", "match"),
    ("moderation", "report"),
    ("moderation", "mute"),
    ("moderation", "auditentry"),
    ("chat", "chatmessage"),
]


def moderators_group() -> Group:
    """Return the Moderators group with every permission a moderator needs."""
    group, _ = Group.objects.get_or_create(name=GROUP)
    wanted = Q(codename="moderate", content_type__app_label="moderation")
    for app, model in VIEWED:
        wanted |= Q(codename=f"view_{model}", content_type__app_label=app)
    group.permissions.add(*Permission.objects.filter(wanted))
    return group


class Command(BaseCommand):
    help = "Make a user a moderator (staff in the Moderators group), or --remove him from it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--remove", action="store_true", help="no longer a moderator")

    def handle(self, *args: Any, username: str, remove: bool, **options: Any) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"There is no user called {username!r}.")
        with transaction.atomic():
            group = moderators_group()
            if remove:
                user.groups.remove(group)
                # Staff for another reason (a superuser, another group) stays staff.
                if not user.is_superuser and not user.groups.exists():
                    user.is_staff = False
                    user.save(update_fields=["is_staff"])
                self.stdout.write(f"{username} is no longer a moderator.")
                return
            user.groups.add(group)
            if not user.is_staff:
                user.is_staff = True
                user.save(update_fields=["is_staff"])
        self.stdout.write(f"{username} is a moderator now.")
