"""Every player's data in his own hands: the export (a zip of JSON and a README) and the
deletion of his account.

What the site holds on a user lives in several apps. The ones below this layer are read here
directly; an app above it (the Board API's tokens) adds its part through `register(name,
export, erase)` in its AppConfig.ready, so that this module never imports upward.

The export reads every table with a handful of queries whatever the number of matches (the
moves of 1,000 matches are one query): bench and figures in docs/performance.md, "Export".
Deletion is at once, in one transaction: the account stays as a row (the opponents' matches,
scores and replays point at it) but its name becomes "deleted player N", it can never sign
in again, its chat lines' text is removed, its sessions, tokens and personal rows go.
"""

from __future__ import annotations

import io
import json
import logging
import threading
import time
import zipfile
from collections.abc import Callable
from functools import partial
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connections, transaction
from django.db.models import F, Q
from django.utils import timezone

from chat.models import ChatMessage
from daily.models import Attempt
from lobby import services as lobby_services
from lobby.models import Profile, Room, Seat
from moderation.models import Mute, Report
from social.models import (
    Block,
    Connection,
    Export,
    Friendship,
    Invitation,
    Notification,
    PushSubscription,
    Settings,
)
from tables import play, replay
from tables.live import rooms, stream
from tables.models import (
    ActionLog,
    Match,
    Player,
    Rating,
    RatingChange,
    ReactionProfile,
    RoundScore,
)
from tournaments.models import Entry, Tournament

log = logging.getLogger(__name__)

Exporter = Callable[[Any], list[dict[str, Any]]]
Eraser = Callable[[Any], None]

# Filled once at start-up by the apps above (AppConfig.ready), read-only after.
_sections: dict[str, tuple[Exporter, Eraser | None]] = {}
_covered: set[str] = set()


def register(
    name: str, export: Exporter, erase: Eraser | None = None, models: tuple[Any, ...] = ()
) -> None:
    """Add a section of user data kept by another app (its rows, and how to erase them);
    `models` are the models it covers (tests/social/test_data.py checks that every model
    pointing at a user is covered by the export or named as not being his data)."""
    _sections[name] = (export, erase)
    _covered.update(model._meta.label for model in models)


# The models the export covers by itself (app_label.Model), besides the registered sections.
COVERED = {
    "auth.User",
    "lobby.Profile",
    "lobby.Room",
    "lobby.Seat",
    "tables.Player",
    "tables.Rating",
    "tables.RatingChange",
    "tables.ReactionProfile",
    "chat.ChatMessage",
    "moderation.Report",
    "moderation.Mute",
    "social.Friendship",
    "social.Block",
    "social.Invitation",
    "social.Notification",
    "social.PushSubscription",
    "social.Settings",
    "tournaments.Entry",
    "tournaments.Tournament",
    "daily.Attempt",
}
# Models that point at a user but are not his data to take, and why.
NOT_HIS = {
    "moderation.AuditEntry": "the moderators' own record of their actions",
    "social.Connection": "an open page, gone when it closes",
    "social.Export": "the export itself",
    "admin.LogEntry": "the admin's record of staff actions",
}


def covered() -> set[str]:
    return COVERED | _covered


README = """\
Your data from cardgames
========================

Every file is JSON (UTF-8). Times are in UTC (ISO 8601).

account.json          your account: name, e-mail, when you joined and last logged in
profile.json          what you chose on the site (language), your notification settings
ratings.json          your rating per game, and rating_history.json: each rated match's change
matches.json          every match you sat at: game, room, seats (names), your seat, your
                      points per round, whether you won, and every move of yours (moves)
chat.json             the chat lines of the rooms you sat at, both sides, as you saw them
                      (lines a moderator hid and lines of players you blocked left out)
rooms.json            rooms you hosted or sat in
reports.json          reports you made; mutes.json: mutes you were given
reaction_times.json   per game, how fast your plays came (a histogram of ms, docs/fairness.md)
                      and whether the reaction-time check flagged you
friends.json          friends, requests, blocks; invitations.json; notifications.json
push_subscriptions.json  browsers you allowed to receive push messages
tournaments_entered.json  tournaments you entered (standing, points); tournaments_created.json
daily_attempts.json   your daily challenge attempts (day, room, ranked)
api_tokens.json       your Board API tokens' names (never their secret)
"""


def _rows(queryset: Any, *fields: str) -> list[dict[str, Any]]:
    return list(queryset.values(*fields))


def collect(user: Any, progress: Callable[[int], None] = lambda percent: None) -> dict[str, Any]:
    """Every section of `user`'s data, as JSON-ready lists and dicts."""
    data: dict[str, Any] = {}
    data["account"] = {
        "id": user.pk,
        "username": user.username,
        "email": user.email,
        "date_joined": user.date_joined,
        "last_login": user.last_login,
    }
    social: dict[str, Any] = dict(
        Settings.objects.filter(user=user).values("last_seen", "language", "routes").first() or {}
    )
    data["profile"] = {
        "language": Profile.objects.filter(user=user).values_list("language", flat=True).first(),
        "last_seen": social.get("last_seen"),
        "language_of_your_pages": social.get("language"),
        "notification_routes": social.get("routes"),
    }
    data["ratings"] = _rows(
        Rating.objects.filter(user=user), "game", "mu", "sigma", "matches", "updated_at"
    )
    data["rating_history"] = _rows(
        RatingChange.objects.filter(user=user),
        "match_id",
        "game",
        "rank",
        "mu_before",
        "sigma_before",
        "mu_after",
        "sigma_after",
        "created_at",
    )
    progress(10)
    data["matches"] = _matches(user)
    progress(60)
    data["chat"] = _chat(user)
    progress(75)
    data["rooms"] = _rows(
        Room.objects.filter(Q(host=user) | Q(seat_set__user=user)).distinct().order_by("pk"),
        "id",
        "game",
        "seats",
        "status",
        "private",
        "rated",
        "created_at",
        "host__username",
    )
    data["reports"] = _rows(
        Report.objects.filter(reporter=user),
        "id",
        "reported__username",
        "room_id",
        "reason",
        "status",
        "created_at",
    )
    data["mutes"] = _rows(Mute.objects.filter(user=user), "until", "reason", "created_at")
    # The reaction-time check's record of you (docs/fairness.md): its histogram and any flag.
    data["reaction_times"] = _rows(
        ReactionProfile.objects.filter(user=user).order_by("game"),
        "game",
        "buckets",
        "count",
        "flag",
        "flagged_at",
    )
    data["friends"] = {
        "friendships": _rows(
            Friendship.objects.filter(Q(sender=user) | Q(recipient=user)),
            "sender__username",
            "recipient__username",
            "status",
            "created_at",
            "accepted_at",
        ),
        "blocks": _rows(Block.objects.filter(blocker=user), "blocked__username", "created_at"),
    }
    data["invitations"] = _rows(
        Invitation.objects.filter(Q(sender=user) | Q(recipient=user)),
        "room_id",
        "sender__username",
        "recipient__username",
        "status",
        "created_at",
        "answered_at",
    )
    data["notifications"] = _rows(
        Notification.objects.filter(user=user), "kind", "params", "created_at", "read_at", "sent"
    )
    data["push_subscriptions"] = _rows(
        PushSubscription.objects.filter(user=user), "endpoint", "created_at"
    )
    data["tournaments_entered"] = _rows(
        Entry.objects.filter(user=user),
        "tournament_id",
        "name",
        "status",
        "points",
        "rank",
        "missed",
        "joined_at",
    )
    data["tournaments_created"] = _rows(
        Tournament.objects.filter(creator=user),
        "id",
        "game",
        "seats",
        "format",
        "rounds",
        "minutes",
        "duplicate",
        "private",
        "status",
        "starts_at",
        "created_at",
    )
    data["daily_attempts"] = _rows(
        Attempt.objects.filter(user=user), "day", "room_id", "ranked", "created_at"
    )
    for name, (export, _erase) in sorted(_sections.items()):
        data[name] = export(user)
    progress(90)
    return data


def _matches(user: Any) -> list[dict[str, Any]]:
    mine = list(
        Player.objects.filter(user=user)
        .select_related("match__room")
        .order_by("match__created_at", "match_id")
    )
    match_ids = [p.match_id for p in mine]
    seats: dict[int, list[dict[str, Any]]] = {}
    for row in Player.objects.filter(match_id__in=match_ids).values(
        "match_id", "seat", "name", "won"
    ):
        seats.setdefault(row["match_id"], []).append(dict(row))
    points: dict[int, list[dict[str, Any]]] = {}
    for score in RoundScore.objects.filter(player__in=mine).values(
        "player__match_id", "round__number", "points"
    ):
        points.setdefault(score["player__match_id"], []).append(
            {"round": score["round__number"], "points": score["points"]}
        )
    moves: dict[int, list[dict[str, Any]]] = {}
    for move in (
        ActionLog.objects.filter(match__players__user=user, seat=F("match__players__seat"))
        .order_by("match_id", "version")
        .values("match_id", "round__number", "version", "action", "by_bot", "refused", "created_at")
    ):
        entry: dict[str, Any] = dict(move)
        moves.setdefault(entry.pop("match_id"), []).append(entry)
    return [
        {
            "match": p.match_id,
            "room": p.match.room_id,
            "game": p.match.game,
            "status": p.match.status,
            "started": p.match.created_at,
            "finished": p.match.finished_at,
            "your_seat": p.seat,
            "won": p.won,
            "seats": seats.get(p.match_id, []),
            "your_points": points.get(p.match_id, []),
            "moves": moves.get(p.match_id, []),
        }
        for p in mine
    ]


def _chat(user: Any) -> list[dict[str, Any]]:
    rooms = set(Seat.objects.filter(user=user).values_list("room_id", flat=True))
    rooms |= set(Player.objects.filter(user=user).values_list("match__room_id", flat=True))
    unseen = Block.objects.filter(blocker=user).values("blocked")
    return _rows(
        ChatMessage.objects.filter(room_id__in=rooms, hidden=False)
        .exclude(user_id__in=unseen)
        .order_by("room_id", "created_at", "pk"),
        "room_id",
        "user__username",
        "text",
        "created_at",
    )


def build(user: Any, progress: Callable[[int], None] = lambda percent: None) -> bytes:
    """The export as a zip: README.txt and one JSON file per section."""
    data = collect(user, progress)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.txt", README)
        for name, section in data.items():
            archive.writestr(
                f"{name}.json",
                json.dumps(section, cls=DjangoJSONEncoder, ensure_ascii=False, indent=1),
            )
    progress(100)
    return buffer.getvalue()


def deleted_name(user_id: int) -> str:
    return f"deleted player {user_id}"


def delete_account(user: Any) -> None:
    """Delete `user`'s account at once (his password was checked by the caller).

    His seats in rooms not over go to bots first (as for a ban); then, in one transaction, his
    name becomes "deleted player N" everywhere it is shown (the account and every match's
    seat), his chat lines lose their text, and his personal rows, sessions and tokens go.
    """
    lobby_services.vacate_seats(user)
    name = deleted_name(user.pk)
    # A match being played renames his seat through its room (the move path's touch); the
    # others' rows are renamed below and the live rooms of this process read them again.
    for room_id in Player.objects.filter(user=user, match__status=Match.Status.PLAYING).values_list(
        "match__room_id", flat=True
    ):
        play.touch(room_id, partial(_rename, user.pk, name))
    with transaction.atomic():
        account = get_user_model().objects.select_for_update().get(pk=user.pk)
        played = list(Player.objects.filter(user=account).values_list("match_id", "match__room_id"))
        Player.objects.filter(user=account).update(name=name)
        Entry.objects.filter(user=account).update(name=name)  # others' standings keep the seat
        transaction.on_commit(partial(_forget, played))
        ChatMessage.objects.filter(user=account).update(text="")
        Friendship.objects.filter(Q(sender=account) | Q(recipient=account)).delete()
        Invitation.objects.filter(Q(sender=account) | Q(recipient=account)).delete()
        Block.objects.filter(Q(blocker=account) | Q(blocked=account)).delete()
        for model in (Notification, PushSubscription, Connection, Settings, Profile, Export):
            model._default_manager.filter(user=account).delete()
        for _export, erase in _sections.values():
            if erase is not None:
                erase(account)
        account.username = name
        account.email = ""
        account.first_name = account.last_name = ""
        account.set_unusable_password()
        account.is_active = False  # the sign-in refuses it; the API's tokens answer 401
        account.save()
        _end_sessions(account.pk)
    stream.close_user_sockets(account.pk)


def _rename(user_id: int, name: str, table: Any) -> bool:
    for player in table.players:
        if player.user_id == user_id and player.name != name:
            player.name = name
            player.save(update_fields=["name"])
            return True
    return False


def _forget(played: list[tuple[int, int]]) -> None:
    # This process's live rooms and replays read the new name; another process's replays
    # of these matches keep the old one until they drop out of its small memo (16 rounds).
    replay.forget({match_id for match_id, _room in played})
    for _match, room_id in played:
        rooms.forget(room_id)


def _end_sessions(user_id: int) -> None:
    key = str(user_id)
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if session.get_decoded().get("_auth_user_id") == key:
            session.delete()


def start_export(user: Any) -> Export:
    """Begin an export in a thread of its own; the page follows its `percent`."""
    running = Export.objects.filter(user=user, status=Export.Status.RUNNING).first()
    if running is not None:
        return running  # one at a time
    export = Export.objects.create(user=user)
    transaction.on_commit(
        lambda: threading.Thread(target=_export_thread, args=(export.pk,), daemon=True).start()
    )
    return export


def run_export(export_id: int) -> None:
    """Build the export's zip, noting its progress on the row as it goes."""
    started = time.monotonic()
    try:
        export = Export.objects.select_related("user").get(pk=export_id)

        def note(percent: int) -> None:
            Export.objects.filter(pk=export_id).update(percent=percent)

        archive = build(export.user, note)
        Export.objects.filter(pk=export_id).update(
            archive=archive,
            status=Export.Status.READY,
            percent=100,
            finished_at=timezone.now(),
            seconds=time.monotonic() - started,
        )
    except Exception:
        log.exception("an export failed")
        Export.objects.filter(pk=export_id).update(status=Export.Status.FAILED)


def _export_thread(export_id: int) -> None:
    try:
        run_export(export_id)
    finally:
        connections.close_all()  # this thread's own connections
