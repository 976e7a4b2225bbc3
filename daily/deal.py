"""The day's deal: its seeds from the site's secret and the date, its commitment, its reveal.

Pure (no Django, no clock): the date comes in, and so does the secret. One Ligretto Mini deal a
UTC day, the same for everyone, against one bot of a fixed level whose own random choices come
from a seed of the day too, so that nothing but the player differs between two attempts.

    seed     = HMAC-SHA256(secret, "daily:<game>:<date>")      truncated to 53 bits
    bot_seed = HMAC-SHA256(secret, "daily:<game>:<date>:bot")  truncated to 53 bits
    commitment = SHA-256("<format>|<date>|<game>|<seed>|<bot level>|<bot seed>"), hex

The commitment is published with the day; the seeds the day after (`revealed`), so anyone can
recompute the commitment and deal the same cards with the engine (docs/daily.md).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import date, datetime, timedelta

# The game of the daily challenge, and the bot everyone meets (its level never changes, so a
# day's results compare). Named here only: the shared code asks this module.
GAME = "ligretto-mini"
BOT_LEVEL = "normal"
# The commitment's layout; a change of it (or of what a deal means) is a new format.
FORMAT = 1
# Seeds fit in 53 bits: a JSON number any client reads exactly (a JavaScript double).
SEED_BITS = 53


@dataclass(frozen=True)
class Deal:
    """One day's challenge: what is dealt, whom you meet, and the published commitment."""

    day: date
    game: str
    seed: int
    bot_seed: int
    bot_level: str

    @property
    def commitment(self) -> str:
        return commitment(self.day, self.game, self.seed, self.bot_level, self.bot_seed)


def _seed(secret: bytes, label: str) -> int:
    digest = hmac.new(secret, label.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def deal_for(day: date, secret: str | bytes) -> Deal:
    """The challenge of `day` (a UTC date), from the site's secret."""
    key = secret.encode() if isinstance(secret, str) else secret
    label = f"daily:{GAME}:{day.isoformat()}"
    return Deal(day, GAME, _seed(key, label), _seed(key, label + ":bot"), BOT_LEVEL)


def commitment(day: date, game: str, seed: int, bot_level: str, bot_seed: int) -> str:
    """SHA-256 (hex) of what fixes the day's deal and bot: published before anyone plays."""
    text = f"{FORMAT}|{day.isoformat()}|{game}|{seed}|{bot_level}|{bot_seed}"
    return hashlib.sha256(text.encode()).hexdigest()


def utc_day(now: datetime) -> date:
    """The UTC date of an aware instant: the challenge's day (the same for everyone)."""
    offset = now.utcoffset()
    if offset is None:
        raise ValueError("an aware datetime is needed: the day is the UTC day")
    return (now - offset).date()


def revealed(day: date, today: date) -> bool:
    """Whether `day`'s seeds may be shown: from the UTC day after it."""
    return day < today


def next_deal_at(today: date) -> datetime:
    """When the next day's deal comes: midnight UTC after `today` (naive, read as UTC)."""
    return datetime.combine(today + timedelta(days=1), datetime.min.time())


def streaks(days: set[date], today: date) -> tuple[int, int]:
    """(current, best) runs of consecutive UTC days in `days`.

    The current run ends today or yesterday (today's challenge may still be ahead); a day
    missed before that breaks it.
    """
    best = run = 0
    previous: date | None = None
    for day in sorted(d for d in days if d <= today):
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    current = run if previous is not None and today - previous <= timedelta(days=1) else 0
    return current, best
