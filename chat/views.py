"""The chat's one HTTP action: a moderator hides a line from the page (the hide button)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.html import escape
from django.views.decorators.http import require_POST

from chat import services


@require_POST
def hide_message(request: HttpRequest, message_id: int) -> HttpResponse:
    """Hide a chat line (staff only); the reason comes from the button's prompt or a field."""
    reason = request.headers.get("HX-Prompt") or request.POST.get("reason", "")
    try:
        services.hide(message_id, request.user, reason)
    except services.ChatRefused as refusal:
        return HttpResponse(escape(refusal.message), status=refusal.status)
    # Every page in the room, this one included, loses the line through its socket.
    return HttpResponse(status=204)
