"""`{% tournaments_listed %}` (the lobby: the public events, upcoming and under way) and
`{% tournaments_played person %}` (a player's page): drawn in the page's own answer, where they
stand, so that nothing arrives after the page and moves what is below it (docs/tournaments.md)."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments import describe, scheduler, services
from tournaments.models import Entry, Tournament

register = template.Library()


@register.inclusion_tag("tournaments/index.html#listing")
def tournaments_listed() -> dict[str, Any]:
    """The public events, upcoming and under way (the lobby's section)."""
    scheduler.run_due()  # what a lost timer (a restart) left due, before it is listed
    return {"tournaments": [describe.summary(t) for t in services.listed()]}


@register.inclusion_tag("tournaments/played.html")
def tournaments_played(person: Any) -> dict[str, Any]:
    """The tournaments `person` played (public ones, begun), latest first."""
    entries = (
        Entry.objects.filter(user=person, tournament__private=False)
        .exclude(tournament__status=Tournament.Status.SCHEDULED)
        .select_related("tournament")
        .order_by("-tournament__starts_at")[:30]
    )
    return {"entries": entries}
