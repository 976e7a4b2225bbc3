"""The one write path for moderation: bans, mutes, closing rooms, reports and their handling.

Every moderator action runs in one transaction that also writes its audit entry, so the log
cannot miss an action nor record one that did not happen. Refusals raise ModerationError with
a code, a sentence for people and an HTTP status, as lobby.services.RoomError does.
"""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext as _

from lobby import ratelimit
from lobby import services as lobby_services
from moderation.models import AuditEntry, Mute, Report, can_moderate, record
from tables import reaction
from tables.live import stream
from tables.models import ReactionProfile

# Reasons go into the audit log and, for a closed room, before its players' eyes.
REASON_MAX = 200
REPORT_MAX = 500
# A mute is for cooling down; longer than a year is a ban.
MUTE_MAX_MINUTES = 365 * 24 * 60
# Reports a user may file per window: plenty for real trouble, too few to flood the queue.
REPORTS_PER_USER = 10
REPORT_WINDOW = 3600


class ModerationError(Exception):
    """A refused moderation step: `.code` for machines, `.message` for people, `.status`."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def ban(user: Any, moderator: Any, reason: str) -> Any:
    """Ban `user`: he cannot log in nor use the API, his sockets close, bots take his seats."""
    reason = _checked(moderator, reason)
    with transaction.atomic():
        target = _locked_target(user, moderator)
        if not target.is_active:
            raise ModerationError("already_banned", f"{target.username} is banned already.")
        # His open pages are told why before their sockets close (registered before the
        # save, whose own close runs after this one); saving is_active=False closes them.
        notice = render_to_string("moderation/_banned.html", {"reason": reason})
        transaction.on_commit(partial(stream.close_user_sockets, target.pk, notice))
        target.is_active = False
        target.save(update_fields=["is_active"])
        lobby_services.vacate_seats(target)
        record(moderator, AuditEntry.Action.BAN, reason, user=target)
    return target


def unban(user: Any, moderator: Any, reason: str) -> Any:
    """Let a banned user in again (his seats stay with the bots)."""
    reason = _checked(moderator, reason)
    with transaction.atomic():
        target = _locked_target(user, moderator)
        if target.is_active:
            raise ModerationError("not_banned", f"{target.username} is not banned.")
        target.is_active = True
        target.save(update_fields=["is_active"])
        record(moderator, AuditEntry.Action.UNBAN, reason, user=target)
    return target


def mute(
    user: Any, moderator: Any, minutes: Any = None, until: Any = None, reason: str = ""
) -> Mute:
    """Keep `user` from chatting for `minutes`, or until `until`."""
    reason = _checked(moderator, reason)
    now = timezone.now()
    if until is None:
        if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes < 1:
            raise ModerationError(
                "invalid_duration", "A mute lasts a whole number of minutes, from 1.", 400
            )
        if minutes > MUTE_MAX_MINUTES:
            raise ModerationError(
                "invalid_duration", "A mute lasts a year at most; ban for longer.", 400
            )
        until = now + timedelta(minutes=minutes)
    elif until <= now:
        raise ModerationError("invalid_duration", _("A mute must end in the future."), 400)
    with transaction.atomic():
        target = _locked_target(user, moderator)
        entry = Mute.objects.create(user=target, until=until, reason=reason, by=moderator)
        record(moderator, AuditEntry.Action.MUTE, reason, user=target)
    return entry


def unmute(user: Any, moderator: Any, reason: str) -> int:
    """End every mute of `user` now; return how many were ended."""
    reason = _checked(moderator, reason)
    with transaction.atomic():
        target = _locked_target(user, moderator, own_ok=True)
        ended = Mute.objects.active().filter(user=target).update(until=timezone.now())
        if not ended:
            raise ModerationError("not_muted", f"{target.username} is not muted.")
        record(moderator, AuditEntry.Action.UNMUTE, reason, user=target)
    return ended


def close_room(room: Any, moderator: Any, reason: str) -> Any:
    """Close a room before its end; its players see the reason on the room page and table."""
    reason = _checked(moderator, reason)
    with transaction.atomic():
        try:
            closed = lobby_services.close_room(room.pk, moderator, reason, moderator=True)
        except lobby_services.RoomError as refusal:
            raise ModerationError(refusal.code, refusal.message, refusal.status) from refusal
        record(moderator, AuditEntry.Action.CLOSE_ROOM, reason, room=closed)
    return closed


def resolve_report(report: Report, moderator: Any, note: str) -> Report:
    """Mark an open report as dealt with, with a note of what was done."""
    return _handle(report, moderator, note, Report.Status.RESOLVED)


def dismiss_report(report: Report, moderator: Any, note: str) -> Report:
    """Close an open report as unfounded, with a note of why."""
    return _handle(report, moderator, note, Report.Status.DISMISSED)


def clear_reaction_flag(profile: ReactionProfile, moderator: Any, reason: str) -> ReactionProfile:
    """Clear a reaction-time flag (tables.reaction): the account may play rated again, and its
    reaction times in that game are measured afresh from now on."""
    reason = _checked(moderator, reason)
    with transaction.atomic():
        locked = ReactionProfile.objects.select_for_update().get(pk=profile.pk)
        if locked.flagged_at is None:
            raise ModerationError("not_flagged", _("This account is not flagged."))
        reaction.keep(locked, reaction.Summary())
        locked.flag, locked.flagged_at = ReactionProfile.Flag.NONE, None
        locked.cleared_at, locked.cleared_by = timezone.now(), moderator
        locked.save()
        record(moderator, AuditEntry.Action.CLEAR_REACTION, reason, user=locked.user)
    return locked


def create_report(reporter: Any, reported: Any, room: Any, reason: str) -> Report:
    """File `reporter`'s report of `reported`, a human player of `room`."""
    if reporter is None or not getattr(reporter, "is_authenticated", False):
        raise ModerationError("not_signed_in", _("Sign in to report a player."), 403)
    reason = " ".join(str(reason or "").split())
    if not reason:
        raise ModerationError("reason_required", _("Say what happened: a reason is required."), 400)
    if len(reason) > REPORT_MAX:
        raise ModerationError(
            "reason_too_long",
            _("Please keep the reason to %(most)d characters.") % {"most": REPORT_MAX},
            400,
        )
    if reported.pk == reporter.pk:
        raise ModerationError("own_report", _("You cannot report yourself."), 400)
    if not _plays_in(reported, room):
        raise ModerationError("not_a_player", _("You can only report a player of this room."), 400)
    if Report.objects.filter(
        reporter=reporter, reported=reported, room=room, status=Report.Status.OPEN
    ).exists():
        raise ModerationError(
            "already_reported",
            "You already reported this player here; a moderator will look at it.",
        )
    if not ratelimit.hit("reports", reporter.pk, REPORTS_PER_USER, REPORT_WINDOW):
        raise ModerationError(
            "too_many_reports", "You have sent many reports; please wait an hour.", 429
        )
    return Report.objects.create(reporter=reporter, reported=reported, room=room, reason=reason)


def room_players(room: Any) -> list[Any]:
    """Return the human players of `room` (its seats, or its match's players once started)."""
    from tables.models import Player

    users = {seat.user for seat in room.seat_set.select_related("user") if seat.user_id}
    users |= {
        p.user
        for p in Player.objects.filter(match__room=room, user__isnull=False).select_related("user")
    }
    return sorted(users, key=lambda u: u.username.lower())


def _plays_in(user: Any, room: Any) -> bool:
    return any(u.pk == user.pk for u in room_players(room))


def _handle(report: Report, moderator: Any, note: str, status: str) -> Report:
    note = _checked(moderator, note, what="A note")
    action = (
        AuditEntry.Action.RESOLVE_REPORT
        if status == Report.Status.RESOLVED
        else AuditEntry.Action.DISMISS_REPORT
    )
    with transaction.atomic():
        locked = Report.objects.select_for_update().get(pk=report.pk)
        if locked.status != Report.Status.OPEN:
            raise ModerationError(
                "report_handled", f"Report {locked.pk} was {locked.status} already."
            )
        locked.status = status
        locked.handled_by = moderator
        locked.handled_at = timezone.now()
        locked.resolution = note
        locked.save(update_fields=["status", "handled_by", "handled_at", "resolution"])
        record(moderator, action, note, report=locked, user=locked.reported, room=locked.room)
    return locked


def _checked(moderator: Any, reason: Any, what: str = "A reason") -> str:
    """Refuse anyone but a moderator, and an action without a reason; return the reason."""
    if not can_moderate(moderator):
        raise ModerationError("not_moderator", _("Only moderators may do that."), 403)
    reason = " ".join(str(reason or "").split())
    if not reason:
        raise ModerationError("reason_required", f"{what} is required for every action.", 400)
    if len(reason) > REASON_MAX:
        raise ModerationError(
            "reason_too_long", f"{what} may be {REASON_MAX} characters long at most.", 400
        )
    return reason


def _locked_target(user: Any, moderator: Any, own_ok: bool = False) -> Any:
    target = get_user_model().objects.select_for_update().get(pk=user.pk)
    if target.pk == moderator.pk and not own_ok:
        raise ModerationError("own_account", _("You cannot do that to your own account."), 400)
    if target.is_superuser:
        raise ModerationError("superuser", _("Superusers cannot be banned or muted."), 403)
    return target
