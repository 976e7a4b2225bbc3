"""What every live socket shares: a validated site address, a per-user group, clean refusals.

`LiveConsumer` is the base of every browser consumer (lobby, room, table); the Board API's
stream speaks JSON and has its own (api.consumers). Its interface:

- `groups`: channels' own list of groups joined before `connect()`; `join_group(name)` joins
  one more later. Every group is left on disconnect. A signed-in user's socket is also in
  `user_group(user.pk)`, so `close_user_sockets(user_id)` reaches all of that user's sockets.
- `connect()`: the subclass's own; it joins its groups first, renders its whole current view
  (the ws extension never replays what was missed) and calls `send_view(html)`, or `refuse()`.
- `send_view(html)`: accept and send the full view with the "connected" marker.
- `refuse(code=NOT_FOUND)`: accept, then close with `code`, so that the browser sees the code
  and does not reconnect (a close before accepting reaches it as 1006, which it retries forever).
- `base_url()`: "scheme://host" for absolute links (invite URLs). The host was checked against
  ALLOWED_HOSTS by `AllowedHostValidator` as Django's HTTP does; the scheme is https when the
  proxy's header says so (SECURE_PROXY_SSL_HEADER, as for HTTP) or the scope says wss.
- `refuse_frame(code, sentence)`: the answer to a frame that is not understood (one note; the
  chat composes its own note in for the room's sockets). Frames are decoded by tables.wire.
- `join_room_extras(room_id)` / `receive_room_extras(message)`: hooks for what a room's
  sockets carry besides their own view (the chat, composed in by chat.sockets); the table's
  socket offers a frame to the second only when it has one of `room_extras_fields`.
- `user_notice` (a group message, `{"notice"}`): something for the user's API streams (a new
  invitation, `user_notice(user_id, notice)`); browser sockets ignore it.
- `access_changed` (a group message, `{"room"}`): the user's place in that room changed (he
  left, was removed, was banned); a room's sockets check again and drop what he may no longer
  do. Sent by `access_changed(user_id, room_id)`; other sockets ignore it.
- `identity_changed` (a group message): closes with RECONNECT; the page reconnects as whoever
  its session now says (anonymous after logout, ban or a password change elsewhere).
- `language`: the page's language (tables.languages.from_scope); every handler runs under it,
  so whatever a socket renders for itself is in its reader's language. A part rendered once
  for many sockets carries one rendering per language present (`languages.pick`).

A socket that falls behind is closed by the server (cardgames.server, code 1013) and resyncs by
reconnecting; consumers need nothing for that beyond sending the whole view on connect.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import logging
import weakref
from functools import partial
from importlib import import_module
from typing import Any, Protocol

from asgiref.sync import async_to_sync
from channels.auth import AuthMiddleware
from channels.consumer import AsyncConsumer, get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.security.websocket import WebsocketDenier
from channels.sessions import CookieMiddleware
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.http.request import split_domain_port, validate_host
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext_noop

from tables import languages, server
from tables.live.equalise import receipt

log = logging.getLogger(__name__)

# Browser tests and people alike wait for this before trusting the page to be live.
CONNECTED = translation.pgettext_lazy(
    "live badge", '<span id="live-status" class="live" data-connected="true">live</span>'
)
NOT_FOUND = 4404
# htmx's ws extension reconnects after 1006, 1011, 1012 and 1013 only; cardgames.server lets
# the application send 1012 (autobahn alone would refuse it).
RECONNECT = 1012


# What a stopping server tells every open socket before it closes it (RECONNECT): the page and
# the stream reconnect (to another process, or to this one's successor) and play on.
RESTARTING = gettext_noop("The server is restarting; your game goes on in a moment.")


class Restartable(Protocol):
    """An open socket of this process, told when the server stops (`restart_all`)."""

    async def restarting(self) -> None: ...


class Open(weakref.WeakSet[Any]):
    """Every open socket of this process (weakly held: a socket that ends leaves by itself
    too): the live server's part (tables.server)."""


def _open() -> Open:
    return server.current().part(Open)


def opened(socket: Restartable) -> None:
    _open().add(socket)


def closed(socket: Restartable) -> None:
    _open().discard(socket)


async def restart_all(timeout: float) -> int:
    """Tell every open socket that the server restarts and close it (RECONNECT), all at once;
    waits at most `timeout` seconds. Returns how many there were."""
    open_now = _open()
    sockets = list(open_now)
    open_now.clear()
    tasks = [asyncio.ensure_future(socket.restarting()) for socket in sockets]
    if tasks:
        done, pending = await asyncio.wait(tasks, timeout=timeout)
        for task in pending:
            task.cancel()
        for task in done:
            if not task.cancelled() and task.exception() is not None:
                log.warning("telling a socket of the restart failed", exc_info=task.exception())
    return len(sockets)


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def _header(scope: dict, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


def site_host(scope: dict) -> str | None:
    """Return the request's host as Django's HttpRequest.get_host() would, or None if invalid."""
    host = None
    if settings.USE_X_FORWARDED_HOST:
        host = _header(scope, b"x-forwarded-host")
    host = host or _header(scope, b"host")
    if host is None and scope.get("server"):
        server_host, port = scope["server"]
        host = f"{server_host}:{port}"
    if not host:
        return None
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    domain, _port = split_domain_port(host)
    return host if domain and validate_host(domain, allowed) else None


def site_scheme(scope: dict) -> str:
    """Return "https" or "http" for the page behind this socket, as HttpRequest.scheme does."""
    if settings.SECURE_PROXY_SSL_HEADER:
        meta_name, secure_value = settings.SECURE_PROXY_SSL_HEADER
        # HTTP_X_FORWARDED_PROTO -> x-forwarded-proto
        header = meta_name.removeprefix("HTTP_").replace("_", "-").lower().encode("latin-1")
        value = _header(scope, header)
        if value is not None:
            return "https" if value.split(",", 1)[0].strip() == secure_value else "http"
    return "https" if scope.get("scheme") in ("wss", "https") else "http"


class AllowedHostValidator:
    """Refuse a WebSocket whose Host is not in ALLOWED_HOSTS, as Django answers HTTP with 400."""

    def __init__(self, application) -> None:  # noqa: ANN001
        self.application = application

    async def __call__(self, scope, receive, send):  # noqa: ANN001, ANN204
        if site_host(scope) is None:
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


async def dispatch(consumer: AsyncConsumer, message: dict) -> None:
    """Channels' `AsyncConsumer.dispatch` without its `aclose_old_connections()` per message.

    That call is a hop to the database thread and back for every frame and every group
    message a socket gets (most of a move's transport cost, measured: docs/performance.md).
    Nothing is lost: every database call of a consumer goes through `database_sync_to_async`,
    which closes that thread's old connections itself before and after each call.
    """
    handler = getattr(consumer, get_handler_name(message), None)
    if handler is None:
        raise ValueError(f"No handler for message type {message['type']}")
    await handler(message)


# cardgames.server's scope extension: write a text frame at once (its SEND_NOW).
SEND_NOW = "cardgames.send_now"


class SendNow:
    """A consumer whose text frames go to the socket at once when the server offers it.

    Channels' `send` hands each frame to Daphne's reply dispatch, which hands it to autobahn's
    framing: Python per frame that a push pays once per socket (docs/performance.md). With
    cardgames.server the scope carries a function that writes the frame itself, in the same
    order as everything else sent (both are synchronous); other servers, and the tests'
    communicators, get Channels' way.
    """

    scope: dict[str, Any]
    _send_now: Any = False  # not looked up yet

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        if text_data is not None and bytes_data is None and not close:
            now = self._send_now
            if now is False:
                offered = self.scope.get("extensions", {}).get(SEND_NOW, {})
                now = self._send_now = offered.get("send")
            if now is not None and now(text_data):
                return
        await super().send(text_data, bytes_data, close)  # type: ignore[misc]


# cardgames.server's scope extension: the client's text frames as they are read (RECEIVE_NOW).
RECEIVE_NOW = "cardgames.receive_now"


class ReceiveNow:
    """A consumer that takes its client's frames straight from the server when it offers it.

    Channels hands each frame through Daphne's queue and its own dispatch: a task and a wait
    per frame, and a turn of the loop before the consumer sees it. With cardgames.server the
    scope offers `take(receiver)`, after which the server calls the receiver with each text
    frame as it reads it. Frames are still handled one at a time, in the order they came, as
    Channels would: `take_frames()` before accepting, `frames_ready()` once `connect()` has
    done what the first frame needs; frames that come in between wait. Any other server (and
    the tests' communicators) gets Channels' way: `receive` per frame, as before.

    Either way `received` is when the frame being handled was read (tables.live.equalise.receipt):
    a move's receipt time, which settles and tells its races (docs/fairness.md).
    """

    received: int | None = None

    scope: dict[str, Any]
    _frames: collections.deque | None = None  # frames not handled yet; None: Channels' way
    _ready = False
    _drainer: asyncio.Task | None = None

    def take_frames(self) -> None:
        offered = self.scope.get("extensions", {}).get(RECEIVE_NOW)
        if offered is None:
            return
        self._frames = collections.deque()
        # The frames are handled in the consumer's context as it stands now (its handlers'
        # own context, as under Channels' dispatch), not in the server's.
        self._frames_context = contextvars.copy_context()
        offered["take"](self._frame)

    def frames_ready(self) -> None:
        self._ready = True
        self._drain()

    async def websocket_receive(self, message: dict) -> None:
        if self._frames is None:
            self.received = receipt()
            await super().websocket_receive(message)  # type: ignore[misc]
            return
        # A binary frame still comes through Channels: it keeps its place behind the others.
        self._frames.append((message.get("text"), message.get("bytes"), receipt()))
        self._drain()

    async def websocket_disconnect(self, message: dict) -> None:
        self._ready = False
        if self._frames is not None:
            self._frames.clear()  # the client is gone: what it sent last is not handled
        await super().websocket_disconnect(message)  # type: ignore[misc]

    def _frame(self, text: str) -> None:
        assert self._frames is not None
        self._frames.append((text, None, receipt()))
        self._drain()

    def _drain(self) -> None:
        if not self._ready or not self._frames or self._drainer is not None:
            return
        # Eager: a frame is handled right away, inside the server's read, up to the first
        # thing it waits for (a move: its commit).
        task = asyncio.Task(
            self._handle_frames(),
            loop=asyncio.get_running_loop(),
            context=self._frames_context,
            eager_start=True,
        )
        if not task.done():
            self._drainer = task

    async def _handle_frames(self) -> None:
        frames = self._frames
        assert frames is not None
        try:
            while frames and self._ready:
                text, data, self.received = frames.popleft()
                try:
                    await self.receive(text_data=text, bytes_data=data)  # type: ignore[attr-defined]
                except Exception:
                    # What Channels' dispatch would do with it: log it, end the socket (1011).
                    log.exception("a WebSocket frame failed")
                    self._ready = False
                    frames.clear()
                    await self.close(code=1011)  # type: ignore[attr-defined]
        finally:
            self._drainer = None


class SocketSession:
    """The socket's session, opened from its cookie: Channels' SessionMiddleware without its
    wrapper of `send`.

    That wrapper saves a changed session only with an HTTP response, so for a WebSocket it never
    saves anything, but it runs on every frame sent (measured: a good part of a push's cost).
    Sockets read their session (who is signed in, which invite links it opened); they never
    change it.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope: dict, receive: Any, send: Any) -> Any:
        key = scope["cookies"].get(settings.SESSION_COOKIE_NAME)
        return await self.inner(dict(scope, session=self.store(key)), receive, send)


def session_auth(inner: Any) -> Any:
    """Channels' AuthMiddlewareStack for the site's sockets: cookies, the session, the user."""
    return CookieMiddleware(SocketSession(AuthMiddleware(inner)))


class LiveConsumer(SendNow, AsyncWebsocketConsumer):
    """The base of every live socket; see the module docstring for its interface."""

    groups: list[str]  # channels' own (its consumer is untyped)
    language = settings.LANGUAGE_CODE

    async def dispatch(self, message: dict) -> None:
        with translation.override(self.language):
            await dispatch(self, message)

    async def websocket_connect(self, message: dict) -> None:
        self.language = languages.from_scope(self.scope)
        translation.activate(self.language)
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.groups = [*self.groups, user_group(user.pk)]
        opened(self)
        await super().websocket_connect(message)

    async def websocket_disconnect(self, message: dict) -> None:
        closed(self)
        await super().websocket_disconnect(message)

    async def restarting(self) -> None:
        """The server stops: say so where the page shows whether it is live, then close with
        RECONNECT (the page reconnects by itself, to wherever the site goes on)."""
        with translation.override(self.language):
            sentence = translation.gettext(RESTARTING)
        await self.send(
            text_data=f'<span id="live-status" class="restarting" data-restart="true"'
            f' role="status">{escape(sentence)}</span>'
        )
        await self.close(code=RECONNECT)

    async def join_group(self, name: str) -> None:
        """Join `name` now; it is left on disconnect."""
        await self.channel_layer.group_add(name, self.channel_name)
        self.groups = [*self.groups, name]  # a new list: `groups` may be the class's own

    async def send_view(self, html: str) -> None:
        """Accept the socket and send the whole current view."""
        await self.accept()
        await self.send(text_data=html + CONNECTED)

    async def refuse(self, code: int = NOT_FOUND) -> None:
        await self.accept()
        await self.close(code=code)

    def base_url(self) -> str:
        return f"{site_scheme(self.scope)}://{site_host(self.scope)}"

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Sockets that only listen (the lobby); the room's and the table's override this.
        await self.refuse_frame("bad_frame", "This page sends nothing over its socket.")

    async def refuse_frame(self, code: str, sentence: str) -> None:
        """Answer a frame that is not understood with one short note, never a close."""
        await self.send(
            text_data=f'<p id="live-note" class="live-note" role="status"'
            f' data-code="{escape(code)}">{escape(sentence)}</p>'
        )

    async def identity_changed(self, event: dict) -> None:
        # A sentence for the page first when there is one (a ban says why), then the close.
        if event.get("html"):
            await self.send(text_data=event["html"])
        await self.close(code=RECONNECT)

    async def access_changed(self, event: dict) -> None:
        pass  # only a room's sockets care (room page, table)

    async def user_notice(self, event: dict) -> None:
        pass  # for the user's API streams (JSON); a page learns it through its own socket

    # A room's sockets (its page, its table) can carry more than their own view: the chat app
    # composes its part in (chat.sockets) through these two, so these layers never import it.
    async def join_room_extras(self, room_id: int) -> str:
        """Join what else the room's socket carries; return its view to send with the page's."""
        return ""

    async def receive_room_extras(self, message: dict) -> bool:
        """Handle a decoded message meant for an extra part; False: it was not one."""
        return False

    # The fields of a message meant for an extra part (the chat's): a frame with none of them
    # is not offered to `receive_room_extras` (a move goes straight on).
    room_extras_fields: frozenset[str] = frozenset()


class NotFoundConsumer(LiveConsumer):
    """Every WebSocket path that no route matches: closed with 4404, no traceback."""

    async def connect(self) -> None:
        await self.refuse(NOT_FOUND)


def close_user_sockets(user_id: int, html: str = "") -> None:
    """Close every open socket of this user; each page reconnects as its session now says.

    `html`, if given, is sent to each socket just before (a fragment its page swaps by id).
    """
    layer = get_channel_layer()
    if layer is not None:
        event = {"type": "identity.changed", "html": html}
        async_to_sync(layer.group_send)(user_group(user_id), event)


def access_changed(user_id: int, room_id: int) -> None:
    """Tell this user's open sockets that his place in the room changed (left, removed, banned).

    Sent after the change commits; each socket of that room checks again what the user may now
    do there (its seat, whether he may see a private room) and drops what he no longer may.
    """
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(
            user_group(user_id), {"type": "access.changed", "room": room_id}
        )


def user_notice(user_id: int, notice: dict) -> None:
    """Tell this user's API streams `notice` (a JSON object with a "type"), after commit."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(
            user_group(user_id), {"type": "user.notice", "notice": notice}
        )


def access_changed_on_commit(user_id: int, room_id: int) -> None:
    transaction.on_commit(partial(access_changed, user_id, room_id))


def _after_commit_close(user_id: int) -> None:
    transaction.on_commit(partial(close_user_sockets, user_id))


def _on_logout(sender, request, user, **kwargs) -> None:  # noqa: ANN001
    if user is not None:
        _after_commit_close(user.pk)


def _remember_old_identity(sender, instance, update_fields=None, **kwargs) -> None:  # noqa: ANN001
    # A password change (any path: the view, the admin, a shell) or a ban (is_active off)
    # must end the user's open sockets; logging in only saves last_login, skip that query.
    instance._close_sockets = False
    watched = {"password", "is_active"}
    if instance.pk is None or (update_fields and not watched & set(update_fields)):
        return
    old = sender.objects.filter(pk=instance.pk).values("password", "is_active").first()
    if old is not None and (
        old["password"] != instance.password or (old["is_active"] and not instance.is_active)
    ):
        instance._close_sockets = True


def _close_if_identity_changed(sender, instance, **kwargs) -> None:  # noqa: ANN001
    if getattr(instance, "_close_sockets", False):
        instance._close_sockets = False
        _after_commit_close(instance.pk)


def connect_signals() -> None:
    """Called once from CardgamesConfig.ready()."""
    user_model = get_user_model()
    user_logged_out.connect(_on_logout, dispatch_uid="tables.sockets.logout")
    pre_save.connect(_remember_old_identity, sender=user_model, dispatch_uid="tables.sockets")
    post_save.connect(_close_if_identity_changed, sender=user_model, dispatch_uid="tables.sockets")
