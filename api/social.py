"""Board API calls for friends, invitations and notifications (social.services,
social.invitations, social.notify: the same doors as the site's pages).

Registered on the same ninja `api` as api/views.py (imported by api/urls.py). A refusal is the
services' `SocialError`, answered as `{"error": {"code", "message"}}` with its status. Someone
else's invitation or notification answers as one that does not exist (404).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse

from api import schemas as s
from api.http import ApiRequest, api, error
from api.views import answers, posted
from social import invitations, notify, services
from social.models import Invitation, Notification
from social.services import SocialError

RELATIONS = {
    "ask": services.ask,
    "accept": services.accept,
    "decline": services.decline,
    "end": services.end,
    "block": services.block,
    "unblock": services.unblock,
}


@api.exception_handler(SocialError)
def _social_error(request: HttpRequest, refusal: SocialError) -> HttpResponse:
    return error(refusal.code, refusal.message, refusal.status)


def _friends(user: Any) -> dict[str, Any]:
    page = services.friends_page(user)
    return {
        "friends": [
            {
                "username": friend.username,
                "state": where.state,
                "room": where.room.pk if where.watchable and where.room is not None else None,
                "last_seen": where.last_seen.isoformat() if where.last_seen else None,
            }
            for friend, where in page.friends
        ],
        "requests": [p.username for p in page.asking],
        "asked": [p.username for p in page.asked],
        "blocked": [p.username for p in page.blocked],
    }


@api.get("/friends", response=answers(200, s.Friends, 401, 403, 429))
def friends(request: ApiRequest) -> dict[str, Any]:
    """Your friends (where each is now), requests both ways, and whom you blocked."""
    services.require_member(request.auth)
    return _friends(request.auth)


WHAT = {
    "ask": "Ask `username` to be your friend (his request to you: accepted).",
    "accept": "Accept the request of `username`.",
    "decline": "Decline the request of `username`.",
    "end": "End your friendship with `username`, or withdraw your request.",
    "block": "Block `username`: no requests, invitations or chat lines of his reach you.",
    "unblock": "Unblock `username`.",
}


def _relation(action: str) -> Any:
    change = RELATIONS[action]

    def relate(request: ApiRequest, body: s.FriendName) -> dict[str, Any]:
        change(request.auth, services.find_user(body.username))
        return _friends(request.auth)

    relate.__name__ = f"friends_{action}"
    relate.__doc__ = WHAT[action]
    return relate


for _action in RELATIONS:
    api.post(f"/friends/{_action}", response=posted(200, s.Friends, 401, 403, 404, 409, 429))(
        _relation(_action)
    )


def invitation_json(invitation: Invitation) -> dict[str, Any]:
    return {
        "id": invitation.pk,
        "room": invitation.room_id,
        "game": invitation.room.game,
        "sender": invitation.sender.username,
        "recipient": invitation.recipient.username,
        "status": invitation.status,
    }


@api.get("/invitations", response=answers(200, s.Invitations, 401, 429))
def invitation_list(request: ApiRequest) -> dict[str, Any]:
    """Your invitations still open (the stream tells you of a new one: docs/api.md)."""
    return {"invitations": [invitation_json(i) for i in invitations.pending_for(request.auth)]}


@api.post("/invitations", response=posted(201, s.InvitationAnswer, 401, 403, 404, 409, 429))
def invite(request: ApiRequest, body: s.NewInvitation) -> Any:
    """Invite a friend to the room where you sit."""
    from ninja import Status

    made = invitations.invite(request.auth, services.find_user(body.username), body.room)
    return Status(201, invitation_json(made))


@api.post("/invitations/accept", response=posted(200, s.InvitationAnswer, 401, 403, 404, 409, 429))
def accept_invitation(request: ApiRequest, body: s.InvitationId) -> dict[str, Any]:
    """Accept an invitation of yours: take its seat (a bot's, in a room being played)."""
    return invitation_json(invitations.accept(request.auth, body.id))


@api.post("/invitations/decline", response=posted(200, s.InvitationAnswer, 401, 403, 404, 409, 429))
def decline_invitation(request: ApiRequest, body: s.InvitationId) -> dict[str, Any]:
    """Decline an invitation of yours."""
    return invitation_json(invitations.decline(request.auth, body.id))


def _notifications(user: Any) -> dict[str, Any]:
    rows = list(Notification.objects.filter(user=user)[:100])
    return {
        "unread": notify.unread_count(user.pk),
        "notifications": [
            {
                "id": row.pk,
                "kind": row.kind,
                "text": notify.word(row),
                "params": row.params,
                "created_at": row.created_at.isoformat(),
                "read": row.read_at is not None,
            }
            for row in rows
        ],
    }


@api.get("/notifications", response=answers(200, s.Notifications, 401, 429))
def notifications(request: ApiRequest) -> dict[str, Any]:
    """Your last 100 notifications, newest first, worded in your language."""
    return _notifications(request.auth)


@api.post("/notifications/read", response=posted(200, s.Notifications, 401, 429))
def read(request: ApiRequest, body: s.ReadNotifications) -> dict[str, Any]:
    """Mark one notification of yours (`id`) or all of them as read."""
    from django.utils import timezone

    mine = Notification.objects.filter(user=request.auth, read_at__isnull=True)
    if body.id is not None:
        mine = mine.filter(pk=body.id)
    if mine.update(read_at=timezone.now()):
        notify.pushes.bell_changed(request.auth.pk)
    return _notifications(request.auth)
