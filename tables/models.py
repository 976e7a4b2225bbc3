"""What a started room plays: its match, rounds, players, action log and round scores.

The engine's whole state lives as JSON on the current round; `Match.version` grows with every
change anyone can see, so every push and view carries it. `tables.play` is the only writer.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Match(models.Model):
    """One play-through of a started room: several rounds, one version counter."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("Playing")  # rounds being played (a countdown included)
        FINISHED = "finished", _("Finished")
        CLOSED = "closed", _("Closed")  # the room was closed before the end: no winner, no stats

    room = models.OneToOneField("lobby.Room", on_delete=models.CASCADE, related_name="match")
    game = models.CharField(max_length=20)
    options = models.JSONField(default=dict)
    seed = models.BigIntegerField()
    # The seed of its bots' choices and delays (None: fresh randomness each time a process
    # drives them); fixed where everyone must meet the same bot (the daily challenge).
    bot_seed = models.BigIntegerField(null=True, blank=True)
    # The secret its rounds' server seeds come from (tables.fairness; never sent to anyone);
    # empty for a fixed deal (its maker committed to it) and for matches older than it.
    fair_secret = models.CharField(max_length=64, blank=True, default="")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    # Grows with every change (a move, a countdown ending, a player coming or going).
    version = models.PositiveIntegerField(default=1)
    # The current round's plays are refused before this instant (L7: a 3 s countdown).
    starts_at = models.DateTimeField(null=True, blank=True)
    # The process that drives this match's bots and timers, and until when its lease holds.
    driver = models.CharField(max_length=64, blank=True)
    driver_until = models.DateTimeField(null=True, blank=True)
    # When its last owner handed it over (a graceful stop): the time until the next owner takes
    # it is the server's, never a player's (tables.driver resumes the timers by that much).
    paused_at = models.DateTimeField(null=True, blank=True)
    # Why the match stopped before its end (status closed), as its players are told.
    closed_reason = models.CharField(max_length=200, blank=True)
    # The decision clock of a timed table (tables.clocks): whose decision, since and until when,
    # each seat's timeouts in a row. Durable, so a restart or a takeover resumes it.
    clock = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        # The tables kept the names they had when this was the "games" app.
        db_table = "games_match"
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["status", "driver_until"])]

    def __str__(self) -> str:
        return f"Match {self.pk} of room {self.room_id} ({self.game}, v{self.version})"


class Player(models.Model):
    """A seat of a match: who sits there, who plays it now (a bot stands in for an absent human)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField()
    # The human who holds the seat (kept after he leaves, for the score history).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="match_players",
    )
    name = models.CharField(max_length=150)
    # Set for a bot seat, for a human who left for good, and while a bot stands in for him.
    bot_level = models.CharField(max_length=10, blank=True)
    left = models.BooleanField(default=False)  # gave the seat up: the bot keeps it
    stand_in = models.BooleanField(default=False)  # away too long: a bot plays until he is back
    connections = models.PositiveIntegerField(default=0)
    away_since = models.DateTimeField(null=True, blank=True)
    # The rules named this seat a winner when the match finished (their match_finished event).
    won = models.BooleanField(default=False)
    # An invited person who takes this bot's seat at the next deal (tables.claims), and his
    # name: the change that deals the next round seats him, so he never joins mid-round.
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    claimed_name = models.CharField(max_length=150, blank=True)

    class Meta:
        db_table = "games_player"
        ordering = ["match", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="one_player_per_seat"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id}#{self.seat}: {self.name}"

    @property
    def is_bot(self) -> bool:
        """Whether a bot plays this seat now (a bot seat, a leaver's, or a stand-in)."""
        return self.user_id is None or self.left or self.stand_in

    @property
    def human(self) -> bool:
        return self.user_id is not None


class Presence(models.Model):
    """A seat's open sockets on one server process, renewed by that process every second.

    A process that dies stops renewing: its rows go stale, and the seat's sockets there are
    counted as gone (tables.presence.sweep), so a stand-in bot comes as for any leaver.
    """

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="presences")
    process = models.CharField(max_length=64)
    sockets = models.PositiveIntegerField(default=0)
    seen_at = models.DateTimeField()

    class Meta:
        db_table = "games_presence"
        constraints = [
            models.UniqueConstraint(fields=["player", "process"], name="one_presence_per_process"),
        ]
        indexes = [models.Index(fields=["process"])]

    def __str__(self) -> str:
        return f"{self.player}: {self.sockets} on {self.process}"


class Round(models.Model):
    """One round of a match: its seed (G1), the engine state as JSON and its version."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    state = models.JSONField()
    version = models.PositiveIntegerField()  # the match version this state was saved at
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=20, blank=True)

    class Meta:
        db_table = "games_round"
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="one_round_per_number"),
        ]

    def __str__(self) -> str:
        return f"Round {self.number} of match {self.match_id}"


class ActionLog(models.Model):
    """Append-only: every applied action, by seat, with the version it produced (replays).

    A play the rules refused in a race (L12's `too_slow`) is kept too, with `refused` set: it
    produced no version (`version` is the one it was judged at), but a replay shows it.
    """

    # No index of its own: the (match, version) one below serves every lookup by match, and
    # each index is one more page every move's commit writes (docs/performance.md).
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="actions", db_index=False
    )
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="actions")
    seat = models.PositiveSmallIntegerField()
    action = models.JSONField()
    version = models.PositiveIntegerField()
    by_bot = models.BooleanField(default=False)
    # The process that applied the move (the room's owner, tables.live.owners); for a bot's move
    # that is its driver: exactly one drives a room at a time. Empty without a server.
    driver = models.CharField(max_length=64, blank=True)
    refused = models.CharField(max_length=20, blank=True)  # the refusal's code; "" if applied
    # When the play reached the server: microseconds of the machine's monotonic clock, taken
    # where its frame or request was read (tables.live.equalise.receipt). Only differences mean
    # anything (races: docs/fairness.md); null for moves logged before it was kept.
    received = models.BigIntegerField(null=True, blank=True)
    # On a latency-equalised table, the play's estimated sending time on the same clock: its
    # receipt minus half its socket's measured round trip, at most the window (equalise).
    sent = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_actionlog"
        ordering = ["match", "version"]
        indexes = [models.Index(fields=["match", "version"])]

    def __str__(self) -> str:
        return f"v{self.version} seat {self.seat}: {self.action}"


class RoundScore(models.Model):
    """One player's points for one finished round: the rows score history queries."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="scores")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="scores")
    seat = models.PositiveSmallIntegerField()
    points = models.IntegerField()

    class Meta:
        db_table = "games_roundscore"
        ordering = ["round", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["round", "seat"], name="one_score_per_seat"),
        ]

    def __str__(self) -> str:
        return f"{self.round}: seat {self.seat} {self.points:+d}"


class Rating(models.Model):
    """A person's rating in one game (OpenSkill's Plackett-Luce: `mu` and its doubt `sigma`)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    game = models.CharField(max_length=20)
    mu = models.FloatField()
    sigma = models.FloatField()
    matches = models.PositiveIntegerField(default=0)  # rated matches played
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="one_rating_per_game"),
        ]
        indexes = [models.Index(fields=["game", "-mu"])]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.game}: {self.mu:.2f} ± {self.sigma:.2f}"


class RatingChange(models.Model):
    """What one rated match did to one player's rating (his history and its chart)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    game = models.CharField(max_length=20)
    rank = models.PositiveSmallIntegerField()  # 1 = best in this match; ties share a rank
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["match", "user"], name="one_rating_change_per_match"),
        ]
        indexes = [models.Index(fields=["user", "game", "created_at"])]

    def __str__(self) -> str:
        return (
            f"{self.user_id} in match {self.match_id}: {self.mu_before:.2f} → {self.mu_after:.2f}"
        )


class ReactionProfile(models.Model):
    """One account's reaction times in one game, and whether they flag it (tables.reaction).

    `buckets` is the histogram (tables.reaction.EDGES_MS); `log_mean` and `log_m2` the running
    mean and sum of squared deviations of ln(ms). A flag holds the account out of rated play
    until a moderator clears it, which starts the measure afresh.
    """

    class Flag(models.TextChoices):
        NONE = "", _("Not flagged")
        FAST = "fast", _("Median reaction inhumanly short")
        REGULAR = "regular", _("Reaction times too regular")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reaction_profiles"
    )
    game = models.CharField(max_length=20)
    buckets = models.JSONField(default=list)
    count = models.PositiveIntegerField(default=0)
    log_mean = models.FloatField(default=0.0)
    log_m2 = models.FloatField(default=0.0)
    flag = models.CharField(max_length=10, choices=Flag.choices, blank=True, default="")
    flagged_at = models.DateTimeField(null=True, blank=True)
    cleared_at = models.DateTimeField(null=True, blank=True)
    cleared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("reaction-time profile")
        verbose_name_plural = _("reaction-time profiles")
        ordering = ["-flagged_at", "-updated_at"]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="one_reaction_profile_per_game"),
        ]
        indexes = [models.Index(fields=["flagged_at"])]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.game}: {self.count} plays"
