"""The one write path for tournaments: create, join, withdraw, add bots, and what pages read.

Every change runs in a transaction on the locked tournament row and tells the tournament's
pages after commit. Refusals raise TournamentError (a lobby RoomError: a code, a sentence, an
HTTP status), which the site and the Board API answer as they answer the lobby's. The rounds
themselves are the scheduler's (tournaments.scheduler); rooms are made only by the lobby.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import timedelta
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.registry import GAMES
from lobby.services import HELD_OUT, RoomError, check_room, require_member
from tables import reaction
from tables.guests import is_guest
from tournaments.models import Entry, TableSeat, Tournament, TournamentTable

# Bounds of what a creator may ask (the API's schema says the same).
MOST_ROUNDS = 20
MOST_MINUTES = 180
MOST_ENTRIES = 1000
LATEST_START = 7 * 24 * 3600  # seconds ahead
MOST_BOTS = 200


class TournamentError(RoomError):
    """A refused tournament operation (answered like the lobby's refusals)."""


def group(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


def changed(tournament_id: int) -> None:
    """Tell the tournament's pages (and the lobby's list of events) after commit."""
    transaction.on_commit(partial(_push, tournament_id))


def _push(tournament_id: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": "tournament.changed", "tournament": tournament_id}
    async_to_sync(layer.group_send)(group(tournament_id), message)


def bump(tournament: Tournament) -> None:
    """A change every page shows: a new version, and the pages are told."""
    Tournament.objects.filter(pk=tournament.pk).update(version=tournament.version + 1)
    tournament.version += 1
    changed(tournament.pk)


# --------------------------------------------------------------------------- create


def default_match_rounds(game: str) -> int:
    """One game round for a race (the issue's default), the game's own default otherwise."""
    info = GAMES[game]
    if info.race:
        return 1
    return int(info.check_options(info.min_seats, {}).get("rounds", 1))


def match_options(game: str, match_rounds: int) -> dict[str, Any]:
    """A tournament match's options: a fixed number of game rounds and no points target."""
    options: dict[str, Any] = {"rounds": match_rounds}
    if "target" in GAMES[game].option_fields:
        options["target"] = None
    return options


def create(
    user: Any,
    game: Any,
    seats: Any,
    format: Any,
    *,
    rounds: Any = None,
    minutes: Any = None,
    match_rounds: Any = None,
    duplicate: Any = False,
    private: Any = False,
    starts_in: Any = 300,
) -> Tournament:
    """Open a tournament; any signed-in member may. It starts `starts_in` seconds from now."""
    require_member(user)
    if not isinstance(game, str) or game not in GAMES:
        raise TournamentError("invalid_game", _("There is no such game."), 400)
    if format not in Tournament.Format.values:
        raise TournamentError("invalid_format", _('"format" must be "swiss" or "arena".'), 400)
    for name, value in (("duplicate", duplicate), ("private", private)):
        if not isinstance(value, bool):
            raise TournamentError(
                f"invalid_{name}", _('"%(name)s" must be true or false.') % {"name": name}, 400
            )
    if match_rounds is None:
        match_rounds = default_match_rounds(game)
    # The seat count and the game rounds are the rules' to judge, as for any room.
    check_room(game, seats, match_options(game, match_rounds))
    if format == Tournament.Format.SWISS:
        if not _whole(rounds, 1, MOST_ROUNDS) or minutes is not None:
            raise TournamentError(
                "invalid_rounds",
                _('A Swiss needs "rounds": a whole number from 1 to %(most)d.')
                % {"most": MOST_ROUNDS},
                400,
            )
    else:
        if not _whole(minutes, 1, MOST_MINUTES) or rounds is not None:
            raise TournamentError(
                "invalid_minutes",
                _('An Arena needs "minutes": a whole number from 1 to %(most)d.')
                % {"most": MOST_MINUTES},
                400,
            )
    if not _whole(starts_in, 0, LATEST_START):
        raise TournamentError(
            "invalid_starts_in",
            _('"starts_in" must be a whole number of seconds, at most a week.'),
            400,
        )
    starts_at = timezone.now() + timedelta(seconds=starts_in)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            game=game,
            seats=seats,
            format=format,
            rounds=rounds,
            minutes=minutes,
            match_rounds=match_rounds,
            duplicate=duplicate,
            private=private,
            creator=user,
            starts_at=starts_at,
            # The scheduler's first task: the reminder before the start (or the start itself).
            next_action_at=starts_at - timedelta(seconds=300),
        )
        changed(tournament.pk)
    return tournament


def _whole(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


# --------------------------------------------------------------------------- entries


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentError("no_such_tournament", _("There is no such tournament."), 404)
    return tournament


def _require_before_start(tournament: Tournament) -> None:
    if tournament.status != Tournament.Status.SCHEDULED:
        raise TournamentError(
            "already_started", _("This tournament has already started: entries are closed.")
        )


def listed() -> list[Tournament]:
    """The public events a visitor may join or watch: upcoming and under way."""
    return list(
        Tournament.objects.filter(
            private=False, status__in=[Tournament.Status.SCHEDULED, Tournament.Status.RUNNING]
        ).select_related("creator")[:50]
    )


def may_see(tournament: Tournament, user: Any, invite: str | None = None) -> bool:
    """A private tournament is seen by its creator, its entrants and holders of its invite."""
    if not tournament.private:
        return True
    if invite and hmac.compare_digest(str(invite), tournament.invite_code):
        return True
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return tournament.creator_id == user.pk or tournament.entries.filter(user=user).exists()


def get_visible(tournament_id: int, user: Any, invite: str | None = None) -> Tournament:
    """The tournament, or 404 for one there is none of or that `user` may not see."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or not may_see(tournament, user, invite):
        raise TournamentError("no_such_tournament", _("There is no such tournament."), 404)
    return tournament


def join(tournament_id: int, user: Any, invite: str | None = None) -> Entry:
    """Enter `user` (until the start; a private event needs its invite)."""
    require_member(user)
    if reaction.held_out(user):  # a tournament is a rated event
        raise TournamentError("held_out", str(HELD_OUT), 403)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if not may_see(tournament, user, invite):
            raise TournamentError("no_such_tournament", _("There is no such tournament."), 404)
        _require_before_start(tournament)
        entry = tournament.entries.filter(user=user).first()
        if entry is not None and entry.status == Entry.Status.ACTIVE:
            raise TournamentError("already_joined", _("You are already in this tournament."))
        if tournament.entries.filter(status=Entry.Status.ACTIVE).count() >= MOST_ENTRIES:
            raise TournamentError("tournament_full", _("This tournament is full."))
        try:
            with transaction.atomic():
                if entry is None:
                    entry = Entry.objects.create(
                        tournament=tournament, user=user, name=user.get_username()
                    )
                else:  # withdrew before the start and comes back
                    entry.status = Entry.Status.ACTIVE
                    entry.save(update_fields=["status"])
        except IntegrityError as clash:
            raise TournamentError(
                "already_joined", _("You are already in this tournament.")
            ) from clash
        bump(tournament)
    return entry


def withdraw(tournament_id: int, user: Any) -> Entry:
    """Take `user` out of the tournament, until its start."""
    if is_guest(user):
        raise TournamentError("not_joined", _("You are not in this tournament."))
    with transaction.atomic():
        tournament = _locked(tournament_id)
        entry = tournament.entries.filter(user=user, status=Entry.Status.ACTIVE).first()
        if entry is None:
            if not may_see(tournament, user):
                raise TournamentError("no_such_tournament", _("There is no such tournament."), 404)
            raise TournamentError("not_joined", _("You are not in this tournament."))
        _require_before_start(tournament)
        entry.status = Entry.Status.WITHDRAWN
        entry.save(update_fields=["status"])
        bump(tournament)
    return entry


def add_bots(tournament_id: int, user: Any, count: Any, level: Any) -> list[Entry]:
    """Enter `count` bot entrants of `level` (the creator, before the start)."""
    require_member(user)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if not may_see(tournament, user):
            raise TournamentError("no_such_tournament", _("There is no such tournament."), 404)
        if tournament.creator_id != user.pk:
            raise TournamentError(
                "not_creator", _("Only the creator of this tournament may add bots."), 403
            )
        _require_before_start(tournament)
        if not _whole(count, 1, MOST_BOTS):
            raise TournamentError(
                "invalid_count",
                _('"count" must be a whole number from 1 to %(most)d.') % {"most": MOST_BOTS},
                400,
            )
        if level not in GAMES[tournament.game].bot_levels:
            raise TournamentError("invalid_level", _("This game's bots have no such level."), 400)
        active = tournament.entries.filter(status=Entry.Status.ACTIVE).count()
        if active + count > MOST_ENTRIES:
            raise TournamentError("tournament_full", _("This tournament is full."))
        bots = tournament.entries.filter(user__isnull=True).count()
        made = Entry.objects.bulk_create(
            Entry(tournament=tournament, bot_level=level, name=f"Bot {bots + i + 1} ({level})")
            for i in range(count)
        )
        bump(tournament)
    return made


# --------------------------------------------------------------------------- deals


def deal_seed(tournament: Tournament, label: str) -> int:
    """A seed drawn from the tournament's secret (53 bits, as the site's seeds)."""
    digest = hmac.new(tournament.secret.encode(), label.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 11


def deal_digests(
    game: str, seats: int, options: dict[str, Any], seed: int
) -> tuple[str, list[str]]:
    """SHA-256 of a deal: of the whole dealt state, and of what each seat was dealt."""
    info = GAMES[game]
    state = info.new_match(seats, options, seed)
    whole = _sha(info.dump(state))
    return whole, [_sha(info.player_view(state, seat)) for seat in range(seats)]


def _sha(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


# --------------------------------------------------------------------------- the tables' ends


def table_finished(sender: Any, match: Any, **kwargs: Any) -> None:
    """A match ended (tables' match_finished): if it is a tournament table, the scheduler looks
    at its tournament now (it scores the table and, a round over, seats the next).

    Sent inside the live tables' write transaction: the tournament's row is touched only after
    it commits, so that a move's transaction never waits for a tournament's lock."""
    tournament_id = (
        TournamentTable.objects.filter(room_id=match.room_id)
        .values_list("tournament_id", flat=True)
        .first()
    )
    if tournament_id is not None:
        transaction.on_commit(partial(_due_now, tournament_id))


def _due_now(tournament_id: int) -> None:
    Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.RUNNING).update(
        next_action_at=timezone.now()
    )


def seats_of(table: TournamentTable) -> list[TableSeat]:
    return list(table.seat_set.select_related("entry").order_by("index"))
