"""The daily challenge's pages: today's deal and boards, the start, and a past day's replays.
(The lobby's box and a player's streak are drawn by this app's template tags, in those pages'
own answers: templatetags/daily.py.)"""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST

from daily import board, services
from daily import deal as deals
from daily.models import Attempt
from lobby import access, guests
from lobby.services import RoomError
from lobby.templatetags.waiting import clock

# A signed cookie saying the day this browser last played (a visitor plays as a guest once a
# day per browser): a cookie, not the session, which logging out empties.
COOKIE = "daily_played"
SALT = "daily.played"


def page(request: HttpRequest) -> HttpResponse:
    """Today's challenge (its commitment, your start or result, the countdown) and the boards
    of today and yesterday."""
    return render(request, "daily/page.html", _page(request))


def _page(request: HttpRequest, refusal: services.DailyError | None = None) -> dict[str, Any]:
    now = services.site_clock()()
    day = deals.utc_day(now)
    yesterday = day - timedelta(days=1)
    mine = services.attempt_of(request.user, day)
    next_at = deals.next_deal_at(day).replace(tzinfo=UTC)
    return {
        "deal": services.deal_of(day),
        "mine": board.read([mine])[0] if mine else None,
        "played_here": _played_here(request) == day.isoformat(),
        "today_board": board.board(day),
        "yesterday": services.deal_of(yesterday),
        "yesterday_board": board.board(yesterday),
        "next_at": next_at,
        "countdown": _countdown(max(0, int((next_at - now).total_seconds()))),
        "refusal": refusal,
    }


def _countdown(seconds: int) -> SafeString:
    """The time left until the next deal, counted down each second by static/js/daily.js."""
    return format_html(
        '<time id="daily-countdown" datetime="PT{}S" data-countdown="{}">{}</time>',
        seconds,
        seconds,
        clock(seconds),
    )


@require_POST
def play(request: HttpRequest) -> HttpResponse:
    """Start today's attempt (a visitor plays as a guest, unranked) and go to its table."""
    day = services.today(services.site_clock()).isoformat()
    try:
        if _played_here(request) == day and not request.user.is_authenticated:
            raise services.DailyError(
                "already_played",
                services.already_played_here(),
                409,
            )
        user = request.user if request.user.is_authenticated else guests.start(request)
        attempt = services.play(user, services.site_clock())
    except RoomError as refusal:  # too many guests from this address
        error = services.DailyError(refusal.code, refusal.message, refusal.status)
        return render(request, "daily/page.html", _page(request, error), status=error.status)
    except services.DailyError as refusal:
        return render(request, "daily/page.html", _page(request, refusal), status=refusal.status)
    response = redirect(attempt.room)
    response.set_signed_cookie(
        COOKIE,
        day,
        salt=SALT,
        max_age=2 * 24 * 3600,
        httponly=True,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )
    return response


def _played_here(request: HttpRequest) -> str | None:
    day: str | None = request.get_signed_cookie(COOKIE, default=None, salt=SALT)
    return day


def today_board(request: HttpRequest) -> HttpResponse:
    """Today's board alone, which the page reads again while it is open."""
    rows = board.board(services.today(services.site_clock()))
    return render(request, "daily/page.html#today-board", {"today_board": rows})


def replay(request: HttpRequest, day: str, room_id: int) -> HttpResponse:
    """The replay of a past day's run, open to everyone once the day's deal is revealed."""
    try:
        when = services.parse_day(day, services.site_clock())
    except services.DailyError as refusal:
        raise Http404(refusal.message) from None
    if not deals.revealed(when, services.today(services.site_clock())):
        raise Http404("Today's runs are shown tomorrow.")
    get_object_or_404(Attempt, day=when, room_id=room_id, ranked=True)
    # Revealed: the run's private room may be watched like one whose link one holds.
    access.remember_invite(request.session, room_id)
    return redirect("lobby:replay", room_id)
