"""`{% daily_box %}` (the lobby: today's challenge) and `{% daily_streak person %}` (a player's
page): drawn in the page's own answer, where they stand, so that nothing arrives after the page
and pushes down what a reader is already aiming at (docs/daily.md)."""

from __future__ import annotations

from typing import Any

from django import template

from daily import services
from daily.models import Attempt

register = template.Library()


@register.inclusion_tag("daily/page.html#lobby-section", takes_context=True)
def daily_box(context: Any) -> dict[str, Any]:
    """Today's deal, how many have played it, and the reader's own way in (or his result)."""
    day = services.today(services.site_clock())
    return {
        "deal": services.deal_of(day),
        "mine": services.attempt_of(getattr(context.get("request"), "user", None), day),
        "players": Attempt.objects.filter(day=day, ranked=True).count(),
    }


@register.inclusion_tag("daily/page.html#streak")
def daily_streak(person: Any) -> dict[str, Any]:
    """`person`'s streak of days played."""
    return {"person": person, "streak": services.streak(person, services.site_clock())}
