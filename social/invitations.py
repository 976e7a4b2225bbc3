"""Invitations: a seated player asks a friend to sit at his room, the friend accepts or declines.

An open room: accepting takes the lowest free seat (lobby.services.join_room, as the invite
link would). A room being played: accepting takes the seat of a bot that has played it from the
start (lobby.services.take_bot_seat); a bot plays it for him until his table page opens.
A rematch invites the players of the finished match (`invite_rematch`). Every refusal is a
`SocialError`; each change tells both people's open pages (social.pushes).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from lobby import services as lobby_services
from lobby.models import Room, Seat
from social import pushes
from social.models import Invitation
from social.notify import notify
from social.services import SocialError, friend_ids, refuse_if_blocked, require_member
from tables.live import stream
from tables.models import Player

PLAYING = Room.Status.PLAYING


def seated(room: Room, user: Any) -> bool:
    """Whether `user` sits at `room` now (a seat of the room, or of its match, not left)."""
    if room.status == PLAYING:
        return Player.objects.filter(match__room=room, user=user, left=False).exists()
    return Seat.objects.filter(room=room, user=user).exists()


def _room_has_place(room: Room) -> bool:
    if room.status == Room.Status.OPEN:
        return room.seat_set.count() < room.seats
    if room.status == PLAYING:
        return Player.objects.filter(match__room=room, user__isnull=True).exists()
    return False


def invite(sender: Any, recipient: Any, room_id: int, rematch: bool = False) -> Invitation:
    """`sender`, seated at the room, invites his friend `recipient` to sit there too
    (`rematch`: a player of the match this room is the rematch of, friend or not)."""
    require_member(sender)
    if recipient.pk == sender.pk:
        raise SocialError("yourself", _("That is you."), 400)
    refuse_if_blocked(sender, recipient)
    room = Room.objects.filter(pk=room_id).first()
    if room is None or not seated(room, sender):
        raise SocialError("not_seated", _("You can invite only to a room where you sit."), 403)
    if not rematch and recipient.pk not in friend_ids(sender.pk):
        raise SocialError(
            "not_friends",
            _("You can invite only your friends; ask %(name)s to be your friend first.")
            % {"name": recipient.username},
            403,
        )
    if seated(room, recipient):
        raise SocialError(
            "already_seated",
            _("%(name)s sits at this room already.") % {"name": recipient.username},
        )
    if not _room_has_place(room):
        raise SocialError("room_full", _("This room has no free seat and no bot to replace."))
    try:
        with transaction.atomic():
            invitation = Invitation.objects.create(room=room, sender=sender, recipient=recipient)
            notify(
                recipient,
                "invitation",
                {
                    "name": sender.username,
                    "game": room.game,
                    "url": f"/invitations/#inv-{invitation.pk}",
                },
                sender=sender,
            )
    except IntegrityError as clash:
        raise SocialError(
            "already_invited",
            _("%(name)s has an invitation to this room already.") % {"name": recipient.username},
        ) from clash
    pushes.invitations_changed(sender.pk, recipient.pk)
    stream.user_notice(recipient.pk, notice(invitation))
    return invitation


def notice(invitation: Invitation) -> dict[str, Any]:
    """What an API stream of the recipient is told of a new invitation (docs/api.md)."""
    return {
        "type": "invitation",
        "invitation": {
            "id": invitation.pk,
            "room": invitation.room_id,
            "game": invitation.room.game,
            "sender": invitation.sender.username,
            "recipient": invitation.recipient.username,
            "status": invitation.status,
        },
    }


def _mine(user: Any, invitation_id: int) -> Invitation:
    # Someone else's invitation answers as one that does not exist: nothing about it leaks.
    invitation = (
        Invitation.objects.select_related("room", "sender")
        .filter(pk=invitation_id, recipient=user)
        .first()
    )
    if invitation is None:
        raise SocialError("no_such_invitation", _("There is no such invitation."), 404)
    if invitation.status != Invitation.Status.PENDING:
        raise SocialError("answered", _("This invitation was answered already."))
    return invitation


def accept(user: Any, invitation_id: int) -> Invitation:
    """Take the seat the invitation offers; returns it, accepted."""
    require_member(user)
    invitation = _mine(user, invitation_id)
    refuse_if_blocked(user, invitation.sender)
    room = invitation.room
    try:
        if room.status == PLAYING:
            lobby_services.take_bot_seat(room.pk, user)
        else:
            lobby_services.join_room(room.pk, user, invited=True)
    except lobby_services.RoomError as refusal:
        raise SocialError(refusal.code, refusal.message, refusal.status) from refusal
    return _answer(invitation, Invitation.Status.ACCEPTED)


def decline(user: Any, invitation_id: int) -> Invitation:
    require_member(user)
    return _answer(_mine(user, invitation_id), Invitation.Status.DECLINED)


def _answer(invitation: Invitation, status: str) -> Invitation:
    Invitation.objects.filter(pk=invitation.pk, status=Invitation.Status.PENDING).update(
        status=status, answered_at=timezone.now()
    )
    invitation.refresh_from_db()
    pushes.invitations_changed(invitation.sender_id, invitation.recipient_id)
    return invitation


def pending_for(user: Any) -> list[Invitation]:
    """His invitations still open, in rooms not over."""
    return list(
        Invitation.objects.filter(
            recipient=user,
            status=Invitation.Status.PENDING,
            room__status__in=(Room.Status.OPEN, PLAYING),
        ).select_related("room", "sender")
    )


def invite_rematch(user: Any, old_room_id: int, new_room: Room) -> list[Invitation]:
    """Invite the other human players of the finished room to its rematch `new_room` (friends
    or not: they just played together), except those between whom there is a block."""
    people = set(
        Player.objects.filter(match__room_id=old_room_id, user__isnull=False)
        .exclude(user=user)
        .values_list("user_id", flat=True)
    )
    made = []
    for person in get_user_model().objects.filter(pk__in=people, is_active=True):
        try:
            made.append(invite(user, person, new_room.pk, rematch=True))
        except SocialError:
            continue  # blocked, seated already, invited already: nothing to add
    return made


def rematch_opened(sender: Any, old_room_id: int, room: Room, user: Any, **kwargs: Any) -> None:
    """lobby.signals.rematch_opened: the rematch invites the same players."""
    invite_rematch(user, old_room_id, room)
