"""The daily challenge's one write path (an attempt and its room) and what it reads.

`play` makes the attempt: the room through the lobby's `arrange_room` and the unique attempt
row in one transaction, so a second start the same UTC day is refused (409) however it races.
Every function that needs the day takes a `clock` (a callable returning an aware datetime,
`django.utils.timezone.now` by default), so tests freeze the date without patching anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from daily import deal as deals
from daily.models import Attempt
from lobby import services as lobby
from tables.guests import is_guest

Clock = Callable[[], datetime]
# A day as the pages and the API name it (ASCII digits only: no other script's digits).
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class DailyError(Exception):
    """A refusal: its code and sentence (the Board API's), its status, and the attempt it
    concerns when there is one (a second start: the first one's room)."""

    def __init__(
        self, code: str, message: str, status: int = 400, attempt: Attempt | None = None
    ) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.attempt = code, message, status, attempt


def site_clock() -> Clock:
    """The clock the pages and the API read: the real one, or the instant the `DAILY_NOW`
    setting names (ISO 8601 with its offset), which tests set to freeze the day."""
    frozen = getattr(settings, "DAILY_NOW", "")
    if not frozen:
        return timezone.now
    at = datetime.fromisoformat(frozen)
    return lambda: at


def today(clock: Clock = timezone.now) -> date:
    """The challenge's day now: the UTC date."""
    return deals.utc_day(clock())


def deal_of(day: date) -> deals.Deal:
    """`day`'s challenge, from the site's secret (settings.DAILY_SECRET)."""
    return deals.deal_for(day, settings.DAILY_SECRET)


def parse_day(text: Any, clock: Clock = timezone.now) -> date:
    """A day named as YYYY-MM-DD, up to today (UTC): else DailyError 400 `bad_date` (not
    written so) or 404 `no_such_day` (no such date, or one still to come)."""
    if not isinstance(text, str) or not DAY.fullmatch(text):
        raise DailyError(
            "bad_date", _("Name a day as YYYY-MM-DD (a UTC date), e.g. 2026-12-05."), 400
        )
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise DailyError("no_such_day", _("There is no such day in the calendar."), 404) from None
    if day > today(clock):
        raise DailyError("no_such_day", _("That day's challenge has not been dealt yet."), 404)
    return day


def attempt_of(user: Any, day: date) -> Attempt | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return Attempt.objects.select_related("room").filter(user=user, day=day).first()


def play(user: Any, clock: Clock = timezone.now) -> Attempt:
    """Start `user`'s attempt at today's deal (ranked for a member, not for a guest).

    Raises DailyError 409 `already_played` (with the first attempt) on a second start today.
    """
    day = today(clock)
    deal = deal_of(day)
    ranked = not is_guest(user)
    try:
        with transaction.atomic():
            earlier = attempt_of(user, day)
            if earlier is not None:
                raise _already_played(earlier)
            room = lobby.arrange_room(
                user,
                deal.game,
                [user, deal.bot_level],
                {"rounds": 1},
                rated=ranked,
                private=True,  # nobody watches today's deal; the runs are shown the next day
                deal_seed=deal.seed,
                bot_seed=deal.bot_seed,
                bot_level=deal.bot_level,
            )
            return Attempt.objects.create(day=day, user=user, room=room, ranked=ranked)
    except IntegrityError:
        # Two starts raced past the check: the constraint kept one, and refuses this one.
        earlier = attempt_of(user, day)
        if earlier is None:
            raise
        raise _already_played(earlier) from None


def already_played_here() -> str:
    """The refusal of a second start from one browser (a guest), in the reader's language."""
    return _("This browser has already played today's challenge: one attempt a day.")


def _already_played(attempt: Attempt) -> DailyError:
    return DailyError(
        "already_played",
        _("You have already played today's challenge: one attempt a day. See your result."),
        409,
        attempt,
    )


@dataclass(frozen=True)
class Streak:
    current: int
    best: int
    days: int  # days played in all
    today: bool  # played today already


def streak(user: Any, clock: Clock = timezone.now) -> Streak:
    """`user`'s run of consecutive UTC days with an attempt: now, at best, and in all."""
    days = set(Attempt.objects.filter(user=user).values_list("day", flat=True))
    now = today(clock)
    current, best = deals.streaks(days, now)
    return Streak(current, best, len(days), now in days)
