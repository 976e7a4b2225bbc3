"""Friends and blocks: the one write path for them, and who is where (presence).

Every change runs in a transaction and refuses bad input with `SocialError(code, message,
status)` (the codes are the Board API's). After commit, both people's open pages are told
(`pushes.friends_changed`), and a new request becomes a notification (`notify`).
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from chat import hidden
from chat import services as chat_services
from lobby.models import Room
from social import pushes
from social.models import Block, Connection, Friendship, Invitation, Settings
from social.notify import notify
from tables.guests import is_member
from tables.models import Match, Player

# Daphne closes every WebSocket after 24 h (its default `websocket_timeout`): a page row older
# than that was left by a process that died before it could close it, and is not counted.
PAGE_LIFETIME = datetime.timedelta(hours=24)


class SocialError(Exception):
    """A refused friends, blocks or invitations action: a code, a sentence and an HTTP status."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def require_member(user: Any) -> None:
    if not is_member(user) or not user.is_active:
        raise SocialError("not_member", _("Sign up to have friends and invite them."), 403)


def require_member_or_404(user: Any) -> None:
    if not is_member(user):
        raise Http404("Guests have no account data of their own.")


def find_user(name: object) -> Any:
    """The active member called `name` (case as typed or not), or SocialError."""
    if not isinstance(name, str) or not name.strip():
        raise SocialError("no_such_player", _("Type a player's name."), 400)
    person = (
        get_user_model()
        .objects.filter(username__iexact=name.strip(), is_active=True)
        .order_by("pk")
        .first()
    )
    if person is None or not is_member(person):
        raise SocialError("no_such_player", _("There is no player of that name."), 404)
    return person


def blocked_between(a_id: int, b_id: int) -> Block | None:
    """The block between these two, either way round (the one `a` made first), or None."""
    return (
        Block.objects.filter(
            Q(blocker_id=a_id, blocked_id=b_id) | Q(blocker_id=b_id, blocked_id=a_id)
        )
        .order_by("-blocker_id" if a_id > b_id else "blocker_id")
        .first()
    )


def refuse_if_blocked(user: Any, other: Any) -> None:
    """Refuse any contact between two people when either blocked the other."""
    block = blocked_between(user.pk, other.pk)
    if block is None:
        return
    if block.blocker_id == user.pk:
        raise SocialError(
            "blocked", _("You blocked %(name)s; unblock them first.") % {"name": other.username}
        )
    raise SocialError(
        "blocked",
        _("%(name)s does not accept requests or invitations from you.") % {"name": other.username},
        403,
    )


def _pair(a: Any, b: Any) -> Q:
    return Q(sender=a, recipient=b) | Q(sender=b, recipient=a)


def _other(user: Any, other: Any) -> None:
    require_member(user)
    if other.pk == user.pk:
        raise SocialError("yourself", _("That is you."), 400)


def ask(user: Any, other: Any) -> Friendship:
    """Ask `other` to be `user`'s friend; a request of his to `user` is accepted instead."""
    _other(user, other)
    refuse_if_blocked(user, other)
    try:
        with transaction.atomic():
            rows = list(Friendship.objects.select_for_update().filter(_pair(user, other)))
            for row in rows:
                if row.status == Friendship.Status.ACCEPTED:
                    raise SocialError(
                        "already_friends",
                        _("You and %(name)s are friends already.") % {"name": other.username},
                    )
                if row.sender_id == other.pk:  # he asked first: asking back is a yes
                    return _accept(row)
                raise SocialError(
                    "already_asked",
                    _("You asked %(name)s already; they have not answered yet.")
                    % {"name": other.username},
                )
            row = Friendship.objects.create(sender=user, recipient=other)
            notify(
                other,
                "friend_request",
                {"name": user.username, "url": f"/friends/#request-{user.username}"},
                sender=user,
            )
    except IntegrityError as clash:  # the same request twice at once
        raise SocialError("already_asked", _("That request was just sent.")) from clash
    pushes.friends_changed_on_commit(user.pk, other.pk)
    return row


def _accept(row: Friendship) -> Friendship:
    row.status = Friendship.Status.ACCEPTED
    row.accepted_at = timezone.now()
    row.save(update_fields=["status", "accepted_at"])
    pushes.friends_changed_on_commit(row.sender_id, row.recipient_id)
    return row


def accept(user: Any, other: Any) -> Friendship:
    """Accept `other`'s request to `user`."""
    _other(user, other)
    with transaction.atomic():
        row = (
            Friendship.objects.select_for_update()
            .filter(sender=other, recipient=user, status=Friendship.Status.PENDING)
            .first()
        )
        if row is None:
            raise SocialError("no_request", _("There is no request to answer."), 404)
        return _accept(row)


def decline(user: Any, other: Any) -> None:
    """Decline `other`'s request to `user` (he is not told; he may ask again later)."""
    _other(user, other)
    with transaction.atomic():
        gone, _rows = Friendship.objects.filter(
            sender=other, recipient=user, status=Friendship.Status.PENDING
        ).delete()
        if not gone:
            raise SocialError("no_request", _("There is no request to answer."), 404)
        pushes.friends_changed_on_commit(user.pk, other.pk)


def end(user: Any, other: Any) -> None:
    """End a friendship, or withdraw a request `user` sent: either side may."""
    _other(user, other)
    with transaction.atomic():
        gone, _rows = Friendship.objects.filter(_pair(user, other)).delete()
        if not gone:
            raise SocialError(
                "not_friends", _("You and %(name)s are not friends.") % {"name": other.username}
            )
        pushes.friends_changed_on_commit(user.pk, other.pk)


def block(user: Any, other: Any) -> Block:
    """Block `other`: the friendship and pending invitations between them end, his chat lines
    vanish from `user`'s pages."""
    _other(user, other)
    with transaction.atomic():
        row, _made = Block.objects.get_or_create(blocker=user, blocked=other)
        Friendship.objects.filter(_pair(user, other)).delete()
        withdraw_between(user, other)
        pushes.friends_changed_on_commit(user.pk, other.pk)
        transaction.on_commit(lambda: chat_services.unseen_changed(user.pk))
    return row


def withdraw_between(a: Any, b: Any) -> None:
    """End the pending invitations between two people (one blocked the other)."""
    Invitation.objects.filter(
        Q(sender=a, recipient=b) | Q(sender=b, recipient=a), status=Invitation.Status.PENDING
    ).update(status=Invitation.Status.WITHDRAWN, answered_at=timezone.now())
    pushes.invitations_changed_on_commit(a.pk, b.pk)


def unblock(user: Any, other: Any) -> None:
    _other(user, other)
    with transaction.atomic():
        Block.objects.filter(blocker=user, blocked=other).delete()
        pushes.friends_changed_on_commit(user.pk, other.pk)
        transaction.on_commit(lambda: chat_services.unseen_changed(user.pk))


def unseen(reader_id: int) -> frozenset[int]:
    """Whose chat lines `reader_id` does not see: those he blocked (chat.hidden's seam)."""
    return frozenset(
        Block.objects.filter(blocker_id=reader_id).values_list("blocked_id", flat=True)
    )


def relation(user: Any, other: Any) -> str:
    """What `other` is to `user`: friend, asked (by user), asking (user), blocked, blocking
    (other blocked user), or none."""
    if not is_member(user) or other.pk == user.pk:
        return "none"
    block_row = blocked_between(user.pk, other.pk)
    if block_row is not None:
        return "blocked" if block_row.blocker_id == user.pk else "blocking"
    row = Friendship.objects.filter(_pair(user, other)).first()
    if row is None:
        return "none"
    if row.status == Friendship.Status.ACCEPTED:
        return "friend"
    return "asked" if row.sender_id == user.pk else "asking"


def friend_ids(user_id: int) -> set[int]:
    rows = Friendship.objects.filter(
        Q(sender_id=user_id) | Q(recipient_id=user_id), status=Friendship.Status.ACCEPTED
    ).values_list("sender_id", "recipient_id")
    return {b if a == user_id else a for a, b in rows}


@dataclasses.dataclass(frozen=True)
class Whereabouts:
    """Where a friend is: "table" (with the room, watchable unless private), "online", or
    "offline" (with when he was last seen)."""

    state: str
    room: Room | None = None
    last_seen: datetime.datetime | None = None

    @property
    def watchable(self) -> bool:
        return self.room is not None and not self.room.private


def whereabouts(user_ids: set[int]) -> dict[int, Whereabouts]:
    """Where each of these users is now, in two queries whatever their number: his open pages
    (social.consumers) say whether he is online and at which table."""
    pages = Connection.objects.filter(
        user_id__in=user_ids, opened_at__gte=timezone.now() - PAGE_LIFETIME
    ).select_related("room")
    online: set[int] = set()
    at: dict[int, Room] = {}
    for page in pages.order_by("-opened_at"):
        online.add(page.user_id)
        # A table page of a room where he holds a seat (checked when the page connected).
        if page.room is not None and page.room.status == Room.Status.PLAYING:
            at.setdefault(page.user_id, page.room)
    seen = dict(Settings.objects.filter(user_id__in=user_ids).values_list("user_id", "last_seen"))
    result = {}
    for user_id in user_ids:
        if user_id in at:
            result[user_id] = Whereabouts("table", room=at[user_id])
        elif user_id in online:
            result[user_id] = Whereabouts("online")
        else:
            result[user_id] = Whereabouts("offline", last_seen=seen.get(user_id))
    return result


@dataclasses.dataclass(frozen=True)
class FriendsPage:
    friends: list[tuple[Any, Whereabouts]]
    asking: list[Any]  # requests to this user
    asked: list[Any]  # his requests, not answered yet
    blocked: list[Any]
    room: Room | None  # the room he sits at now, where he may invite his friends


def sitting_at(user: Any) -> Room | None:
    """The room `user` sits at now (the newest, open or being played), or None."""
    playing = (
        Player.objects.filter(user=user, left=False, match__status=Match.Status.PLAYING)
        .select_related("match__room")
        .order_by("-match__created_at")
        .first()
    )
    if playing is not None:
        return playing.match.room
    return Room.objects.filter(seat_set__user=user, status=Room.Status.OPEN).order_by("-pk").first()


def friends_page(user: Any) -> FriendsPage:
    """Everything the friends list shows `user`."""
    users = get_user_model().objects
    ids = friend_ids(user.pk)
    where = whereabouts(ids)
    friends = sorted(users.filter(pk__in=ids), key=lambda u: u.username.lower())
    pending = Friendship.objects.filter(status=Friendship.Status.PENDING)
    return FriendsPage(
        friends=[(friend, where[friend.pk]) for friend in friends],
        asking=list(
            users.filter(pk__in=pending.filter(recipient=user).values("sender")).order_by(
                "username"
            )
        ),
        asked=list(
            users.filter(pk__in=pending.filter(sender=user).values("recipient")).order_by(
                "username"
            )
        ),
        blocked=list(users.filter(blocked_by__blocker=user).order_by("username")),
        room=sitting_at(user),
    )


def connect() -> None:
    """Called once from SocialConfig.ready(): chat asks us whose lines a reader blocked."""
    hidden.register(unseen)
