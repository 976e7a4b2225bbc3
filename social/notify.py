"""Notifications: one model, three routes (the site's bell, Web Push, e-mail), one door.

`notify(user, kind, params, sender=None)` is the only way a notification is made, whoever
asks (friend requests, invitations, the tables' Allegra turn, tournaments' signals, the
moderators). It stores the row, then after commit pushes the bell's new count to the user's
open pages, sends a Web Push when none of his pages is visible, and an e-mail for the kinds
that start soon when he turned that on. Each is worded in the reader's language when sent or
shown, never stored worded. A sender may not flood one recipient: `SOCIAL_NOTIFY_PER_SENDER`
per `SOCIAL_NOTIFY_WINDOW` seconds, then his further ones are dropped (the action itself,
e.g. the request, still happens; only the telling is spared).
"""

from __future__ import annotations

import json
import logging
import threading
from functools import partial
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from lobby import ratelimit
from lobby.models import Profile
from social import pushes
from social.models import Connection, Notification, PushSubscription, Settings
from tables.words import game_name

log = logging.getLogger(__name__)

# Every kind, with the sentence that words it (params by name) and what the profile calls it.
KINDS: dict[str, tuple[Any, Any]] = {
    "friend_request": (
        _("%(name)s asks to be your friend."),
        pgettext_lazy("notification kind", "Friend requests"),
    ),
    "invitation": (
        _("%(name)s invites you to their %(game)s table."),
        pgettext_lazy("notification kind", "Invitations"),
    ),
    "your_turn": (
        _("Your turn at the %(game)s table."),
        pgettext_lazy("notification kind", "Your Allegra turn (when the page is hidden)"),
    ),
    "tournament_soon": (
        _("Your tournament %(name)s starts in 5 minutes."),
        pgettext_lazy("notification kind", "Your tournament starts soon"),
    ),
    "round_starts": (
        _("Your next round of %(name)s begins."),
        pgettext_lazy("notification kind", "Your next round begins"),
    ),
    "moderator": (
        _("A message from the moderators: %(text)s"),
        pgettext_lazy("notification kind", "Messages from the moderators"),
    ),
}
ROUTES = ("site", "push", "email")
# Mail only for what starts soon (a tournament, its next round), and only when asked for.
EMAIL_KINDS = ("tournament_soon", "round_starts")
DEFAULT_ROUTES = {"site": True, "push": True, "email": False}
# Told only when none of his pages is visible (he sees the table otherwise).
HIDDEN_ONLY = ("your_turn",)


class UnknownKind(ValueError):
    pass


def routes_of(user_id: int) -> dict[str, dict[str, bool]]:
    """Each kind's routes for this user, his choices over the defaults."""
    stored = Settings.objects.filter(user_id=user_id).values_list("routes", flat=True).first()
    chosen: dict[str, Any] = stored if isinstance(stored, dict) else {}
    result = {}
    for kind in KINDS:
        given = chosen.get(kind)
        mine: dict[str, Any] = given if isinstance(given, dict) else {}
        result[kind] = {
            route: bool(mine.get(route, DEFAULT_ROUTES[route]))
            and (route != "email" or kind in EMAIL_KINDS)
            for route in ROUTES
        }
    return result


def save_routes(user: Any, chosen: dict[str, dict[str, bool]]) -> None:
    """Keep the user's choice of routes per kind (only known kinds and routes)."""
    routes = {
        kind: {route: bool(chosen.get(kind, {}).get(route)) for route in ROUTES} for kind in KINDS
    }
    Settings.objects.update_or_create(user=user, defaults={"routes": routes})


def language_of(user_id: int) -> str:
    """The language to tell this user something in when no page of his asks."""
    chosen = Profile.objects.filter(user_id=user_id).values_list("language", flat=True).first()
    seen = Settings.objects.filter(user_id=user_id).values_list("language", flat=True).first()
    return chosen or seen or settings.LANGUAGE_CODE


def word(notification: Notification) -> str:
    """The notification as a sentence in the active language."""
    template = KINDS.get(notification.kind, (_("Something happened."), ""))[0]
    params = dict(notification.params) if isinstance(notification.params, dict) else {}
    if "game" in params:
        params["game"] = game_name(str(params["game"]))
    try:
        return str(template) % params
    except (KeyError, TypeError, ValueError):
        return str(template).split("%", 1)[0].strip() or notification.kind


def page_visible(user_id: int) -> bool:
    """Whether one of his pages is open and visible now (it says so over its socket)."""
    return Connection.objects.filter(user_id=user_id, visible=True).exists()


def notify(
    user: Any, kind: str, params: dict[str, Any], sender: Any = None, source: str = ""
) -> Notification | None:
    """Tell `user` something of `kind`; None when his preferences or a rate limit spare him.

    `sender` (a person) or `source` (what else causes it: a table, "room-N") may cause him at
    most `SOCIAL_NOTIFY_PER_SENDER` of a kind per window; only what would reach him counts.
    """
    if kind not in KINDS:
        raise UnknownKind(kind)
    routes = routes_of(user.pk)[kind]
    if not any(routes.values()):
        return None
    if kind in HIDDEN_ONLY and page_visible(user.pk):
        return None
    cause = str(sender.pk) if sender is not None else source
    if cause and not ratelimit.hit(
        f"notify-{kind}",
        f"{cause}-{user.pk}",
        settings.SOCIAL_NOTIFY_PER_SENDER,
        settings.SOCIAL_NOTIFY_WINDOW,
    ):
        return None
    note = Notification.objects.create(
        user=user, kind=kind, params=params, read_at=None if routes["site"] else _now()
    )
    transaction.on_commit(partial(deliver, note.pk, routes))
    return note


def _now() -> Any:
    from django.utils import timezone

    return timezone.now()


def deliver(notification_id: int, routes: dict[str, bool]) -> None:
    """After commit: the bell, then Web Push if no page is visible, then the e-mail."""
    note = Notification.objects.filter(pk=notification_id).select_related("user").first()
    if note is None:
        return
    if routes["site"]:
        pushes.bell_changed(note.user_id, note.pk)
    sent = []
    with translation.override(language_of(note.user_id)):
        if routes["push"] and not page_visible(note.user_id) and web_push(note):
            sent.append("push")
        if routes["email"] and note.user.email and _mail(note):
            sent.append("email")
    if sent:
        Notification.objects.filter(pk=note.pk).update(sent=sent)


def web_push(note: Notification) -> bool:
    """Send the notification to each of the user's push subscriptions; True if one took it."""
    private_key = settings.WEBPUSH_VAPID_PRIVATE_KEY
    if not private_key:
        return False
    from pywebpush import WebPushException, webpush

    payload = json.dumps(
        {"title": "cardgames", "body": word(note), "url": note.params.get("url", "/")}
    )
    took = False
    for sub in PushSubscription.objects.filter(user_id=note.user_id):
        try:
            webpush(
                subscription_info={
                    "endpoint": sub.endpoint,
                    "keys": {"p256dh": sub.p256dh, "auth": sub.auth},
                },
                data=payload,
                vapid_private_key=private_key,
                vapid_claims={"sub": settings.WEBPUSH_VAPID_SUBJECT},
                timeout=5,
            )
        except WebPushException as failure:
            status = getattr(failure.response, "status_code", None)
            if status in (404, 410):  # the browser dropped it: so do we
                sub.delete()
            else:
                log.warning("a Web Push failed: %s", failure)
            continue
        except OSError as failure:  # the push service cannot be reached
            log.warning("a Web Push failed: %s", failure)
            continue
        took = True
    return took


def _mail(note: Notification) -> bool:
    try:
        return bool(
            send_mail(
                str(_("cardgames: %(what)s") % {"what": word(note)}),
                word(note),
                None,
                [note.user.email],
            )
        )
    except OSError as failure:
        log.warning("a notification mail failed: %s", failure)
        return False


def unread_count(user_id: int) -> int:
    return Notification.objects.filter(user_id=user_id, read_at__isnull=True).count()


def subscription_fields(body: Any) -> dict[str, str]:
    """A PushSubscription's JSON (what the browser's `subscription.toJSON()` gives), checked."""
    from tables.live import stream

    if not isinstance(body, dict) or not isinstance(body.get("keys"), dict):
        raise stream.WireError("bad_subscription", "Send the subscription's endpoint and keys.")
    endpoint, keys = body.get("endpoint"), body["keys"]
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not (isinstance(endpoint, str) and endpoint.startswith(("https://", "http://"))):
        raise stream.WireError("bad_subscription", "The endpoint must be an http(s) address.")
    if not all(isinstance(k, str) and 0 < len(k) <= 200 for k in (p256dh, auth)):
        raise stream.WireError("bad_subscription", "The keys must be short base64url texts.")
    if len(endpoint) > 1000:
        raise stream.WireError("bad_subscription", "The endpoint is too long.")
    return {"endpoint": endpoint, "p256dh": str(p256dh), "auth": str(auth)}


def subscribe(user: Any, endpoint: str, p256dh: str, auth: str) -> PushSubscription:
    """Keep a browser's subscription for `user` (a browser re-subscribing moves it to him)."""
    row, _made = PushSubscription.objects.update_or_create(
        endpoint=endpoint, defaults={"user": user, "p256dh": p256dh, "auth": auth}
    )
    return row


def decision_due(
    sender: Any, room_id: int, game: str, kind: str, user_ids: list[int], **kwargs: Any
) -> None:
    """tables.signals.decision_due: a turn of theirs began (a timed table's clock started, or
    an untimed table's driver saw it); told only to those whose pages are hidden. The rows
    are cheap and made here; when a push may go out, it all runs in a thread of its own (the
    bot driver must not wait for a push service)."""
    if kind != "turn" or not user_ids:
        return
    if not PushSubscription.objects.filter(user_id__in=user_ids).exists():
        your_turn(room_id, game, list(user_ids))
        return
    threading.Thread(
        target=_your_turn_thread, args=(room_id, game, list(user_ids)), daemon=True
    ).start()


def your_turn(room_id: int, game: str, user_ids: list[int]) -> None:
    """Notify each of these people that his turn at the room's table began."""
    from django.contrib.auth import get_user_model

    for user in get_user_model().objects.filter(pk__in=user_ids, is_active=True):
        # Rate-limited per table, as a person's notifications are per sender.
        notify(
            user, "your_turn", {"game": game, "url": f"/rooms/{room_id}/"}, source=f"room-{room_id}"
        )


def _your_turn_thread(room_id: int, game: str, user_ids: list[int]) -> None:
    from django.db import connections

    try:
        your_turn(room_id, game, user_ids)
    finally:
        connections.close_all()  # this thread's own


# --------------------------------------------------------------------------- tournaments' signals


def tournament_soon(sender: Any, tournament: Any, user_ids: list[int], **kwargs: Any) -> None:
    """tournaments.signals.starting_soon: its entrants are told it starts in about 5 minutes."""
    _about_tournament("tournament_soon", tournament.pk, list(user_ids))


def round_starting(
    sender: Any, tournament: Any, round: Any, user_ids: list[int], **kwargs: Any
) -> None:
    """tournaments.signals.round_starting: each seated entrant is told his next round begins."""
    _about_tournament("round_starts", tournament.pk, list(user_ids))


def _about_tournament(kind: str, tournament_id: int, user_ids: list[int]) -> None:
    # The scheduler must not wait for a push service either: with a subscription among them,
    # the telling runs in a thread of its own, as for an Allegra turn.
    if not user_ids:
        return
    if not PushSubscription.objects.filter(user_id__in=user_ids).exists():
        _tell_entrants(kind, tournament_id, user_ids)
        return
    threading.Thread(
        target=_tell_entrants_thread, args=(kind, tournament_id, user_ids), daemon=True
    ).start()


def _tell_entrants(kind: str, tournament_id: int, user_ids: list[int]) -> None:
    from django.contrib.auth import get_user_model

    params = {"name": f"#{tournament_id}", "url": f"/tournaments/{tournament_id}/"}
    for user in get_user_model().objects.filter(pk__in=user_ids, is_active=True):
        notify(user, kind, params)


def _tell_entrants_thread(kind: str, tournament_id: int, user_ids: list[int]) -> None:
    from django.db import connections

    try:
        _tell_entrants(kind, tournament_id, user_ids)
    finally:
        connections.close_all()  # this thread's own
