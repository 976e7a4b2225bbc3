"""Whether a request came from htmx, for views that answer both ways (with `Vary: HX-Request`)."""

from __future__ import annotations

from django.http import HttpRequest


def is_htmx(request: HttpRequest) -> bool:
    """True when django-htmx's middleware marked `request` as sent by htmx."""
    # The middleware sets `request.htmx` (falsy when not htmx); HttpRequest's type knows nothing
    # of it, and a request built by hand in a test may lack it.
    return bool(getattr(request, "htmx", False))
