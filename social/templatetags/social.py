"""`{% social_bar %}` (base.html: the bell, the friends link, invitations, the social socket)
and `{% friend_actions person %}` (a player's page: ask, accept, end, block)."""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from social import invitations, notify, services
from social.notify import unread_count
from tables.guests import is_member

register = template.Library()


def _member(context: Any) -> Any:
    request = context.get("request")
    user: Any = getattr(request, "user", None)
    return user if request is not None and is_member(user) else None


@register.simple_tag(takes_context=True)
def social_links(context: Any) -> SafeString:
    """The friends link, among the header's links."""
    if _member(context) is None:
        return mark_safe("")  # noqa: S308
    return mark_safe(render_to_string("social/bar.html#links"))  # noqa: S308


@register.simple_tag(takes_context=True)
def social_invitations(context: Any) -> SafeString:
    """The invitations box (fixed at the bottom of the page), outside the folding header."""
    user = _member(context)
    if user is None:
        return mark_safe("")  # noqa: S308
    box = {"invitations": invitations.pending_for(user)}
    return mark_safe(  # noqa: S308 - a rendered template
        render_to_string("social/bar.html#box", box, request=context.get("request"))
    )


@register.simple_tag(takes_context=True)
def social_bar(context: Any) -> SafeString:
    request = context.get("request")
    user: Any = getattr(request, "user", None)
    if request is None or not is_member(user):
        return mark_safe("")  # noqa: S308
    match = getattr(request, "resolver_match", None)
    room_id = (
        match.kwargs.get("room_id") if match is not None and match.url_name == "room" else None
    )
    return mark_safe(  # noqa: S308 - a rendered template
        render_to_string(
            "social/bar.html#bar",
            {
                "room_id": room_id,
                "friends_page": context.get("friends_page", False),
                "unread": unread_count(user.pk),
                "push_key": settings.WEBPUSH_VAPID_PUBLIC_KEY,
            },
            request=request,
        )
    )


@register.inclusion_tag("social/actions.html", takes_context=True)
def friend_actions(context: Any, person: Any) -> dict[str, Any]:
    request = context.get("request")
    user: Any = getattr(request, "user", None)
    member = is_member(user)
    return {
        "person": person,
        "member": member and user.pk != person.pk,
        "relation": services.relation(user, person) if member else "none",
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("social/settings.html", takes_context=True)
def notification_settings(context: Any) -> dict[str, Any]:
    """The profile's form: for each kind, which routes it takes (mail only where offered)."""
    request = context.get("request")
    user: Any = getattr(request, "user", None)
    routes = notify.routes_of(user.pk)
    rows = [
        (
            kind,
            label,
            [
                (route, routes[kind][route])
                for route in notify.ROUTES
                if route != "email" or kind in notify.EMAIL_KINDS
            ],
        )
        for kind, (_sentence, label) in notify.KINDS.items()
    ]
    return {
        "rows": rows,
        "push_key": settings.WEBPUSH_VAPID_PUBLIC_KEY,
        "has_email": bool(user.email),
        "csrf_token": context.get("csrf_token"),
    }
