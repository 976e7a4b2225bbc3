"""Quick play: "Play now" seats you at a waiting room of your level, or opens one; practice.

Requests of one game and seat count meet in one pool (`QuickPlayPool`, a row locked while a
request finds or opens its room), so two people pressing at the same instant get one room, on
one process or several. `play_now` takes the first public rated open room of the game (waiting
longest first) whose seated people's mean rating is near yours: within
`settings.QUICK_PLAY_BAND` points, or `QUICK_PLAY_PROVISIONAL_BAND` when a rating is still
provisional ("?" says little), widened by `QUICK_PLAY_BAND_GROWTH` points for each second the
room has waited. A room it opened starts as soon as it is full, and after
`settings.QUICK_PLAY_WAIT` seconds bots take its empty seats and it starts anyway, so nobody
waits forever. The wait is kept on the room (`quick_fill_at`): a timer in the process that
opened it fills it on time, and any later quick play, room page or lobby list fills a room
whose timer was lost (a restart); so does the next page or stream of the room that connects to
a process (`rearm`: the waiting player's own, reconnecting after a deploy). `practise` starts
an unrated table against bots at once.
Every change goes through lobby.services; the site's own fills are charged to nobody.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, transaction
from django.utils import timezone
from django.utils.translation import gettext

from games.registry import GAMES, pace_of
from lobby import live, services
from lobby.models import QuickPlayPool, Room
from lobby.services import RoomError
from tables import ratings
from tables.words import game_name

log = logging.getLogger(__name__)


def seats_for(game: str) -> int:
    """How many seats a room Play now opens for `game` has (the game's registry entry says)."""
    info = GAMES[game]
    wanted = info.quick_play_seats or info.min_seats
    return max(info.min_seats, min(wanted, info.max_seats))


def _check_game(game: Any) -> None:
    if game not in GAMES:
        raise RoomError(
            "invalid_game", gettext("There is no game called %(game)r.") % {"game": game}, 400
        )


def paced_options(pace: Any) -> dict[str, Any]:
    """The options of a quick-play table at `pace` seconds (0 or ""/None: not paced); its bots
    play at half their speed (issue 41). RoomError 400 for a pace the site does not offer."""
    if pace in (None, "", "0", 0):
        return {}
    return services.check_site_options({"pace": pace, "bot_speed": PACED_BOT_SPEED})


# Quick play's paced tables: the bots at half their speed, as the tests play them.
PACED_BOT_SPEED = 0.5


def play_now(user: Any, game: Any, pace: Any = None) -> Room:
    """Seat `user` at a waiting room of `game` near his rating, or open one for him; `pace`:
    only paced tables of that pace (their ratings are their own)."""
    _check_game(game)
    services.require_member(user)  # rated play: guests sign up first
    services.require_not_held_out(user)  # rated play: not while flagged (tables.reaction)
    options = paced_options(pace)
    fill_due()
    seats = seats_for(game)
    with transaction.atomic():
        _lock_pool(game, seats)
        room, joined = _find_or_open(user, game, seats, options)
    if joined:
        _start_if_full(room.pk)
        return Room.objects.get(pk=room.pk)
    return room


def _lock_pool(game: str, seats: int) -> None:
    # Held until the transaction ends: the next request of this pool sees this one's room.
    # The first request of a pool makes its row; a second making it at once waits on the
    # unique key and then reads (and locks) the first one's.
    QuickPlayPool.objects.select_for_update().get_or_create(game=game, seats=seats)


def _find_or_open(
    user: Any, game: str, seats: int, options: dict[str, Any] | None = None
) -> tuple[Room, bool]:
    """His waiting room, a room he joined now (True), or a room opened for him; pool locked."""
    mine = Room.objects.filter(status=Room.Status.OPEN, game=game, seat_set__user=user).first()
    if mine is not None:
        return mine, False  # a second click: he is already waiting there
    pace = pace_of(options)
    for room in _candidates(user, game, options):
        if pace_of(room.options) != pace:
            continue  # a paced table for those who asked for its pace only

        try:
            services.join_room(room.pk, user)
        except RoomError as refusal:
            if refusal.code in ("room_full", "already_started", "removed"):
                continue  # taken or started a moment ago: the next one
            raise
        return room, True
    room = services.create_room(user, game, seats, options or None, rated=True, hostless=True)
    due = timezone.now() + timedelta(seconds=settings.QUICK_PLAY_WAIT)
    Room.objects.filter(pk=room.pk).update(quick_fill_at=due)
    room.quick_fill_at = due
    transaction.on_commit(lambda: _schedule(room.pk, settings.QUICK_PLAY_WAIT))
    meet = _meeting_in(user, room, options)
    if meet is not None:
        transaction.on_commit(lambda: _schedule_merge(room.pk, meet))
    return room, False


def _meeting_in(user: Any, room: Room, options: dict[str, Any] | None) -> float | None:
    """Seconds until an older waiting room of the pool would take `user` (its band widens as
    it waits), if that comes before the bots of either room: then he moves there (`merge`)."""
    now = timezone.now()
    older = [
        r
        for r in live._rooms()
        .filter(
            status=Room.Status.OPEN,
            private=False,
            rated=True,
            game=room.game,
            hostless=True,
            quick_fill_at__isnull=False,
            created_at__lt=room.created_at,
        )
        .exclude(removed=user)
        .order_by("created_at", "pk")[:50]
        if len(r.seat_set.all()) < r.seats and pace_of(r.options) == pace_of(options)
    ]
    people = {s.user_id for r in older for s in r.seat_set.all() if s.user_id} | {user.pk}
    shown = ratings.ratings_of(list(people), ratings.rating_key(room.game, options))
    mine = shown[user.pk]
    soonest = None
    for other in older:
        seated = [shown[s.user_id] for s in other.seat_set.all() if s.user_id]
        if not seated or other.quick_fill_at is None:
            continue
        gap = abs(sum(r.value for r in seated) / len(seated) - mine.value)
        provisional = mine.provisional or any(r.provisional for r in seated)
        # band(waited) = start + growth * waited reaches the gap after this much of its wait:
        needed = (gap - band(0.0, provisional)) / max(settings.QUICK_PLAY_BAND_GROWTH, 1e-9)
        at = other.created_at + timedelta(seconds=max(needed, 0.0))
        if at < min(other.quick_fill_at, room.quick_fill_at or at) and (
            soonest is None or at < soonest
        ):
            soonest = at
    return None if soonest is None else max((soonest - now).total_seconds(), 0.0)


def merge(room_id: int) -> int | None:
    """A waiting quick-play room whose one person an older waiting room of the pool now takes
    (its band has grown to him): he moves there, the later presser, and his room closes, its
    page following him (`Room.moved_to`). Returns the room he sits in now, or None."""
    room = Room.objects.filter(pk=room_id, status=Room.Status.OPEN, hostless=True).first()
    if room is None or room.quick_fill_at is None:
        return None
    people = [s.user for s in room.seat_set.select_related("user") if s.user_id]
    if len(people) != 1:
        return None
    user = people[0]
    with transaction.atomic():
        _lock_pool(room.game, room.seats)
        for other in _candidates(user, room.game, room.options):
            if (
                other.pk == room.pk
                or not other.hostless
                or other.quick_fill_at is None
                or other.created_at >= room.created_at
                or pace_of(other.options) != pace_of(room.options)
            ):
                continue
            if services.move_to_room(room.pk, other.pk, user):
                moved = other.pk
                break
        else:
            return None
    _start_if_full(moved)
    return moved


def band(waited: float, provisional: bool) -> float:
    """How many rating points from a room's mean a newcomer may be, after `waited` seconds."""
    start = settings.QUICK_PLAY_PROVISIONAL_BAND if provisional else settings.QUICK_PLAY_BAND
    return float(start) + settings.QUICK_PLAY_BAND_GROWTH * max(waited, 0.0)


def _candidates(user: Any, game: str, options: dict[str, Any] | None = None) -> list[Room]:
    """Public rated rooms of `game` with a free seat, waiting longest first, within his band."""
    rooms = [
        r
        for r in live._rooms()
        .filter(status=Room.Status.OPEN, private=False, rated=True, game=game)
        .exclude(removed=user)
        .order_by("created_at", "pk")[:50]
        if len(r.seat_set.all()) < r.seats
    ]
    people = {s.user_id for r in rooms for s in r.seat_set.all() if s.user_id} | {user.pk}
    shown = ratings.ratings_of(list(people), ratings.rating_key(game, options))
    mine = shown[user.pk]
    now = timezone.now()
    near = []
    for room in rooms:
        seated = [shown[s.user_id] for s in room.seat_set.all() if s.user_id]
        if not seated:
            near.append(room)
            continue
        mean = sum(r.value for r in seated) / len(seated)
        provisional = mine.provisional or any(r.provisional for r in seated)
        waited = (now - room.created_at).total_seconds()
        if abs(mean - mine.value) <= band(waited, provisional):
            near.append(room)
    return near


def _start_if_full(room_id: int) -> None:
    room = Room.objects.filter(pk=room_id, status=Room.Status.OPEN).first()
    if room is not None and room.quick_fill_at and room.seat_set.count() >= room.seats:
        with contextlib.suppress(RoomError):  # started by someone else meanwhile
            services.fill_and_start(room.pk, level=None)


def practise(user: Any, game: Any, level: Any = "normal", pace: Any = None) -> Room:
    """Start an unrated table of `game` against bots of `level` for `user`, at once (paced at
    `pace` seconds, with bots at half speed, when asked)."""
    check_practice(game, level)
    options = paced_options(pace)
    seats = seats_for(game)
    with transaction.atomic():
        room = services.create_room(user, game, seats, options or None, rated=False, practice=True)
        # One click, one room action: the bots and the start come with the room.
        services.fill_and_start(room.pk, level=level)
    return Room.objects.get(pk=room.pk)


def check_practice(game: Any, level: Any) -> None:
    """Refuse (RoomError 400) a practice of no game or with bots of no such level."""
    _check_game(game)
    if level not in GAMES[game].bot_levels:
        levels = ", ".join(GAMES[game].bot_levels)
        raise RoomError(
            "invalid_level",
            gettext("%(game)s bots come in these levels: %(levels)s.")
            % {"game": game_name(game), "levels": levels},
            400,
        )


def fill_room(room_id: int) -> bool:
    """Fill a quick-play room's empty seats with bots and start it, if its wait is over.

    The site does it, not the host: no person's rate limit is charged. A refusal (the room
    started or closed meanwhile) is expected and returns False; any other failure rolls the
    claim back, so the room stays due and the next try (the timer's, a page's) fills it.
    """
    try:
        with transaction.atomic():
            # Claim it: of two fillers racing (a timer and a page), one updates the row.
            claimed = Room.objects.filter(
                pk=room_id,
                status=Room.Status.OPEN,
                quick_fill_at__isnull=False,
                quick_fill_at__lte=timezone.now(),
            ).update(quick_fill_at=None)
            if not claimed:
                return False
            return services.fill_and_start(room_id, level="normal")
    except RoomError as refusal:
        log.info("quick play: room %s was not filled (%s)", room_id, refusal.code)
        return False


def fill_due() -> list[int]:
    """Fill every quick-play room whose wait is over (those whose timer was lost)."""
    due = Room.objects.filter(status=Room.Status.OPEN, quick_fill_at__lte=timezone.now())
    filled = []
    for pk in due.values_list("pk", flat=True)[:20]:
        try:
            if fill_room(pk):
                filled.append(pk)
        except DatabaseError:
            # The page that looked must not fail for it: the room stays due for the next try.
            log.warning("quick play: filling room %s failed; it stays due", pk, exc_info=True)
    return filled


# A timer whose fill failed (the database was away) tries again after these many seconds.
RETRY_DELAYS = (1.0, 2.0, 5.0, 10.0, 30.0)


# The rooms a timer of this process will fill (one each: `rearm` adds none beside it).
_armed: set[int] = set()


def rearm(room_id: int) -> None:
    """A page or stream of `room_id` connected to this process: if it is a quick-play room still
    waiting for people, a timer here fills it when its wait ends. The timer of the process that
    opened it is gone if that process stopped (a deploy, a restart), and the waiting player's
    page or stream reconnects somewhere: that is where the wait goes on, to its promised end."""
    if not settings.QUICK_PLAY_TIMER or room_id in _armed:
        return
    due = (
        Room.objects.filter(pk=room_id, status=Room.Status.OPEN, quick_fill_at__isnull=False)
        .values_list("quick_fill_at", flat=True)
        .first()
    )
    if due is not None:
        _schedule(room_id, max((due - timezone.now()).total_seconds(), 0.0))


def _schedule_merge(room_id: int, delay: float) -> None:
    """A timer of this process that moves the room's person when an older room would take him
    (lost with the process: the room then fills with bots on time, as any other)."""
    if not settings.QUICK_PLAY_TIMER:
        return

    def run() -> None:
        try:
            close_old_connections()
            merge(room_id)
        except Exception:  # a timer must never take the process down
            log.exception("quick play: merging room %s failed; it fills on time", room_id)
        finally:
            close_old_connections()

    timer = threading.Timer(delay + 0.05, run)
    timer.daemon = True
    timer.start()


def _schedule(room_id: int, delay: float, attempt: int = 0) -> None:
    if not settings.QUICK_PLAY_TIMER:
        return

    def run() -> None:
        try:
            close_old_connections()
            fill_room(room_id)
        except Exception:  # a timer must never take the process down
            if attempt >= len(RETRY_DELAYS):
                log.exception("quick play: filling room %s failed; pages will fill it", room_id)
            else:
                log.warning("quick play: filling room %s failed; trying again", room_id)
                _schedule(room_id, RETRY_DELAYS[attempt], attempt + 1)
                return  # still armed
        finally:
            close_old_connections()
        _armed.discard(room_id)

    _armed.add(room_id)
    timer = threading.Timer(delay + 0.05, run)
    timer.daemon = True
    timer.start()
