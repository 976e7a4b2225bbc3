"""The social fragments, drawn in the active language: the bell, the invitations box, the
friends list. The pages include them; the social socket sends them again when they change."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.html import escape

from social import invitations, services
from social.notify import unread_count

BAR = "social/bar.html"
FRIENDS = "social/friends.html"
# The social socket's own "connected" marker (the page's #live-status belongs to its table).
MARKER = '<span id="social-live" data-connected="true" hidden></span>'


def bell_html(user_id: int) -> str:
    return render_to_string(f"{BAR}#bell", {"unread": unread_count(user_id)})


def invitation_box(user, csrf_token: str = "") -> str:  # noqa: ANN001
    context = {"invitations": invitations.pending_for(user), "csrf_token": csrf_token}
    return render_to_string(f"{BAR}#invitations", context)


def friends_html(user, csrf_token: str = "") -> str:  # noqa: ANN001
    context = {"page": services.friends_page(user), "csrf_token": csrf_token}
    return render_to_string(f"{FRIENDS}#live", context)


def csrf_token_for(secret: str | None) -> str:
    """A masked CSRF token for the page's cookie secret, as `{% csrf_token %}` writes it on an
    HTTP page: the pushed fragments hold forms that post like the page's own."""
    if not secret:
        return ""
    request = HttpRequest()
    request.META["CSRF_COOKIE"] = secret
    return get_token(request)


def parts(user_id: int, bell: bool, friends: bool, invitations: bool, csrf: str = "") -> str:
    """The fragments asked for, for `user_id`'s page (`csrf`: its cookie's secret)."""
    user = get_user_model().objects.get(pk=user_id)
    token = csrf_token_for(csrf) if friends or invitations else ""
    html = ""
    if bell:
        html += bell_html(user_id)
    if invitations:
        html += invitation_box(user, token)
    if friends:
        html += friends_html(user, token)
    return html


def note(code: str, sentence: str) -> str:
    return (
        f'<p id="social-note" class="live-note" role="status" data-code="{escape(code)}">'
        f"{escape(sentence)}</p>"
    )
