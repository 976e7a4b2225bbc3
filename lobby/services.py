"""The one write path for rooms and seats, used by the browser views and (later) the API.

Every change runs in a transaction on a locked room row, then tells the lobby and the room's
watchers after commit. Refusals raise RoomError with a code, a sentence and an HTTP status.
"""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext

from games import registry
from games.engine import IllegalAction
from games.registry import GAMES
from lobby import live, ratelimit, signals
from lobby.models import Room, Seat
from tables import claims, play, presence, ratings, reaction
from tables.guests import is_guest
from tables.live import stream
from tables.models import Match
from tables.models import Player as MatchPlayer
from tables.words import game_name, refusal_text


class RoomError(Exception):
    """A refused room operation: `.code` for machines, `.message` for people, `.status` for HTTP."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def check_room(game: str, seats: Any, options: Any) -> dict[str, Any]:
    """Return the normalized options for a new room, or raise RoomError (400)."""
    if game not in GAMES:
        raise RoomError(
            "invalid_game", _("There is no game called %(game)r.") % {"game": game}, 400
        )
    # The seat count (L1, A1) and the options are the rules' to judge.
    try:
        return GAMES[game].check_options(seats, options)
    except IllegalAction as refusal:
        raise RoomError(refusal.code, refusal_text(refusal), 400) from refusal


def check_site_options(options: dict[str, Any]) -> dict[str, Any]:
    """The site's own room options (a paced table's) checked, or RoomError 400."""
    try:
        return registry.check_site_options(options)
    except IllegalAction as refusal:
        raise RoomError(refusal.code, refusal_text(refusal), 400) from refusal


# The one sentence a flagged account gets wherever rated play refuses it.
HELD_OUT = gettext_lazy(
    "Your account is held out of rated play until a moderator has checked its reaction times."
)


def create_room(
    user,
    game: str,
    seats: Any,
    options: Any = None,
    private: Any = False,
    rated: Any = True,
    practice: bool = False,
    hostless: bool = False,
) -> Room:
    """Open a room for `game`; its creator hosts it and sits in seat 0 (`hostless`: he only
    sits there; quick play's rooms of strangers have no host).

    A private room is not listed; only holders of its invite link may take a seat or watch.
    An unrated room's match moves nobody's rating. A guest may only open a `practice` room
    (quick play's, against bots, unrated and started at once).
    """
    if not practice:
        require_member(user)
    clean_options = check_room(game, seats, options)
    if not isinstance(private, bool):
        raise RoomError("invalid_private", _('"private" must be true or false.'), 400)
    if not isinstance(rated, bool):
        raise RoomError("invalid_rated", _('"rated" must be true or false.'), 400)
    if rated and not practice:
        require_not_held_out(user)
    _throttle(user)
    with transaction.atomic():
        # Lock the host's row so that two rooms opened at once cannot both slip under the cap.
        get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
        _require_room_cap(user)
        room = Room.objects.create(
            game=game,
            seats=seats,
            options=clean_options,
            host=user,
            private=private,
            rated=rated,
            hostless=hostless,
        )
        Seat.objects.create(room=room, index=0, user=user)
        _after_commit(room.pk)
    return room


def arrange_room(
    host,
    game: str,
    entrants: list[Any],
    options: Any = None,
    *,
    rated: bool = True,
    private: bool = True,
    deal_seed: int | None = None,
    bot_seed: int | None = None,
    bot_level: str = "normal",
) -> Room:
    """Open and start at once a room the site arranged (a tournament's table, the daily
    challenge): `entrants` in seat order, each a user or a bot's level (a str); `host` owns the
    room (its organiser, or the one person at it). Nobody's rate limit or room cap is charged:
    nobody asked for it. `deal_seed` / `bot_seed` fix the deal and the bots' choices.

    Private by default: the arranged players are seated already; nobody else may sit down.
    """
    seats = len(entrants)
    clean_options = check_room(game, seats, options)
    with transaction.atomic():
        room = Room.objects.create(
            game=game,
            seats=seats,
            options=clean_options,
            host=host,
            private=private,
            rated=rated,
            deal_seed=deal_seed,
            bot_seed=bot_seed,
            hostless=True,
        )
        Seat.objects.bulk_create(
            Seat(room=room, index=i, bot_level=who or bot_level)
            if isinstance(who, str)
            else Seat(room=room, index=i, user=who)
            for i, who in enumerate(entrants)
        )
        _start(room)
    return room


def require_not_held_out(user) -> None:  # noqa: ANN001
    """Refuse rated play to an account its reaction times flagged (tables.reaction)."""
    if reaction.held_out(user):
        raise RoomError("held_out", str(HELD_OUT), 403)


def join_room(room_id: int, user, invited: bool = False) -> Seat:
    """Seat `user` in the lowest free seat of an open room.

    `invited`: he came through the room's invite link, which a private room requires.
    """
    require_member(user)
    _throttle(user)
    try:
        with transaction.atomic():
            room = _locked_room(room_id)
            seats = list(room.seat_set.all())
            if any(seat.user_id == user.pk for seat in seats):
                raise RoomError("already_seated", _("You already have a seat in this room."))
            if room.private and not invited and not _old_player(room, user):
                # The same answer as for no room at all: a private room's number reveals nothing.
                raise RoomError("no_such_room", _("There is no such room."), 404)
            _require_open(room)
            if room.rated:
                require_not_held_out(user)
            if room.removed.filter(pk=user.pk).exists():
                raise RoomError(
                    "removed",
                    _("The host removed you from this room; you cannot sit here again."),
                    403,
                )
            taken = {seat.index for seat in seats}
            free = [i for i in range(room.seats) if i not in taken]
            if not free:
                raise RoomError("room_full", _("Every seat in this room is taken."))
            seat = Seat.objects.create(room=room, index=free[0], user=user)
            _after_commit(room.pk)
    except IntegrityError as clash:
        # Two joins raced past the checks (SQLite does not lock rows): the constraint decides.
        raise RoomError("room_full", _("That seat was just taken; please try again.")) from clash
    return seat


def move_to_room(from_id: int, to_id: int, user) -> bool:
    """Quick play pairs two waiting rooms: `user`, waiting alone in `from_id`, takes a seat in
    `to_id` and his room closes, pointing there (`Room.moved_to`). The site's doing, charged
    to nobody. False, changing nothing, if either room changed meanwhile."""
    with transaction.atomic():
        # Both rooms locked, the lower id first (two merges never wait on each other).
        locked = {pk: _locked_room(pk) for pk in sorted((from_id, to_id))}
        old, new = locked[from_id], locked[to_id]
        if old.status != Room.Status.OPEN or new.status != Room.Status.OPEN:
            return False
        if [s.user_id for s in old.seat_set.all()] != [user.pk]:
            return False
        seats = list(new.seat_set.all())
        taken = {s.index for s in seats}
        free = [i for i in range(new.seats) if i not in taken]
        if not free or any(s.user_id == user.pk for s in seats):
            return False
        if new.removed.filter(pk=user.pk).exists():
            return False
        old.seat_set.all().delete()
        Seat.objects.create(room=new, index=free[0], user=user)
        old.status = Room.Status.CLOSED
        old.ended_at = timezone.now()
        old.quick_fill_at = None
        old.moved_to = new
        old.save(update_fields=["status", "ended_at", "quick_fill_at", "moved_to"])
        _after_commit(old.pk)
        _after_commit(new.pk)
    return True


# Kept in English (a closed room's reason); the site words it in its reader's language.
ABANDONED = presence.ABANDONED


def take_bot_seat(room_id: int, user) -> int:
    """Give `user` a bot's seat of the room's match in progress at its next deal (he accepted
    an invitation); returns the seat.

    The lowest seat a bot has held from the start (never a leaver's, whose name stays in the
    score history) that nobody claims yet. The claim goes through the move path's `touch`
    (tables.presence.claim_seat); the change that deals the next round seats him, and
    `seat_claimed` gives him the room's seat row then. Until that deal the bot plays on and
    he watches the table, which tells him so.
    """
    require_member(user)
    with transaction.atomic():
        room = _locked_room(room_id)
        if room.status != Room.Status.PLAYING:
            raise RoomError("not_started", _("This room has no game in progress."))
        if room.seat_set.filter(user=user).exists():
            raise RoomError("already_seated", _("You already have a seat in this room."))
        if room.removed.filter(pk=user.pk).exists():
            raise RoomError(
                "removed", _("The host removed you from this room; you cannot sit here again."), 403
            )
        players = list(MatchPlayer.objects.filter(match__room=room))
        if any(p.claimed_by_id == user.pk for p in players):
            raise RoomError(
                "already_claimed", _("You take a bot's seat at this table at the next round.")
            )
        free = sorted(p.seat for p in players if claims.open_seat(p))
    if not free:
        raise RoomError("room_full", _("No bot plays in this room: every seat is taken."))
    refused = presence.claim_seat(room.pk, free[0], user)
    if refused == "seated":
        raise RoomError("already_seated", _("You already have a seat in this room."))
    if refused:
        # Taken or ended between the look and the claim (the claim is checked on the table).
        raise RoomError("seat_taken", _("That seat is no longer a bot's; please try again."))
    return free[0]


def seat_claimed(sender: Any, match: Any, seat: int, user_id: int, **kwargs: Any) -> None:
    """tables' seat_claimed, inside the transaction that deals the round: the person who
    claimed a bot's seat holds the room's seat row from now on, and his open pages learn it."""
    if Seat.objects.filter(room_id=match.room_id, user_id=user_id).exists():
        return  # the constraint (one seat per person and room) must never fail the deal
    Seat.objects.filter(room_id=match.room_id, index=seat, user__isnull=True).update(
        user_id=user_id, bot_level=""
    )
    stream.access_changed_on_commit(user_id, match.room_id)  # his spectator's page sits
    _after_commit(match.room_id)


def leave_room(room_id: int, user) -> Room:
    """Give up the user's seat; an emptied room closes, a departing host hands the room on."""
    _throttle(user)
    with transaction.atomic():
        room = _locked_room(room_id)
        seat = room.seat_set.filter(user=user).first()
        if seat is None:
            raise RoomError("not_seated", _("You have no seat in this room."))
        if room.status in (Room.Status.FINISHED, Room.Status.CLOSED):
            raise RoomError("room_over", _("This room is over; there is nothing to leave."))
        _give_up_seat(room, seat, user)
    return room


def _give_up_seat(room: Room, seat: Seat | None, user) -> None:
    """Free `user`'s seat (or hand it to a bot mid-game) and pass the room on; room locked.

    An emptied room closes; a departing host hands the room to the longest-seated human.
    """
    playing = room.status == Room.Status.PLAYING
    if seat is not None and room.status == Room.Status.OPEN:
        seat.delete()
    elif seat is not None:
        # A game in progress keeps its seats: a bot takes over so the others can play on.
        seat.user = None
        seat.bot_level = Seat.BotLevel.NORMAL
        seat.save(update_fields=["user", "bot_level"])
        presence.left_for_good(room.pk, user)
    # His open sockets (room page, table, stream) drop the seat now, not at their next connect.
    stream.access_changed_on_commit(user.pk, room.pk)
    humans = room.seat_set.filter(user__isnull=False).order_by("joined_at", "index")
    successor = humans.first()
    if successor is None:
        room.status = Room.Status.CLOSED
        room.ended_at = timezone.now()
        if playing:
            # Bots alone would play on for nobody: the match is abandoned at once, and a
            # closed match counts in no one's history or leaderboard.
            room.closed_reason = ABANDONED
            play.close_match(room.pk, ABANDONED)
    elif room.host_id == user.pk and successor.user_id is not None:  # a human's seat
        room.host_id = successor.user_id
    room.save()
    _after_commit(room.pk)


def remove_player(room_id: int, user, index: Any) -> Room:
    """Let the host remove the player (or bot) in seat `index` before the start.

    A removed person may not take a seat in this room again; his room page says so.
    """
    if isinstance(index, bool) or not isinstance(index, int):
        raise RoomError("invalid_seat", _("Name the seat to free by its number."), 400)
    _throttle(user)
    with transaction.atomic():
        room = _locked_room(room_id)
        _require_host(room, user)
        _require_open(room)
        seat = room.seat_set.filter(index=index).first()
        if seat is None:
            # A seat number like any other, but nobody is in it now: a conflict, not bad input.
            raise RoomError("invalid_seat", _("That seat is free already."))
        if seat.user_id == user.pk:
            raise RoomError(
                "invalid_seat", _("You cannot remove yourself; leave the room instead.")
            )
        if seat.user_id:
            room.removed.add(seat.user_id)
            stream.access_changed_on_commit(seat.user_id, room.pk)
        seat.delete()
        _after_commit(room.pk)
    return room


def add_bots(room_id: int, user, count: Any = 1, level: Any = "normal") -> Room:
    """Let the host fill up to `count` free seats with bots of `level`."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise RoomError(
            "invalid_count", _("The number of bots must be a whole number from 1."), 400
        )
    _throttle(user)
    with transaction.atomic():
        room = _locked_room(room_id)
        _require_host(room, user)
        _require_open(room)
        if level not in room.game_info.bot_levels:
            levels = ", ".join(room.game_info.bot_levels)
            raise RoomError(
                "invalid_level",
                _("%(game)s bots come in these levels: %(levels)s.")
                % {"game": game_name(room.game), "levels": levels},
                400,
            )
        taken = set(room.seat_set.values_list("index", flat=True))
        free = [i for i in range(room.seats) if i not in taken]
        if not free:
            raise RoomError("room_full", _("Every seat in this room is taken."))
        Seat.objects.bulk_create(Seat(room=room, index=i, bot_level=level) for i in free[:count])
        _after_commit(room.pk)
    return room


def start_room(room_id: int, user) -> Room:
    """Let the host start the room once enough seats are filled; empty seats are dropped.

    A full room may be started by anyone seated in it: nothing is left for the host to decide,
    and a host who went away must not keep the others waiting for ever.
    """
    _throttle(user)
    with transaction.atomic():
        room = _locked_room(room_id)
        if not may_start(room, user):
            _require_host(room, user)
        _start(room)
    return room


def fill_and_start(room_id: int, level: str | None = "normal") -> bool:
    """Give a room's free seats to bots of `level` and start it: the site's own doing.

    With `level` None no bots come: the room starts only if every seat is taken. Quick play
    calls it when a room's wait is over or its last seat was taken; nobody asked for it, so
    it is charged to nobody's rate limit (a host over his would otherwise keep the room open
    for good). Returns whether it started; a room no longer open is refused (RoomError).
    """
    with transaction.atomic():
        room = _locked_room(room_id)
        _require_open(room)
        taken = set(room.seat_set.values_list("index", flat=True))
        free = [i for i in range(room.seats) if i not in taken]
        if free and level is None:
            return False  # somebody left again before the start: the room waits on
        Seat.objects.bulk_create(Seat(room=room, index=i, bot_level=level or "") for i in free)
        _start(room)
    return True


def _start(room: Room) -> None:
    """Start the locked, open `room` with the seats it has (at least the game's minimum)."""
    if room.status != Room.Status.OPEN:
        raise RoomError("already_started", _("This room has already started."))
    seats = list(room.seat_set.order_by("index"))
    need = room.game_info.min_seats
    if len(seats) < need:
        raise RoomError(
            "not_enough_players",
            ngettext(
                "%(game)s needs at least %(count)d player; invite someone or add bots.",
                "%(game)s needs at least %(count)d players; invite someone or add bots.",
                need,
            )
            % {"game": game_name(room.game), "count": need},
        )
    # Close the gaps so that turn order is 0..n-1 (seat numbers are the game's seats).
    for new_index, seat in enumerate(seats):
        if seat.index != new_index:
            Seat.objects.filter(pk=seat.pk).update(index=new_index)
            seat.index = new_index
    room.seats = len(seats)
    room.status = Room.Status.PLAYING
    room.started_at = timezone.now()
    room.save(update_fields=["seats", "status", "started_at"])
    play.start_match(room, seats)
    _after_commit(room.pk)


def close_room(room_id: int, user, reason: str = "", moderator: bool = False) -> Room:
    """Close a room before its end: its host may, and so may a moderator (`moderator=True`).

    Its players are told why (the room page and the table show `closed_reason`); a match in
    progress stops where it stands, with no winner, and its bots stop playing.
    """
    reason = " ".join(str(reason or "").split())[:200]
    if not moderator:
        _throttle(user)
    with transaction.atomic():
        room = _locked_room(room_id)
        if not moderator:
            _require_host(room, user)
        if room.status in (Room.Status.FINISHED, Room.Status.CLOSED):
            raise RoomError("room_over", _("This room is over already."))
        who = "a moderator" if moderator else "its host"
        room.status = Room.Status.CLOSED
        room.ended_at = timezone.now()
        room.closed_reason = f"Closed by {who}" + (f": {reason}" if reason else ".")
        room.save(update_fields=["status", "ended_at", "closed_reason"])
        play.close_match(room.pk, room.closed_reason)
        _after_commit(room.pk)
    return room


def require_member(user) -> None:
    """Refuse a guest (tables.guests) what only members may do: rooms with people, rated play."""
    if is_guest(user):
        raise RoomError(
            "guest",
            _("Guests practise against bots; sign up to open rooms and play people."),
            403,
        )


def _throttle(user) -> None:
    # Generous for people (a click a second for a minute), tight enough to stop a script
    # from churning rooms and flooding everyone's lobby with pushes.
    if not ratelimit.hit(
        "room-actions", user.pk, settings.ROOM_ACTIONS_PER_USER, settings.ROOM_ACTION_WINDOW
    ):
        raise RoomError(
            "too_many_actions",
            _("You are going too fast; please wait a minute before the next room change."),
            429,
        )


def _locked_room(room_id: int) -> Room:
    # The match first, then the room: the order of the move path (tables.play.act locks the
    # match and, when the match ends, updates the room). Taking them the other way round here
    # (leave, close, a ban) could deadlock with a match-ending move on PostgreSQL.
    list(Match.objects.select_for_update().filter(room_id=room_id).values_list("pk", flat=True))
    try:
        return Room.objects.select_for_update().get(pk=room_id)
    except Room.DoesNotExist:
        raise RoomError("no_such_room", _("There is no such room."), 404) from None


def may_start(room: Room, user) -> bool:
    """Whether `user` may start `room`: its host, or anyone seated once every seat is taken."""
    if room.host_id == user.pk and not room.hostless:
        return True
    seats = list(room.seat_set.all())
    return len(seats) >= room.seats and any(s.user_id == user.pk for s in seats)


def _require_host(room: Room, user) -> None:
    if room.hostless:
        raise RoomError(
            "no_host",
            _("Nobody hosts a room the site paired: no one may remove, add or close here."),
            403,
        )
    if room.host_id != user.pk:
        raise RoomError("not_host", _("Only the host of this room may do that."), 403)


def _require_open(room: Room) -> None:
    if room.status == Room.Status.PLAYING:
        raise RoomError("already_started", _("This room has already started."))
    if room.status != Room.Status.OPEN:
        raise RoomError("room_over", _("This room is over."))


def finish_room(sender: Any, match: Any, **kwargs: Any) -> None:
    """The room of a match that just finished is finished too (tables' match_finished)."""
    # A room that everyone left stays closed; one being played is now finished.
    Room.objects.filter(pk=match.room_id, status=Room.Status.PLAYING).update(
        status=Room.Status.FINISHED, ended_at=timezone.now()
    )
    after_commit_notify(match.room_id)


def close_ended_room(sender: Any, match: Any, **kwargs: Any) -> None:
    """The room of a match the tables stopped is closed too, for the same reason (tables'
    match_closed: the driver ended a table nobody was at). A room closed first (everyone
    left, the host closed it) keeps what it says."""
    Room.objects.filter(pk=match.room_id, status=Room.Status.PLAYING).update(
        status=Room.Status.CLOSED, ended_at=timezone.now(), closed_reason=match.closed_reason
    )
    after_commit_notify(match.room_id)


# Kept in English (a closed room's reason), worded in its reader's language where shown.
EXPIRED = gettext_noop("Nobody came to play this rematch in time: the room expired.")


def expire_unopened(now: Any = None) -> list[int]:
    """Close the rematches nobody came to (the lobby's sweep, beside quick play's fills).

    A rematch opens as soon as one player asks; if no one else takes a seat within
    `REMATCH_EXPIRY` seconds it leaves the lobby, closed, rather than wait there for ever.
    (A practice table is started at once: one nobody opens ends as an abandoned table,
    tables.presence.end_unwatched.) Returns the rooms closed."""
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.REMATCH_EXPIRY)
    due = Room.objects.filter(
        status=Room.Status.OPEN, rematch_of__isnull=False, created_at__lte=cutoff
    )
    closed = []
    for pk in due.values_list("pk", flat=True)[:20]:
        with transaction.atomic():
            room = _locked_room(pk)
            people = room.seat_set.filter(user__isnull=False).count()
            if room.status != Room.Status.OPEN or people > 1:
                continue  # started meanwhile, or someone came: it waits for its host
            room.status = Room.Status.CLOSED
            room.ended_at = timezone.now()
            room.closed_reason = EXPIRED
            room.save(update_fields=["status", "ended_at", "closed_reason"])
            _after_commit(room.pk)
            closed.append(pk)
    return closed


def rate_finished_match(sender: Any, match: Any, **kwargs: Any) -> None:
    """Rate a match that just finished, unless its room was created unrated (tables.ratings)."""
    if Room.objects.filter(pk=match.room_id, rated=True).exists():
        ratings.rate_match(match)


def after_commit_notify(room_id: int) -> None:
    """Tell the room's page and the lobby about a change once the transaction commits."""
    _after_commit(room_id)


def _after_commit(room_id: int) -> None:
    transaction.on_commit(partial(live.room_changed, room_id))
    transaction.on_commit(partial(live.lobby_changed, room_id))


# --------------------------------------------------------------------------- rematch


def rematch(room_id: int, user) -> Room:
    """Open (or join) the rematch of a finished room: same game, seats, options, privacy, bots.

    The first of the old room's players to ask hosts it and sits in seat 0; the same bots (same
    levels) take the last seats. Asking again, or another player asking, joins that same room:
    a finished room has at most one rematch (`Room.rematch_of`).
    """
    from tables.live.rooms import rematch_opened

    require_member(user)
    _throttle(user)
    with transaction.atomic():
        old = _locked_room(room_id)  # every rematch of this room is decided under this lock
        if old.status != Room.Status.FINISHED:
            raise RoomError("not_finished", _("Only a finished match can have a rematch."))
        if not was_player(old, user):
            raise RoomError(
                "not_a_player", _("Only the players of this match may ask for a rematch."), 403
            )
        existing = Room.objects.select_for_update().filter(rematch_of=old).first()
        if existing is not None:
            return _join_rematch(existing, user)
        _require_room_cap(user)
        room = Room.objects.create(
            game=old.game,
            seats=old.seats,
            options=old.options,
            private=old.private,
            rated=old.rated,
            host=user,
            rematch_of=old,
        )
        Seat.objects.create(room=room, index=0, user=user)
        bots = list(
            MatchPlayer.objects.filter(match__room=old, user__isnull=True)
            .order_by("seat")
            .values_list("bot_level", flat=True)
        )
        # The bots keep their order in the last seats; the people's seats come first.
        bots = bots[: room.seats - 1]
        first = room.seats - len(bots)
        Seat.objects.bulk_create(
            Seat(room=room, index=first + n, bot_level=level or Seat.BotLevel.NORMAL)
            for n, level in enumerate(bots)
        )
        _after_commit(room.pk)
        transaction.on_commit(partial(rematch_opened, old.pk, room.pk, user.username))
        transaction.on_commit(
            partial(
                signals.rematch_opened.send, sender=Room, old_room_id=old.pk, room=room, user=user
            )
        )
    return room


def was_player(room: Room, user) -> bool:
    """Whether `user` held a seat of `room`'s match (a private rematch lets him in unlinked)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return MatchPlayer.objects.filter(match__room=room, user=user).exists()


def _old_player(room: Room, user) -> bool:
    # A private rematch lets the earlier room's people in without the invite link.
    return room.rematch_of_id is not None and was_player(Room(pk=room.rematch_of_id), user)


def _join_rematch(room: Room, user) -> Room:
    if room.seat_set.filter(user=user).exists():
        return room  # a second click: he is there already
    if room.removed.filter(pk=user.pk).exists():
        raise RoomError(
            "removed", _("The host removed you from the rematch; you cannot sit there again."), 403
        )
    if room.status == Room.Status.PLAYING:
        raise RoomError("already_started", _("The rematch has already started without you."))
    if room.status != Room.Status.OPEN:
        raise RoomError("room_over", _("The rematch of this match is over."))
    taken = set(room.seat_set.values_list("index", flat=True))
    free = [i for i in range(room.seats) if i not in taken]
    if not free:
        raise RoomError("room_full", _("Every seat of the rematch is taken."))
    Seat.objects.create(room=room, index=free[0], user=user)
    _after_commit(room.pk)
    return room


def _require_room_cap(user) -> None:
    hosted = Room.objects.filter(
        host=user, status__in=(Room.Status.OPEN, Room.Status.PLAYING)
    ).count()
    if hosted >= settings.ROOMS_PER_USER:
        raise RoomError(
            "too_many_rooms",
            ngettext(
                "You already host %(count)d room that is open or being played; "
                "finish or leave it before opening another.",
                "You already host %(count)d rooms that are open or being played; "
                "finish or leave one before opening another.",
                hosted,
            )
            % {"count": hosted},
        )


def vacate_seats(user) -> list[int]:
    """Take every seat `user` holds in rooms not over away from him at once (a ban), and every
    bot's seat he was to take at a next deal.

    As `leave_room` does, without its rate limit: in an open room the seat is freed, in a game
    in progress a bot takes it over and his match player is marked left; a room he hosted goes
    to the longest-seated human, or closes when none is left. Returns the rooms changed.
    """
    live_rooms = (Room.Status.OPEN, Room.Status.PLAYING)
    room_ids = set(
        Seat.objects.filter(user=user, room__status__in=live_rooms).values_list(
            "room_id", flat=True
        )
    )
    room_ids |= set(
        Room.objects.filter(host=user, status__in=live_rooms).values_list("pk", flat=True)
    )
    changed = []
    for room_id in sorted(room_ids):
        with transaction.atomic():
            room = _locked_room(room_id)
            if room.status not in live_rooms:
                continue
            _give_up_seat(room, room.seat_set.filter(user=user).first(), user)
            changed.append(room.pk)
    # A seat he would take at a next deal (an invitation accepted) is never given to him now.
    presence.drop_claims(user)
    return changed
