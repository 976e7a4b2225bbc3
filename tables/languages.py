"""Which language a page or socket speaks, and which languages a live room's sockets read.

The choice lives in the session (set by the switcher, copied from the profile at login); without
one the browser's Accept-Language decides. A push renders each public part once per language
that a socket of the room reads, never once per socket: sockets note their language in the cache
when they connect (one key per place and language, so that two processes never overwrite each
other's), and a push reads those few keys in one round trip.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from django.conf import settings
from django.core.cache import BaseCache, caches
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header

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
# reused for MEMO_SECONDS (a socket of this process that notes a language adds it at once; one
# of another process is seen within that time, and until then reads the default rendering).
MEMO_SECONDS = 1.0
_memo: dict[str, tuple[float, frozenset[str]]] = {}
# Readings older than MEMO_SECONDS are only dropped once there are this many: a reading is
# never used after that time, and the memo holds no more than the places read lately.
MEMO_PRUNE_AT = 512


_cache: BaseCache | None = None


@receiver(setting_changed)
def _cache_changed(setting: str, **kwargs: object) -> None:
    global _cache
    if setting == "CACHES":  # tests give every test a cache prefix of its own
        _cache = None


def _notes() -> BaseCache:
    """The process's one client of the default cache for these notes. Django's `cache` is one
    per thread and per async context, and a push runs in a fresh context each time: with Redis,
    a new connection for every room's reading (measured: about 3 % of a process's time)."""
    global _cache
    if _cache is None:
        _cache = caches.create_connection("default")
    return _cache


def note(place: str, code: str) -> None:
    """Remember that a socket of `place` (a group's name) reads `code`."""
    _notes().set(_key(place, code), 1, NOTE_TIMEOUT)
    known = _memo.get(place)
    if known is not None:
        _memo[place] = (known[0], known[1] | {code})


def present(place: str) -> list[str]:
    """The languages `place`'s sockets read: the site's default first, always there."""
    return present_many([place], default=True)[place]


def present_many(places: list[str], default: bool = False) -> dict[str, list[str]]:
    """The languages each place's sockets read, in at most one cache round trip.

    With `default`, the site's language comes first in every list; without it, a place that
    no socket noted gets the site's language alone (a seat whose socket has not said yet).
    """
    now = time.monotonic()
    if len(_memo) >= MEMO_PRUNE_AT:
        for place in [p for p, (when, _) in list(_memo.items()) if now - when > MEMO_SECONDS]:
            _memo.pop(place, None)
    stale = [p for p in places if p not in _memo or now - _memo[p][0] > MEMO_SECONDS]
    if stale:
        found = _notes().get_many([_key(place, code) for place in stale for code in codes()])
        for place in stale:
            _memo[place] = (now, frozenset(c for c in codes() if _key(place, c) in found))
    site = settings.LANGUAGE_CODE
    out = {}
    for place in places:
        noted = [c for c in codes() if c in _memo[place][1]]
        if default:
            out[place] = [site] + [c for c in noted if c != site]
        else:
            out[place] = noted or [site]
    return out


def render_each(languages: Iterable[str], render: Callable[[], str]) -> dict[str, str]:
    """Call `render` once per language, each under that language."""
    out = {}
    active = translation.get_language()
    for code in languages:
        if code == active:
            out[code] = render()  # already under it: no switch there and back
            continue
        with translation.override(code):
            out[code] = render()
    return out


def split(by_language: dict[str, str]) -> dict[str, object]:
    """The `html` and `translations` fields of a pushed event rendered in several languages:
    `html` is the first rendering (the site's language when it was rendered), so a reader of
    a language nobody noted still gets a whole frame."""
    first, *rest = by_language
    return {"html": by_language[first], "translations": {code: by_language[code] for code in rest}}


def pick(event: dict, code: str) -> str:
    """The html of a pushed event in `code`: its own rendering, else the default one."""
    return (event.get("translations") or {}).get(code) or event["html"]
