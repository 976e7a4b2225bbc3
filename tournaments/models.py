"""A tournament's rows: the event (its whole schedule in `next_action_at`), its entries, rounds,
tables (each a lobby room) and the seats' results.

Standings are a pure function of the seats' results (tournaments.scoring); `Entry.points` is a
cache of them for lists.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


def _secret() -> str:
    return secrets.token_hex(16)


def _invite() -> str:
    return secrets.token_urlsafe(12)


class Tournament(models.Model):
    class Format(models.TextChoices):
        SWISS = "swiss", _("Swiss")
        ARENA = "arena", _("Arena")

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Starts soon")
        RUNNING = "running", _("Under way")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    game = models.CharField(max_length=20)
    seats = models.PositiveSmallIntegerField()
    format = models.CharField(max_length=5, choices=Format.choices)
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)  # Swiss
    minutes = models.PositiveSmallIntegerField(null=True, blank=True)  # Arena
    match_rounds = models.PositiveSmallIntegerField()  # game rounds in each match
    duplicate = models.BooleanField(default=False)
    private = models.BooleanField(default=False)
    invite_code = models.CharField(max_length=32, unique=True, default=_invite)
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournaments_created"
    )
    filler_level = models.CharField(max_length=10, default="normal")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    starts_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True)  # Arena: when seating stops
    finished_at = models.DateTimeField(null=True, blank=True)
    # The scheduler's only timer (tournaments.scheduler): when something is next due.
    next_action_at = models.DateTimeField(null=True, blank=True, db_index=True)
    reminded = models.BooleanField(default=False)  # `starting_soon` was sent
    current_round = models.PositiveSmallIntegerField(default=0)
    # Deal seeds are drawn from it; shown once the event is over, so anyone can check the deals.
    secret = models.CharField(max_length=64, default=_secret)
    version = models.PositiveIntegerField(default=1)  # grows with every change a page shows
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["starts_at", "pk"]

    def __str__(self) -> str:
        return f"Tournament {self.pk} ({self.game}, {self.format})"


class Entry(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", _("Playing")
        WITHDRAWN = "withdrawn", _("Withdrawn")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    # None: a bot entrant (it plays as a player and stands in the standings, marked as a bot).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="tournament_entries",
    )
    bot_level = models.CharField(max_length=10, blank=True)
    name = models.CharField(max_length=150)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    missed = models.PositiveSmallIntegerField(default=0)  # rounds missed in a row
    points = models.FloatField(default=0)  # a cache of the standings
    rank = models.PositiveIntegerField(default=0)
    waiting_since = models.DateTimeField(null=True, blank=True)  # Arena: since its last table
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user"],
                condition=models.Q(user__isnull=False),
                name="one_entry_per_player",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} in {self.tournament_id}"

    @property
    def is_bot(self) -> bool:
        return self.user_id is None


class TournamentRound(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", _("Playing")
        SCORED = "scored", _("Scored")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    deal_seed = models.BigIntegerField(null=True, blank=True)  # duplicate: every table's
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="one_round_a_number")
        ]


class TournamentTable(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")
        DISCARDED = "discarded", _("Ended too late")  # Arena: after the grace

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    round = models.ForeignKey(
        TournamentRound, on_delete=models.CASCADE, null=True, blank=True, related_name="tables"
    )  # None in an Arena
    number = models.PositiveIntegerField()  # board number (Arena: in order of seating)
    room = models.OneToOneField(
        "lobby.Room", on_delete=models.PROTECT, related_name="tournament_table"
    )
    deal_seed = models.BigIntegerField()
    # Arena duplicate: the number k of the event's pool deal it was dealt (`deal:{id}:arena:{k}`).
    deal = models.PositiveIntegerField(null=True, blank=True)
    digest = models.CharField(max_length=64)  # SHA-256 of the deal (every seat's cards)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]


class TableSeat(models.Model):
    """One seat of a tournament table and what it earned (tournaments.scoring)."""

    table = models.ForeignKey(TournamentTable, on_delete=models.CASCADE, related_name="seat_set")
    index = models.PositiveSmallIntegerField()
    entry = models.ForeignKey(
        Entry, on_delete=models.CASCADE, null=True, blank=True, related_name="seats"
    )  # None: a filler bot (an opponent, never in the standings)
    digest = models.CharField(max_length=64)  # SHA-256 of this seat's dealt cards
    points = models.IntegerField(null=True, blank=True)  # the match total
    missed = models.BooleanField(default=False)  # a stand-in played it to the end
    par = models.FloatField(null=True, blank=True)
    adjusted = models.FloatField(null=True, blank=True)
    share = models.FloatField(null=True, blank=True)
    round_points = models.FloatField(null=True, blank=True)  # Arena: with the streak bonus
    on_fire = models.BooleanField(default=False)
    deal_beaten = models.FloatField(null=True, blank=True)
    deal_holders = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["table", "index"]
        constraints = [models.UniqueConstraint(fields=["table", "index"], name="one_seat_an_index")]
