"""Quick play: "Play now" seats you at a waiting room of your level, or opens one; practice.

`play_now` takes the first public rated open room of the game (waiting longest first) whose
seated people's mean rating is within `settings.QUICK_PLAY_BAND` of yours, or opens one; a room
it opened starts as soon as it is full, and after `settings.QUICK_PLAY_WAIT` seconds bots take
its empty seats and it starts anyway, so nobody waits forever. The wait is kept on the room
(`quick_fill_at`): a timer in the process that opened it fills it on time, and any later quick
play, room page or lobby list fills a room whose timer was lost (a restart). `practise` starts
an unrated table against bots at once. Every change goes through lobby.services.
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

from games.registry import GAMES
from lobby import live, services
from lobby.models import Room
from lobby.services import RoomError
from tables import ratings
from tables.words import game_name

log = logging.getLogger(__name__)

# How many seats a room quick play opens has, per game (within the game's limits).
SEATS = {"ligretto-mini": 2, "ligretto": 4, "allegra": 4}


def seats_for(game: str) -> int:
    info = GAMES[game]
    return max(info.min_seats, min(SEATS.get(game, info.min_seats), info.max_seats))


def _check_game(game: Any) -> None:
    if game not in GAMES:
        raise RoomError(
            "invalid_game", gettext("There is no game called %(game)r.") % {"game": game}, 400
        )


def play_now(user: Any, game: Any) -> Room:
    """Seat `user` at a waiting room of `game` near his rating, or open one for him."""
    _check_game(game)
    fill_due()
    mine = Room.objects.filter(status=Room.Status.OPEN, game=game, seat_set__user=user).first()
    if mine is not None:
        return mine  # a second click: he is already waiting there
    for room in _candidates(user, game):
        try:
            services.join_room(room.pk, user)
        except RoomError as refusal:
            if refusal.code in ("room_full", "already_started", "removed"):
                continue  # taken or started a moment ago: the next one
            raise
        _start_if_full(room.pk)
        return Room.objects.get(pk=room.pk)
    room = services.create_room(user, game, seats_for(game), None, rated=True)
    due = timezone.now() + timedelta(seconds=settings.QUICK_PLAY_WAIT)
    Room.objects.filter(pk=room.pk).update(quick_fill_at=due)
    room.quick_fill_at = due
    transaction.on_commit(lambda: _schedule(room.pk, settings.QUICK_PLAY_WAIT))
    return room


def _candidates(user: Any, game: str) -> list[Room]:
    """Public rated rooms of `game` with a free seat, waiting longest first, within his band."""
    rooms = [
        r
        for r in live._rooms()
        .filter(status=Room.Status.OPEN, private=False, rated=True, game=game)
        .exclude(removed=user)
        .order_by("created_at", "pk")[:50]
        if len(r.seat_set.all()) < r.seats
    ]
    live.attach_ratings(rooms)
    mine = ratings.ratings_of([user.pk], game)[user.pk].value
    band = settings.QUICK_PLAY_BAND
    return [r for r in rooms if r.rating is None or abs(r.rating - mine) <= band]


def _start_if_full(room_id: int) -> None:
    room = Room.objects.filter(pk=room_id, status=Room.Status.OPEN).first()
    if room is not None and room.quick_fill_at and room.seat_set.count() >= room.seats:
        with contextlib.suppress(RoomError):  # started by someone else meanwhile
            services.fill_and_start(room.pk, level=None)


def practise(user: Any, game: Any, level: Any = "normal") -> Room:
    """Start an unrated table of `game` against bots of `level` for `user`, at once."""
    _check_game(game)
    if level not in GAMES[game].bot_levels:
        levels = ", ".join(GAMES[game].bot_levels)
        raise RoomError(
            "invalid_level",
            gettext("%(game)s bots come in these levels: %(levels)s.")
            % {"game": game_name(game), "levels": levels},
            400,
        )
    seats = seats_for(game)
    with transaction.atomic():
        room = services.create_room(user, game, seats, None, rated=False)
        # One click, one room action: the bots and the start come with the room.
        services.fill_and_start(room.pk, level=level)
    return Room.objects.get(pk=room.pk)


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
        finally:
            close_old_connections()

    timer = threading.Timer(delay + 0.05, run)
    timer.daemon = True
    timer.start()
