"""How long someone has waited, as a clock the page counts on (static/js/site.js)."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


def clock(seconds: int) -> str:
    """Seconds as the page shows them: m:ss, or h:mm:ss from an hour (in every language)."""
    hours, rest = divmod(max(seconds, 0), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


@register.simple_tag
def waited(since: datetime, *id_parts: object) -> SafeString:
    """A <time> saying how long ago `since` was, its id the parts joined by "-" (waiting-7);
    the page's script counts it on each second."""
    element_id = "-".join(str(part) for part in id_parts)
    seconds = int((timezone.now() - since).total_seconds())
    return format_html(
        '<time id="{}" class="waited" datetime="PT{}S" data-waited="{}">{}</time>',
        element_id,
        max(seconds, 0),
        max(seconds, 0),
        clock(seconds),
    )
