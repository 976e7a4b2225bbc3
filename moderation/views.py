"""The site's moderation posts: a player's report, and the staff's panel on a room and table.

Each is a plain form POST that goes through moderation.services and comes back to the room
(which shows the table once it started) with a message saying what happened or why not.
"""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from lobby import access
from lobby.models import Room
from moderation import services

# The staff panel mutes for an hour; longer mutes are the admin's (moderation.admin).
PANEL_MUTE_MINUTES = 60


def staff_only(view):  # noqa: ANN001, ANN201
    """Answer 403 to everyone who may not moderate, signed in or not."""

    @wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not services.can_moderate(request.user):
            raise PermissionDenied("Only moderators may do that.")
        return view(request, *args, **kwargs)

    return guarded


@require_POST
@login_required
def report(request: HttpRequest, room_id: int, user_id: int) -> HttpResponse:
    room = get_object_or_404(Room, pk=room_id)
    if not access.may_view(room, request.user, room.pk in access.invited_rooms(request.session)):
        raise Http404("There is no such room.")  # a private room's players stay unknown
    reported = get_object_or_404(get_user_model(), pk=user_id)
    return _run(
        request,
        room,
        lambda: services.create_report(
            request.user, reported, room, request.POST.get("reason", "")
        ),
        _("Thank you: your report of %(name)s is in the moderators' queue.")
        % {"name": reported.username},
    )


@require_POST
@staff_only
def close_room(request: HttpRequest, room_id: int) -> HttpResponse:
    room = get_object_or_404(Room, pk=room_id)
    reason = request.POST.get("reason", "")
    return _run(
        request,
        room,
        lambda: services.close_room(room, request.user, reason),
        f"Room #{room.pk} is closed; its players see why.",
    )


@require_POST
@staff_only
def ban(request: HttpRequest, room_id: int, user_id: int) -> HttpResponse:
    return _on_player(
        request,
        room_id,
        user_id,
        lambda target, reason: services.ban(target, request.user, reason),
        _("%(name)s is banned; bots took their seats."),
    )


@require_POST
@staff_only
def mute(request: HttpRequest, room_id: int, user_id: int) -> HttpResponse:
    return _on_player(
        request,
        room_id,
        user_id,
        lambda target, reason: services.mute(
            target, request.user, PANEL_MUTE_MINUTES, reason=reason
        ),
        _("%(name)s is muted for an hour."),
    )


def _on_player(request: HttpRequest, room_id: int, user_id: int, action, done: str) -> HttpResponse:  # noqa: ANN001
    """Run `action(target, reason)` on a player from a room's Moderate panel."""
    room = get_object_or_404(Room, pk=room_id)
    target = get_object_or_404(get_user_model(), pk=user_id)
    reason = request.POST.get("reason")
    return _run(request, room, lambda: action(target, reason), done % {"name": target.username})


def _run(request: HttpRequest, room: Room, action, done: str) -> HttpResponse:  # noqa: ANN001
    try:
        action()
    except services.ModerationError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, done)
    return redirect(room)
