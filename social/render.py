"""The social fragments, drawn in the active language: the bell, the invitations box, the
friends list. The pages include them; the social socket sends them again when they change."""

from __future__ import annotations

from django.contrib.auth import get_user_model
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


def invitation_box(user) -> str:  # noqa: ANN001
    return render_to_string(f"{BAR}#invitations", {"invitations": invitations.pending_for(user)})


def friends_html(user) -> str:  # noqa: ANN001
    return render_to_string(f"{FRIENDS}#live", {"page": services.friends_page(user)})


def parts(user_id: int, bell: bool, friends: bool, invitations: bool) -> str:
    """The fragments asked for, for `user_id`'s page."""
    user = get_user_model().objects.get(pk=user_id)
    html = ""
    if bell:
        html += bell_html(user_id)
    if invitations:
        html += invitation_box(user)
    if friends:
        html += friends_html(user)
    return html


def note(code: str, sentence: str) -> str:
    return (
        f'<p id="social-note" class="live-note" role="status" data-code="{escape(code)}">'
        f"{escape(sentence)}</p>"
    )
