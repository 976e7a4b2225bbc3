"""Rooms and their seats: who sits where, and where the room stands."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from games.registry import GAMES, Game
from tables.words import bot_name, game_name


def game_choices() -> list[tuple[str, str]]:
    """The registered games as (slug, name in the reader's language), read when asked.

    Read when a form is built: games may register at start-up, and the names follow the
    language of the request.
    """
    return [(slug, game_name(slug)) for slug in GAMES]


def validate_game(slug: str) -> None:
    if slug not in GAMES:
        raise ValidationError(f"{slug!r} is not a game of this site.", code="invalid_choice")


def _invite_code() -> str:
    return secrets.token_urlsafe(12)


class Room(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("Open")  # waiting for players
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")  # played to the end; kept in history
        CLOSED = "closed", _("Closed")  # everyone left; kept for the record, never listed

    # Checked against the registry, not a list of choices: a new game needs no migration.
    game = models.CharField(max_length=20, validators=[validate_game])
    seats = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_rooms"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    # Whoever holds the invite link may join; the room's own id stays a public address.
    invite_code = models.CharField(max_length=32, unique=True, default=_invite_code)
    # A private room is not listed; seats and watching only through the invite link.
    private = models.BooleanField(default=False)
    # An unrated room's match moves nobody's rating (tables.ratings).
    rated = models.BooleanField(default=True)
    # Nobody hosts a room the site paired or arranged (quick play, a tournament's table, the
    # daily challenge): whoever pressed first may not remove, add, start early or close.
    hostless = models.BooleanField(default=False)
    # Quick play moved its one waiting person to an older waiting room whose band came to
    # take him (lobby.quickplay.merge): this room closed, its page goes there.
    moved_to = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # A room quick play opened: when bots take its empty seats and it starts, if nobody came.
    quick_fill_at = models.DateTimeField(null=True, blank=True)
    # Why a room was closed before its end (by its host or a moderator), told to its players.
    closed_reason = models.CharField(max_length=200, blank=True)
    # A rematch: a new room with the same players and options as this earlier one.
    rematch_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematches"
    )
    # People the host removed before the start: they may not take a seat here again.
    removed = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="+")
    # A deal fixed by whoever arranged the room (a tournament's duplicate round, the daily
    # challenge): the match is dealt from this seed (G1) and its bots draw from `bot_seed`.
    # None: a fresh random seed, as for every room a person opens.
    deal_seed = models.BigIntegerField(null=True, blank=True)
    bot_seed = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "-created_at"])]

    def __str__(self) -> str:
        return f"Room {self.pk} ({self.get_game_display()}, {self.status})"

    def get_game_display(self) -> str:
        """The game's name in the reader's language (what Django's choices gave before)."""
        return game_name(self.game) if self.game in GAMES else self.game

    def get_absolute_url(self) -> str:
        return reverse("lobby:room", args=[self.pk])

    def get_invite_url(self) -> str:
        return reverse("lobby:invite", args=[self.invite_code])

    @property
    def game_info(self) -> Game:
        return GAMES[self.game]

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN


class Seat(models.Model):
    """One place at a room's table, held by a user or a bot (never both, never neither)."""

    class BotLevel(models.TextChoices):
        EASY = "easy", _("Easy bot")
        NORMAL = "normal", _("Normal bot")
        FAST = "fast", _("Fast bot")

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="seat_set")
    index = models.PositiveSmallIntegerField()  # turn order, clockwise, from 0
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
    )
    bot_level = models.CharField(max_length=10, choices=BotLevel.choices, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["room", "index"]
        constraints = [
            models.UniqueConstraint(fields=["room", "index"], name="one_holder_per_seat"),
            models.UniqueConstraint(
                fields=["room", "user"], condition=Q(user__isnull=False), name="one_seat_per_user"
            ),
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(bot_level=""))
                | (Q(user__isnull=True) & ~Q(bot_level="")),
                name="user_xor_bot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.room_id}#{self.index}: {self.name}"

    @property
    def is_bot(self) -> bool:
        return not self.user_id

    @property
    def name(self) -> str:
        if self.user is not None:
            return self.user.username
        return bot_name(self.bot_level, self.index)  # worded when shown, as at the table


class Profile(models.Model):
    """What a user chose for the site itself; made on first need, not at sign-up."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    # Blank: never chosen, so the browser's language decides.
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES, blank=True)

    def __str__(self) -> str:
        return self.user.get_username()


class QuickPlayPool(models.Model):
    """The row Play now locks for a game and seat count, so that its requests meet.

    Two requests finding no room at once would each open one; holding this row's lock while
    one finds or opens a room makes the other find that room (on every process: the lock is
    the database's). SQLite's transactions take its write lock anyway (BEGIN IMMEDIATE).
    """

    game = models.CharField(max_length=20)
    seats = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "seats"], name="one_pool_per_game_and_seats")
        ]

    def __str__(self) -> str:
        return f"{self.game} x{self.seats}"
