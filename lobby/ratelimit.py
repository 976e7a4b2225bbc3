"""Limits kept in Django's cache: failed logins (growing delays), sign-ups and room actions.

The cache is the local-memory one in a single process and Redis when `REDIS_URL` is set, so
several Daphne processes share the counts. Counters use add() and incr(), which both caches do
atomically; with the local-memory cache, `hit`'s fixed windows are counted beside it in the
process's own memory (`_Windows`). The limits themselves are settings (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
import weakref
from typing import Any

from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from django.core.signals import setting_changed
from django.http import HttpRequest


def now() -> float:
    return time.time()


def clock() -> float:
    """The clock of `hit`'s windows in this process (tests move it)."""
    return time.monotonic()


def client_address(request: HttpRequest) -> str:
    """Return the address the request came from, trusting `TRUSTED_PROXY` proxies' word for it."""
    hops = settings.TRUSTED_PROXY
    if hops:
        # Each trusted proxy appends the address it saw: the n-th entry from the right is the
        # one the outermost trusted proxy saw. Entries further left are the client's to forge.
        forwarded = [part.strip() for part in request.headers.get("X-Forwarded-For", "").split(",")]
        forwarded = [part for part in forwarded if part]
        if len(forwarded) >= hops:
            return forwarded[-hops]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


# Counted events in a fixed window (sign-ups, room actions).


def _count(key: str, window: int) -> int:
    # The counter usually exists already (a move is counted on every action): one call then.
    for _ in range(2):
        try:
            return cache.incr(key)
        except ValueError:  # no window open: this event opens one
            if cache.add(key, 1, timeout=window):
                return 1
            # Someone else opened it between the two calls: count in theirs.
    return 1  # it keeps expiring under our hands: a window that has only just begun


def hit(scope: str, key: object, limit: int, window: int) -> bool:
    """Count one event for `key`; return False once more than `limit` fell in the window."""
    if _windows.local():
        return _windows.count(f"{scope}:{key}", window) <= limit
    return _count(f"rl:{scope}:{key}", window) <= limit


async def ahit(scope: str, key: object, limit: int, window: int) -> bool:
    """`hit` for code in the server's event loop: the same windows, and the same keys, so an
    action counted here and one counted by `hit` fall in one window. With Redis the count is
    one round trip that the loop awaits (`hit` would hold the loop, and every room of the
    process with it, while Redis answers), for a block of a tenth of the limit at a time
    (`_AsyncRedis.take`); in this process's memory it is `hit` itself."""
    if _windows.local() or not isinstance(caches["default"], RedisCache):
        return hit(scope, key, limit, window)  # no round trip to wait for (or no Redis)
    return await _redis.take(f"rl:{scope}:{key}", limit, window)


# `ahit` on Redis counts a block of a limit's BLOCKth part at once (at least one): a Board API
# stream's every move was a round trip (134 µs of the server's CPU, measured: a tenth of a
# move's on two processes, docs/performance.md).
BLOCK = 10


class _AsyncRedis:
    """A Redis client for each event loop that counts `ahit`'s windows (a client's
    connections belong to the loop that opened them), on the server the cache names."""

    PRUNE_AT = 4096  # keys held before the ended ones are dropped

    def __init__(self) -> None:
        self.clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )
        # What this process may still count without asking: key -> [window ends, events left].
        self.credits: dict[str, list[float]] = {}

    async def take(self, key: str, limit: int, window: int) -> bool:
        """Count one event against `limit`: from this process's credit for `key`, or, when it
        has none, with a block of the limit's BLOCKth part counted in Redis at once (one round
        trip), whose rest is its credit until the window ends.

        The count in Redis is never more than the limit lets through (a block's part over the
        limit is refused at once), so nobody acts more than the limit in a window; what a
        process holds unused counts already, so a user acting over HTTP and streams on several
        processes at once may be refused up to a block per process early.
        """
        at = clock()
        held = self.credits.get(key)
        if held is not None and held[1] >= 1 and at < held[0]:
            held[1] -= 1
            return True
        block = max(1, limit // BLOCK)
        count, left = await self.count(key, window, block)
        allowed = min(block, limit - (count - block))  # of the block, what is within the limit
        if allowed <= 0:
            return False
        if allowed > 1 and left > 0:
            if len(self.credits) >= self.PRUNE_AT:
                self.credits = {k: c for k, c in self.credits.items() if c[0] > at and c[1] >= 1}
            held = self.credits.get(key)
            if held is not None and at < held[0]:  # another block came back meanwhile
                held[1] += allowed - 1
            else:
                self.credits[key] = [at + left, allowed - 1]
        return True

    async def count(self, key: str, window: int, block: int = 1) -> tuple[int, float]:
        """Count `block` events for `key` in one round trip; return the window's count and
        the seconds it has left."""
        backend = caches["default"]
        loop = asyncio.get_running_loop()
        client = self.clients.get(loop)
        if client is None:
            import redis.asyncio

            # Django's Redis cache writes to the first of its servers.
            servers: list[str] = backend._servers  # type: ignore[attr-defined]
            client = self.clients[loop] = redis.asyncio.Redis.from_url(servers[0])
        full = backend.make_and_validate_key(key)
        # What `_count` does in two calls (add with the window's timeout, or incr), in one
        # round trip: open the window at 0 unless it is open, then count. Django's Redis cache
        # keeps an int as the number itself, so `hit` and this count the same key.
        async with client.pipeline(transaction=True) as pipe:
            pipe.set(full, 0, ex=window, nx=True)
            pipe.incrby(full, block)
            pipe.pttl(full)
            _opened, count, left = await pipe.execute()
        return int(count), max(int(left), 0) / 1000

    def reset(self, **kwargs: object) -> None:
        if kwargs.get("setting") == "CACHES":
            self.clients = weakref.WeakKeyDictionary()
            self.credits = {}


_redis = _AsyncRedis()
setting_changed.connect(_redis.reset)


class _Windows:
    """`hit`'s fixed windows in this process's memory, when the cache is this process's too.

    The local-memory cache counts per process anyway; here the same windows are counted
    without its key making and checking, its pickling and the lookup of the thread's cache
    (every Board API move is one `hit`: that was a tenth of a move's time at 40 tables x 4).
    With Redis (several processes) the counts stay in the cache. Changing CACHES (the tests'
    fresh prefix) starts every window afresh, as a new prefix does in the cache.
    """

    PRUNE_AT = 4096  # windows held before the ended ones are dropped

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.windows: dict[str, list[float]] = {}  # key -> [ends at, count]
        self.prune_at = self.PRUNE_AT  # twice what was left at the last pruning, at least
        self.is_local: bool | None = None

    def local(self) -> bool:
        if self.is_local is None:
            self.is_local = isinstance(caches["default"], LocMemCache)
        return self.is_local

    def count(self, key: str, window: int) -> int:
        at = clock()
        with self.lock:
            held = self.windows.get(key)
            if held is None or at >= held[0]:
                if len(self.windows) >= self.prune_at:
                    self.windows = {k: w for k, w in self.windows.items() if w[0] > at}
                    self.prune_at = max(self.PRUNE_AT, 2 * len(self.windows))
                held = self.windows[key] = [at + window, 0]
            held[1] += 1
            return int(held[1])

    def reset(self, **kwargs: object) -> None:
        if kwargs.get("setting") == "CACHES":
            with self.lock:
                self.windows, self.is_local = {}, None


_windows = _Windows()
setting_changed.connect(_windows.reset)


def exhausted(scope: str, key: object, limit: int) -> bool:
    """Return whether `key` already used up its `limit` (without counting anything)."""
    return (cache.get(f"rl:{scope}:{key}") or 0) >= limit


def record(scope: str, key: object, window: int) -> None:
    """Count one event for `key` (for limits that only count what succeeded)."""
    _count(f"rl:{scope}:{key}", window)


# Failed logins: free tries, then a delay that doubles with each further failure.


def _login_keys(username: str, address: str) -> list[tuple[str, int]]:
    # Django strips and NFKC-normalises the name before looking the user up, and refuses
    # sign-ups differing only in case: key on that form, so `bob ` and `Bob` count as `bob`.
    return [
        (f"login:user:{username.casefold()}", settings.LOGIN_FAILURES_PER_USER),
        (f"login:addr:{address}", settings.LOGIN_FAILURES_PER_ADDRESS),
    ]


def _delay(failures: int, free: int) -> float:
    if failures < free:
        return 0
    return min(settings.LOGIN_MAX_DELAY, 2 ** (failures - free + 1))


def login_wait(username: str, address: str) -> int:
    """Return how many seconds to wait before the next login try (0: try now)."""
    wait = 0.0
    for key, free in _login_keys(username, address):
        failures = cache.get(key) or 0
        if failures >= free:
            last = cache.get(f"{key}:last") or 0
            wait = max(wait, last + _delay(failures, free) - now())
    return math.ceil(wait) if wait > 0 else 0


def login_failed(username: str, address: str) -> None:
    """Count a wrong password for this name and this address."""
    window = settings.LOGIN_FAILURE_WINDOW
    for key, _free in _login_keys(username, address):
        _count(key, window)
        # The window slides: a guesser who keeps going never starts afresh.
        cache.touch(key, window)
        cache.set(f"{key}:last", now(), timeout=window)


def login_succeeded(username: str) -> None:
    """Forget the name's failures; the address's stay, or a guesser could clear them with a
    login to an account of his own between guesses."""
    key, _free = _login_keys(username, "")[0]
    cache.delete_many([key, f"{key}:last"])
