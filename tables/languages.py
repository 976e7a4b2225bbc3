"""Which language a page or socket speaks, and which languages a live room's sockets read.

The choice lives in the session (set by the switcher, copied from the profile at login); without
one the browser's Accept-Language decides. A push renders each public part once per language
that a socket of the room reads, never once per socket. In one process those are its listeners'
languages (tables.live.render.spoken asks them, no cache). With several, browser sockets note
their language in the cache when they connect (one key per place and language, so that two
processes never overwrite each other's), and a push reads those few keys in one round trip
(renewed in the background); whether any browser noted one at all (`noted`) decides whether a
change is drawn for browsers elsewhere. Drawing in each of those languages is the renderer's
(tables.live.render: `render_each`, `split`), and a socket picks its own from what it is sent
(tables.live.stream.pick).
"""

from __future__ import annotations

import concurrent.futures
import time

from django.conf import settings
from django.core.cache import BaseCache, caches
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header

from tables import server

SESSION_KEY = "language"
# A room's languages are kept this long after the last socket said so (a day's play is far less).
NOTE_TIMEOUT = 24 * 3600


def codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def supported(code: object) -> str | None:
    """Return `code` if the site speaks it (a region variant maps to its language), else None."""
    if not isinstance(code, str) or not code:
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def from_accept_language(header: str) -> str | None:
    for code, _quality in parse_accept_lang_header(header or ""):
        if code == "*":
            break
        found = supported(code)
        if found:
            return found
    return None


def from_scope(scope: dict) -> str:
    """The language of a WebSocket's page: its session's choice, else its browser's."""
    session = scope.get("session")
    chosen = supported(session.get(SESSION_KEY)) if session is not None else None
    if chosen:
        return chosen
    for key, value in scope.get("headers", []):
        if key == b"accept-language":
            return from_accept_language(value.decode("latin-1")) or settings.LANGUAGE_CODE
    return settings.LANGUAGE_CODE


def _key(place: str, code: str) -> str:
    return f"languages:{place}:{code}"


# What this process read from the cache, per place: (when, the codes noted). A push asks for
# its room's languages on every change; they change only when a socket comes, so a reading is
# reused, and once it is MEMO_SECONDS old it is still used while a fresh one is read in the
# background (a push in the server's loop never waits for the cache, except for a place this
# process never read). A socket of this process that notes a language adds it at once; one of
# another process is seen a moment after MEMO_SECONDS, and until then reads the default rendering.
MEMO_SECONDS = 1.0
# Readings older than MEMO_SECONDS are only dropped once there are this many: the memo holds
# no more than the places read lately.
MEMO_PRUNE_AT = 512


class Readings:
    """The readers' languages this process read, per place: the live server's part
    (tables.server), so that a test, or a new server, starts with none."""

    def __init__(self) -> None:
        self.memo: dict[str, tuple[float, frozenset[str]]] = {}
        # The places whose fresh reading is under way, and the one thread that reads them.
        self.reading: dict[str, concurrent.futures.Future[None]] = {}
        self.reader = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="languages"
        )
        self.generation = 0  # bumped by `forget`: a reading begun before it is not kept
        self.cache: BaseCache | None = None  # the process's one client of the notes' cache

    def shut(self) -> None:
        self.reader.shutdown(wait=False)


def _here() -> Readings:
    return server.current().part(Readings)


@receiver(setting_changed)
def _cache_changed(setting: str, **kwargs: object) -> None:
    if setting == "CACHES":  # tests give every test a cache prefix of its own
        _here().cache = None
        forget()


def forget() -> None:
    """Drop every reading (and keep none that is under way): the cache has changed."""
    readings = _here()
    readings.generation += 1
    readings.memo.clear()


def _notes() -> BaseCache:
    """The process's one client of the default cache for these notes. Django's `cache` is one
    per thread and per async context, and a push runs in a fresh context each time: with Redis,
    a new connection for every room's reading (measured: about 3 % of a process's time)."""
    readings = _here()
    if readings.cache is None:
        readings.cache = caches.create_connection("default")
    return readings.cache


def note(place: str, code: str) -> None:
    """Remember that a socket of `place` (a group's name) reads `code`."""
    _notes().set(_key(place, code), 1, NOTE_TIMEOUT)
    memo = _here().memo
    known = memo.get(place)
    if known is not None:
        memo[place] = (known[0], known[1] | {code})


def present(place: str) -> list[str]:
    """The languages `place`'s sockets read: the site's default first, always there."""
    return present_many([place], default=True)[place]


def _read(places: list[str]) -> dict[str, frozenset[str]]:
    found = _notes().get_many([_key(place, code) for place in places for code in codes()])
    return {place: frozenset(c for c in codes() if _key(place, c) in found) for place in places}


def _refresh(
    readings: Readings,
    places: list[str],
    generation: int,
    done: concurrent.futures.Future[None],
) -> None:
    """Read `places` again (in the reader thread); what was noted here meanwhile stays."""
    memo = readings.memo
    try:
        fresh = _read(places)
        if generation == readings.generation:
            now = time.monotonic()
            for place, noted in fresh.items():
                known = memo.get(place)
                memo[place] = (now, noted | known[1] if known is not None else noted)
    except Exception as error:  # the cache is down: the old reading stays, tried again later
        done.set_exception(error)
    else:
        done.set_result(None)
    finally:
        for place in places:
            readings.reading.pop(place, None)


def wait_for_readings() -> None:
    """Wait until the readings under way are in (tests)."""
    for future in list(_here().reading.values()):
        future.result()


def noted(place: str) -> bool:
    """Whether any socket of `place` noted its language (a browser's table socket does, on
    any process; an API stream never does): read as `present_many` reads."""
    return bool(_noted([place])[place])


def present_many(places: list[str], default: bool = False) -> dict[str, list[str]]:
    """The languages each place's sockets read, in at most one cache round trip (and none for
    places read before: an old reading is renewed in the background).

    With `default`, the site's language comes first in every list; without it, a place that
    no socket noted gets the site's language alone (a seat whose socket has not said yet).
    """
    memo = _noted(places)
    site = settings.LANGUAGE_CODE
    out = {}
    for place in places:
        found = [c for c in codes() if c in memo[place]]
        if default:
            out[place] = [site] + [c for c in found if c != site]
        else:
            out[place] = found or [site]
    return out


def _noted(places: list[str]) -> dict[str, frozenset[str]]:
    """The languages noted for each place, from what this process read (unknown places read
    at once, in one round trip; old readings renewed in the background)."""
    readings = _here()
    memo, reading = readings.memo, readings.reading
    now = time.monotonic()
    if len(memo) >= MEMO_PRUNE_AT:
        for place in [p for p, (when, _) in list(memo.items()) if now - when > MEMO_SECONDS]:
            memo.pop(place, None)
    unknown = [p for p in places if p not in memo]
    if unknown:
        for place, read in _read(unknown).items():
            memo[place] = (now, read)
    out = {place: memo[place][1] for place in places}
    old = [p for p in places if now - memo[p][0] > MEMO_SECONDS and p not in reading]
    if old:
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        for place in old:
            reading[place] = done
        readings.reader.submit(_refresh, readings, old, readings.generation, done)
    return out
