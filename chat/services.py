"""Room chat's one write path: post a line, hide a line; each pushes to the room's chat group.

A line is rendered once, after commit, and the same bytes go to every socket of the room (the
room page's and the table's both join `chat.<room>`): an htmx out-of-band append to #chat-log.
Hiding pushes a delete of that line. Refusals are `ChatRefused(sentence)`: said to the sender
only, never stored.
"""

from __future__ import annotations

import datetime
import unicodedata
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from chat import hidden
from chat.models import MAX_LENGTH, ChatMessage
from lobby import ratelimit
from lobby.models import Room
from moderation.models import AuditEntry, Mute, can_moderate, muted_until, record
from tables import languages
from tables.guests import is_guest, is_member
from tables.live.render import render_each, split

# The last lines a socket gets on (re)connect: enough to follow the talk, cheap to render.
BACKLOG = 50
# One click away under the chat box: each sends its code, and a line that is a reaction's code
# is shown in each reader's language (templates/chat/panel.html, context "chat reaction").
REACTIONS = {
    "gg": pgettext_lazy("chat reaction", "gg"),
    "well played": pgettext_lazy("chat reaction", "well played"),
    "good luck": pgettext_lazy("chat reaction", "good luck"),
    "oops": pgettext_lazy("chat reaction", "oops"),
}
TEMPLATE = "chat/panel.html"


class ChatRefused(Exception):  # noqa: N818 - a refusal, said to the user, not an error
    """A line or a hide that was refused, with the sentence to show and an HTTP status."""

    def __init__(self, message: str, status: int = 400, muted: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.muted = muted


def chat_group(room_id: int) -> str:
    return f"chat.{room_id}"


def chat_user_group(user_id: int) -> str:
    # Only chat sockets join this one (not the lobby's), so only they get its messages.
    return f"chat.user.{user_id}"


def clean(text: object) -> str:
    """Return the line as it is kept: control characters dropped, whitespace collapsed."""
    if not isinstance(text, str):
        return ""
    text = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in text)
    return " ".join(text.split())


def muted_sentence(until: datetime.datetime) -> str:
    local = timezone.localtime(until)
    time = f"{local:%H:%M}"
    if local.date() != timezone.localdate():
        return _("You are muted until %(time)s on %(date)s.") % {
            "time": time,
            "date": f"{local:%Y-%m-%d}",
        }
    return _("You are muted until %(time)s.") % {"time": time}


def post(room_id: int, user, text: object) -> ChatMessage:  # noqa: ANN001
    """Post `text` to the room's chat as `user`, or raise ChatRefused saying why not."""
    if user is None or not is_member(user) or not user.is_active:
        raise ChatRefused(_("Log in to chat; spectators without an account can only read."), 403)
    line = clean(text)
    if not line:
        raise ChatRefused(_("Type something to say first."))
    if len(line) > MAX_LENGTH:
        raise ChatRefused(
            _("That is too long: at most %(most)d characters.") % {"most": MAX_LENGTH}
        )
    # The count first: a flood is refused before it costs a query.
    if not ratelimit.hit("chat", user.pk, settings.CHAT_LINES_PER_USER, settings.CHAT_LINE_WINDOW):
        raise ChatRefused(_("Slow down: you are sending lines too fast."), 429)
    until = muted_until(user)
    if until is not None:
        raise ChatRefused(muted_sentence(until), 403, muted=True)
    with transaction.atomic():
        if not Room.objects.filter(pk=room_id).exists():
            raise ChatRefused(_("This room does not exist."), 404)
        message = ChatMessage.objects.create(room_id=room_id, user=user, text=line)
        transaction.on_commit(partial(_push_line, message))
    return message


def hide(message_id: int, moderator, reason: object) -> ChatMessage:  # noqa: ANN001
    """Hide a line from every page (staff only), log it in the audit log, delete it live."""
    if not can_moderate(moderator):
        raise ChatRefused(_("Only moderators may hide chat messages."), 403)
    why = clean(reason)[:500]
    if not why:
        raise ChatRefused(_("Say why the message is hidden: the reason goes in the audit log."))
    with transaction.atomic():
        message = ChatMessage.objects.select_for_update().filter(pk=message_id).first()
        if message is None:
            raise ChatRefused(_("That message does not exist."), 404)
        if message.hidden:
            return message  # hidden already: one audit entry per hiding
        message.hidden = True
        message.hidden_by = moderator
        message.hidden_at = timezone.now()
        message.save(update_fields=["hidden", "hidden_by", "hidden_at"])
        record(
            moderator,
            AuditEntry.Action.HIDE_MESSAGE,
            why,
            message=message,
            room_id=message.room_id,
            user_id=message.user_id,
        )
        transaction.on_commit(partial(_push_delete, message.room_id, message.pk))
    return message


# What the sockets send.


def render_backlog(room_id: int, user) -> tuple[int, str]:  # noqa: ANN001
    """Return the last visible line id and the chat's whole view for one (re)connecting socket.

    Lines of authors this reader blocked (chat.hidden) are left out.
    """
    lines = list(
        ChatMessage.objects.filter(room_id=room_id, hidden=False)
        .exclude(user_id__in=hidden.unseen_by(user))
        .select_related("user")
        .order_by("-created_at", "-pk")[:BACKLOG]
    )
    lines.reverse()
    html = render_to_string(f"{TEMPLATE}#log", {"lines": lines}) + render_compose(user)
    return (lines[-1].pk if lines else 0), html


def compose_context(user) -> dict:  # noqa: ANN001
    """What the chat box shows this viewer: the form, or why he cannot write."""
    signed_in = user is not None and is_member(user)  # a guest reads along
    until = muted_until(user) if signed_in else None
    return {
        "signed_in": signed_in,
        "guest": is_guest(user),
        "muted": muted_sentence(until) if until else "",
        "muted_until": until,
        "reactions": REACTIONS,
        "max_length": MAX_LENGTH,
    }


def render_compose(user) -> str:  # noqa: ANN001
    return render_to_string(f"{TEMPLATE}#compose", compose_context(user))


def render_note(sentence: str = "") -> str:
    return render_to_string(f"{TEMPLATE}#note", {"note": sentence})


def _push_line(message: ChatMessage) -> None:
    # Once per language the room's chat boxes read (the hide button speaks), not per socket.
    by_language = render_each(
        languages.present(chat_group(message.room_id)),
        lambda: render_to_string(f"{TEMPLATE}#append", {"m": message}),
    )
    event = {
        "type": "chat.line",
        "id": message.pk,
        "author": message.user_id,
        **split(by_language),
    }
    _group_send(message.room_id, event)


def _push_delete(room_id: int, message_id: int) -> None:
    html = render_to_string(f"{TEMPLATE}#delete", {"message_id": message_id})
    _group_send(room_id, {"type": "chat.hidden", "html": html})


def mute_changed(user_id: int) -> None:
    """Tell the user's chat boxes that his mute began or ended: each draws itself again."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(chat_user_group(user_id), {"type": "chat.compose"})


def unseen_changed(user_id: int) -> None:
    """Tell this reader's chat boxes that whom he does not see changed (a block, chat.hidden)."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(chat_user_group(user_id), {"type": "chat.unseen.changed"})


def _on_mute_saved(sender, instance, **kwargs) -> None:  # noqa: ANN001
    # Whichever path records or lifts a mute (the admin, a staff page, a shell), after commit.
    transaction.on_commit(partial(mute_changed, instance.user_id))


def connect_signals() -> None:
    """Called once from ChatConfig.ready()."""
    post_save.connect(_on_mute_saved, sender=Mute, dispatch_uid="chat.mute_saved")
    post_delete.connect(_on_mute_saved, sender=Mute, dispatch_uid="chat.mute_deleted")


def _group_send(room_id: int, event: dict) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(chat_group(room_id), event)
