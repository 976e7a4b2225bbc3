"""What makes the site installable: the web app manifest, the service worker, the offline page.

The worker is served from the site's root (a worker's scope is its own path, and /static/ would
only cover the static files); it caches the static files and shows the offline page when a
page cannot be loaded. Both stay within the Content-Security-Policy ('self' only).
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control

# The felt of the site's header (static/css/site.css --felt-2) and the page's background.
THEME = "#1b4d2d"
BACKGROUND = "#f3efe6"

# What the offline page needs, fetched once when the worker installs.
OFFLINE_ASSETS = (
    "css/site.css",
    "fonts/atkinson-hyperlegible-latin-400-normal.woff2",
    "fonts/atkinson-hyperlegible-latin-700-normal.woff2",
    "favicon.svg",
    "icons/icon-192.png",
)


@cache_control(max_age=3600)
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, in the reader's language."""
    data = {
        "id": "/",
        "name": "cardgames",
        "short_name": "cardgames",
        "description": _("Ligretto and Allegra, live in the browser, with friends or bots."),
        "lang": get_language(),
        "start_url": reverse("lobby:index"),
        "scope": "/",
        "display": "standalone",
        "background_color": BACKGROUND,
        "theme_color": THEME,
        "icons": [
            {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {
                "src": static("icons/icon-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
            {"src": static("icons/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    response = JsonResponse(data, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = "application/manifest+json"
    return response


@cache_control(no_cache=True)
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker (a template: the static files' names are hashed in production)."""
    # One offline page per language: the worker shows the one of the last page the site served
    # (its Content-Language), not the one of the day it was installed.
    offline = {code: reverse("offline_in", args=[code]) for code, _name in settings.LANGUAGES}
    precache = [*offline.values(), *(static(name) for name in OFFLINE_ASSETS)]
    # A new list of files (a deploy) is a new cache; the worker drops the old ones.
    version = hashlib.sha256("\n".join(precache).encode()).hexdigest()[:12]
    context = {
        "version": version,
        "offline": json.dumps(offline),
        "language": settings.LANGUAGE_CODE,
        "precache": precache,
        "static_prefix": settings.STATIC_URL,
        # Unhashed names in development: ask the network first, so an edited file shows.
        "network_first": settings.DEBUG,
    }
    return render(request, "sw.js", context, content_type="text/javascript")


def offline(request: HttpRequest, language: str | None = None) -> HttpResponse:
    """The page the worker shows when the site cannot be reached, in the reader's language
    or in `language` (the worker keeps one of each). Its "Try again" link (`#offline-retry`)
    goes to the lobby; the worker points it at the page that could not be loaded."""
    if language is None:
        return render(request, "offline.html")
    if language not in dict(settings.LANGUAGES):
        raise Http404
    with translation.override(language):
        return render(request, "offline.html")
