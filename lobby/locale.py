"""The page's language: the one chosen (kept in the session, and in the profile for later
sessions), else the browser's, else English. A choice outranks Accept-Language, so this is
Django's LocaleMiddleware with the session in front of the cookie and the header."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from functools import cache
from urllib.parse import unquote
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers

from lobby.models import Profile
from tables.languages import SESSION_KEY, from_accept_language, supported


def language_for(request: HttpRequest) -> str:
    session = getattr(request, "session", None)
    chosen = supported(session.get(SESSION_KEY)) if session is not None else None
    return (
        chosen
        or from_accept_language(request.headers.get("Accept-Language", ""))
        or settings.LANGUAGE_CODE
    )


class LanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        code = language_for(request)
        translation.activate(code)
        request.LANGUAGE_CODE = code
        zone = zone_for(request)
        if zone is None:
            timezone.deactivate()
        else:
            timezone.activate(zone)
        try:
            response = self.get_response(request)
            # The same address answers in several languages: caches must tell them apart.
            patch_vary_headers(response, ("Accept-Language", "Cookie"))
            response.headers.setdefault("Content-Language", translation.get_language())
            return response
        finally:
            # The thread serves other work next (Channels' one sync thread: sockets' database
            # calls, other readers' requests): nothing of this reader's stays active there.
            translation.deactivate()
            timezone.deactivate()


# The reader's time zone, which the page's script keeps in this cookie (static/js/site.js):
# dates and times are written in it, with Django's localisation of the page's language.
ZONE_COOKIE = "tz"


def zone_for(request: HttpRequest) -> ZoneInfo | None:
    """The time zone the reader's browser said it is in, if it named a real one."""
    name = unquote(request.COOKIES.get(ZONE_COOKIE, ""))  # the script encodes its "/"
    if not name or len(name) > 64 or name not in available_zones():
        return None
    return ZoneInfo(name)


@cache
def available_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def choose(request: HttpRequest, code: str) -> None:
    """Keep `code` for this session, and for the signed-in user's later ones."""
    request.session[SESSION_KEY] = code
    translation.activate(code)
    if request.user.is_authenticated:
        Profile.objects.update_or_create(user=request.user, defaults={"language": code})


def _on_login(sender, request, user, **kwargs) -> None:  # noqa: ANN001
    """At login the profile's language wins; a first choice made before it is kept there."""
    if request is None or not hasattr(request, "session"):
        return
    saved = Profile.objects.filter(user=user).values_list("language", flat=True).first()
    if supported(saved):
        request.session[SESSION_KEY] = saved
    elif supported(request.session.get(SESSION_KEY)):
        Profile.objects.update_or_create(
            user=user, defaults={"language": request.session[SESSION_KEY]}
        )


def connect_signals() -> None:
    user_logged_in.connect(_on_login, dispatch_uid="lobby.locale.login")
