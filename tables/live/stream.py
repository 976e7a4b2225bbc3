"""A table's transports, in one home: the strict decoding at the edge, the socket base, and
the table-stream base both table sockets share (the browser's, lobby.table_consumers, and the
Board API's, api.consumers, which keep only their wire format).

## Strict decoding (`loads`, `record`, `action`)

The one strict JSON decoder for everything that comes in (sockets, API stream, API bodies).

Python's `json` accepts what a careful server must not: `NaN` and `Infinity` (which then fail
the database's JSON check), nesting deep enough to raise RecursionError, and NUL characters
(which PostgreSQL refuses in text). `loads` refuses all of these, and anything larger than
`max_bytes`, with one `WireError(code, message)` that a transport turns into its usual refusal.
The checks are linear in the input, which is bounded before any of them runs.

## The socket base (`LiveConsumer`, `SendNow`, `ReceiveNow`)

What every live socket shares: a validated site address, a per-user group, clean refusals.

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
  chat composes its own note in for the room's sockets). Frames are decoded by `loads` above.
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
  for many sockets carries one rendering per language present (`pick`).

A socket that falls behind is closed by the server (cardgames.server, code 1013) and resyncs by
reconnecting; consumers need nothing for that beyond sending the whole view on connect.

## The table-stream base (`TableStream`)

One home for a table's transports: what a table's socket does whatever its wire format.

`TableStream` is the base of the browser's table socket (lobby.table_consumers, HTML parts)
and of the Board API's stream (api.consumers, JSON views); each keeps only its wire format:
how a whole table and a change are drawn (`whole`, `frame`, for the socket's Gate) and how a
refusal is sent (`send_refusal`). Everything else is here, once:

- the access rule is handed in by the transport (`may_watch`: tables never imports lobby or
  api, so the layers stay one-way);
- listening to the room (this process's changes and, through the process's one relay,
  another's, all by `deliver`), through the socket's gate (tables.live.stream.Gate);
- one resume (`missed`: the changes after the version the client says it shows, when this
  process's room pushed every one of them);
- one presence (`count_presence`: the seat whose connection this socket counts, in the
  `presence` the transport hands in: tables.presence, above the live package);
- one throttle (`act`: the transport's limit, `throttle`, and never more than
  TABLE_MOVES_IN_FLIGHT of one socket's moves in flight: a late move is a wrong move);
- one door for moves (`act` → tables.live.rooms.Rooms.act), the seat judged once, by the room
  (the holder check travels with the move), and a refusal worded in the reader's language.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import json
import logging
import secrets
import statistics
import time
import weakref
from collections.abc import Awaitable, Callable
from functools import partial
from importlib import import_module
from typing import Any, Protocol

from asgiref.sync import async_to_sync
from channels.auth import AuthMiddleware
from channels.consumer import AsyncConsumer, get_handler_name
from channels.db import database_sync_to_async
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
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.engine import CLIENT_SEED, Action, IllegalAction
from tables import languages, server
from tables.live import rooms
from tables.live.room import TAKEN_BY, Delivery, holder
from tables.live.rooms import Outcome, Rooms
from tables.pacing import equalise_of
from tables.words import refusal_text, say

# =========================================================================== strict decoding

MAX_DEPTH = 8
# The largest frame or body a client of ours sends is a chat line or a room form: far below this.
MAX_BYTES = 16 * 1024


class WireError(ValueError):
    """Input that is not the strict JSON we accept: a code and a sentence for the client."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _no_constant(name: str) -> Any:
    raise WireError("bad_json", f"{name} is not a number this server accepts.")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def loads(data: str | bytes | None, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """Decode `data` strictly, or raise WireError: too large, not JSON, too deep, or with a NUL."""
    if data is None:
        raise WireError("bad_json", "The message was empty.")
    if len(data) > max_bytes:  # bytes or characters: a character is at least one byte
        raise WireError("too_large", f"The message is larger than {max_bytes} bytes.")
    if isinstance(data, bytes | bytearray):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            raise WireError("bad_json", "The message is not UTF-8 text.") from None
    elif len(data.encode("utf-8", "surrogatepass")) > max_bytes:
        raise WireError("too_large", f"The message is larger than {max_bytes} bytes.")
    _check_depth(data, max_depth)  # before decoding: deep input would recurse in the decoder
    try:
        value = _DECODER.decode(data)
    except WireError:
        raise
    except (ValueError, RecursionError):
        raise WireError("bad_json", "The message is not valid JSON.") from None
    _check_text(value)
    return value


def _check_depth(text: str, max_depth: int) -> None:
    if text.count("{") + text.count("[") <= max_depth:
        # Never deeper than its opening brackets (those inside strings counted too): a move's
        # frame has two, and the walk below is Python for each character.
        return
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                raise WireError("bad_json", f"The message nests deeper than {max_depth} levels.")
        elif ch in "]}":
            depth -= 1


def _check_text(value: Any) -> None:
    # Depth is bounded, so this recursion is too.
    if isinstance(value, str):
        if "\x00" in value:
            raise WireError("bad_json", "The message contains a NUL character.")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key)
            _check_text(item)
    elif isinstance(value, list):
        for item in value:
            _check_text(item)


def ascii_int(value: Any, lo: int, hi: int) -> int | None:
    """Return `value` as an int in [lo, hi] if it is one or ASCII digits (an optional minus)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if lo <= value <= hi else None
    if isinstance(value, str) and 0 < len(value) <= 7:
        digits = value.removeprefix("-")
        if digits and digits.isascii() and digits.isdigit():
            number = int(value)
            return number if lo <= number <= hi else None
    return None


# --------------------------------------------------------------------------- schemas
#
# A schema is a dict of field name -> check. A check takes the decoded value and returns the
# clean one, or raises `Bad` with a sentence about that field. `record` applies a schema to a
# decoded object: fields it does not name are dropped (the rules and the log never see them),
# so a transport hands on only values whose types and ranges were checked here.

Check = Callable[[Any], Any]


class Bad(ValueError):
    """A field's value is not what its check accepts; the sentence says what is."""


def integer(lo: int, hi: int) -> Check:
    """An int in [lo, hi]; ASCII digits too, since form fields arrive as strings."""

    def check(value: Any) -> int:
        number = ascii_int(value, lo, hi)
        if number is None:
            raise Bad(f"must be a whole number from {lo} to {hi}")
        return number

    return check


def text(max_len: int, ascii_word: bool = False) -> Check:
    """A string of at most `max_len` characters (no NUL: `loads` refused those already)."""

    def check(value: Any) -> str:
        if not isinstance(value, str) or len(value) > max_len:
            raise Bad(f"must be text of at most {max_len} characters")
        if ascii_word and not _is_word(value):
            raise Bad("must be a word of lower-case ASCII letters")
        return value

    return check


def client_seed(value: Any) -> str:
    """A client seed (docs/fairness.md): 1 to 64 ASCII letters, digits, "-" or "_"."""
    # Empty: the browser's field left blank (no seed; the rules take none).
    if not isinstance(value, str) or not (value == "" or CLIENT_SEED.fullmatch(value)):
        raise Bad("must be 1 to 64 letters, digits, - or _")
    return value


def _is_word(value: str) -> bool:
    return value.isascii() and value.replace("_", "a").isalpha() and value.islower()


def record_of(fields: dict[str, Check], required: tuple[str, ...] = ()) -> Check:
    """An object checked field by field (a JSON string of one too: a radio button's value)."""

    def check(value: Any) -> dict[str, Any]:
        if isinstance(value, str) and value.startswith("{"):
            try:
                value = loads(value, max_bytes=200, max_depth=2)
            except WireError:
                raise Bad("must be an object") from None
        if not isinstance(value, dict):
            raise Bad("must be an object")
        missing = [name for name in required if name not in value]
        if missing:
            raise Bad(f'needs "{missing[0]}"')
        clean = {}
        for name, item in value.items():
            if name in fields:
                try:
                    clean[name] = fields[name](item)
                except Bad as bad:
                    raise Bad(f'"{name}" {bad}') from None
        return clean

    return check


def either(*checks: Check, sentence: str) -> Check:
    """The first of `checks` that accepts the value."""

    def check(value: Any) -> Any:
        for one in checks:
            try:
                return one(value)
            except Bad:
                continue
        raise Bad(sentence)

    return check


def record(value: Any, fields: dict[str, Check], code: str = "bad_frame") -> dict[str, Any]:
    """Return the fields of object `value` that `fields` names, checked; or raise WireError."""
    if not isinstance(value, dict):
        raise WireError(code, "The message must be a JSON object.")
    clean = {}
    for name, item in value.items():
        check = fields.get(name)
        if check is None:
            continue
        try:
            clean[name] = check(item)
        except Bad as bad:
            raise WireError(code, f'"{_shown(name)}" {bad}.') from None
    return clean


def _shown(name: str) -> str:
    # A field name is the client's text: echo only a short, printable one.
    return name if name.isascii() and name.isprintable() and len(name) <= 20 else "field"


def same_secret(given: Any, secret: str) -> bool:
    """Compare a client's `given` text with `secret` in constant time; False if not text.

    `secrets.compare_digest` raises TypeError on non-ASCII str, so compare UTF-8 bytes.
    """
    if not isinstance(given, str) or len(given) > 200:
        return False
    return secrets.compare_digest(given.encode("utf-8", "surrogatepass"), secret.encode("utf-8"))


# What a move may carry (both games; api.md), checked before any rule sees it.
PLACE = record_of(
    {"seat": integer(0, 99), "row": integer(0, 99), "col": integer(0, 99)},
    required=("seat", "row", "col"),
)
ACTION: dict[str, Check] = {
    "type": text(20, ascii_word=True),
    "from": either(PLACE, text(20, ascii_word=True), sentence="must be a pile's name or a place"),
    "to": either(
        integer(0, 99),
        PLACE,
        text(20, ascii_word=True),
        sentence="must be a seat, a place or a pile's name",
    ),
    "index": integer(0, 9999),
    "pile": integer(0, 9999),
    "source": text(20, ascii_word=True),
    "place": PLACE,
    # A client seed (docs/fairness.md), with "ready": letters, digits, - and _.
    "seed": client_seed,
}


def action(value: Any, code: str = "bad_frame") -> dict[str, Any]:
    """Return the checked move in `value` (its known fields only); it must name a `type`."""
    clean = record(value, ACTION, code)
    if "type" not in clean:
        raise WireError(code, 'An action is an object with a "type".')
    return clean


# =========================================================================== the socket base


def receipt() -> int:
    """Now on the receipt clock (tables.live.equalise.receipt's: microseconds of the monotonic
    clock), read here so that a plain move's frame never enters the equaliser."""
    return time.monotonic_ns() // 1000


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


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def site_host(scope: dict[str, Any]) -> str | None:
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


def site_scheme(scope: dict[str, Any]) -> str:
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

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if site_host(scope) is None:
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


async def dispatch(consumer: AsyncConsumer, message: dict[str, Any]) -> None:
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

    Either way `received` is when the frame being handled was read (`receipt`, the clock of
    tables.live.equalise.receipt):
    a move's receipt time, which settles and tells its races (docs/fairness.md).
    """

    received: int | None = None

    scope: dict[str, Any]
    # Frames not handled yet (text, bytes, receipt); None: Channels' way.
    _frames: collections.deque[tuple[str | None, bytes | None, int]] | None = None
    _ready = False
    _drainer: asyncio.Task[None] | None = None

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

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        if self._frames is None:
            self.received = receipt()
            await super().websocket_receive(message)  # type: ignore[misc]
            return
        # A binary frame still comes through Channels: it keeps its place behind the others.
        self._frames.append((message.get("text"), message.get("bytes"), receipt()))
        self._drain()

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
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

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        key = scope["cookies"].get(settings.SESSION_COOKIE_NAME)
        return await self.inner(dict(scope, session=self.store(key)), receive, send)


def session_auth(inner: Any) -> Any:
    """Channels' AuthMiddlewareStack for the site's sockets: cookies, the session, the user."""
    return CookieMiddleware(SocketSession(AuthMiddleware(inner)))


class LiveConsumer(SendNow, AsyncWebsocketConsumer):  # type: ignore[misc]  # untyped
    """The base of every live socket; see the module docstring for its interface."""

    groups: list[str]  # channels' own (its consumer is untyped)
    language = settings.LANGUAGE_CODE

    async def dispatch(self, message: dict[str, Any]) -> None:
        with translation.override(self.language):
            await dispatch(self, message)

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        self.language = languages.from_scope(self.scope)
        translation.activate(self.language)
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.groups = [*self.groups, user_group(user.pk)]
        opened(self)
        await super().websocket_connect(message)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
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

    async def identity_changed(self, event: dict[str, Any]) -> None:
        # A sentence for the page first when there is one (a ban says why), then the close.
        if event.get("html"):
            await self.send(text_data=event["html"])
        await self.close(code=RECONNECT)

    async def access_changed(self, event: dict[str, Any]) -> None:
        pass  # only a room's sockets care (room page, table)

    async def user_notice(self, event: dict[str, Any]) -> None:
        pass  # for the user's API streams (JSON); a page learns it through its own socket

    # A room's sockets (its page, its table) can carry more than their own view: the chat app
    # composes its part in (chat.sockets) through these two, so these layers never import it.
    async def join_room_extras(self, room_id: int) -> str:
        """Join what else the room's socket carries; return its view to send with the page's."""
        return ""

    async def receive_room_extras(self, message: dict[str, Any]) -> bool:
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


def user_notice(user_id: int, notice: dict[str, Any]) -> None:
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


def _on_logout(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if user is not None:
        _after_commit_close(user.pk)


def _remember_old_identity(
    sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any
) -> None:
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


def _close_if_identity_changed(sender: Any, instance: Any, **kwargs: Any) -> None:
    if getattr(instance, "_close_sockets", False):
        instance._close_sockets = False
        _after_commit_close(instance.pk)


def connect_signals() -> None:
    """Called once from CardgamesConfig.ready()."""
    user_model = get_user_model()
    user_logged_out.connect(_on_logout, dispatch_uid="tables.live.stream.logout")
    pre_save.connect(_remember_old_identity, sender=user_model, dispatch_uid="tables.live.stream")
    post_save.connect(
        _close_if_identity_changed, sender=user_model, dispatch_uid="tables.live.stream"
    )


# =========================================================================== the table-stream base


def race_of(refusal: IllegalAction) -> dict[str, Any] | None:
    """A lost race's `taken_by` (the winner's name as the reader sees it, in the active
    language) and `earlier_ms`; None for any other refusal, or a race whose winner the room
    no longer knew. Read off the refusal's words (`RaceLost`), so that a refusal forwarded
    from the room's owner process (tables.live.owners) says them too."""
    name, ms = refusal.params.get("name"), refusal.params.get("ms")
    if refusal.template != TAKEN_BY or name is None or not isinstance(ms, int):
        return None
    return {"taken_by": say(name), "earlier_ms": ms}


# An equalised table's pings (docs/fairness.md): a few quick ones when the socket opens, then
# one every PING_SECONDS; its round trip is the median of the last RTT_SAMPLES answered.
PING_SECONDS = 2.0
QUICK_PINGS = 4
RTT_SAMPLES = 5


class Presence(Protocol):
    """Where a seat's open sockets are counted: tables.presence, handed in by the transport
    as the access rule is (it sits above the live package, so the layers stay one-way)."""

    def connected(self, room_id: int, seat: int) -> None: ...

    def disconnected(self, room_id: int, seat: int) -> None: ...


class TableStream:
    """A table's socket, whatever it speaks (see the module's docstring)."""

    room_id: int
    live_rooms: Rooms  # this process's rooms (of the socket's loop): its moves' one door
    user: Any = None
    seat: int | None = None  # the seat whose presence this socket counts (None: watching)
    language: str = settings.LANGUAGE_CODE  # the reader's: refusals are worded in it
    wants_html = False  # whether its frames are the table's HTML parts (tables.live.render)
    present = False  # this socket counts in its seat's presence
    presence: Presence  # handed in by the transport (tables.presence)
    # When the frame being handled was read (`ReceiveNow`): its move's receipt.
    received: int | None = None

    # ------------------------------------------------------------------ the transport's

    async def may_watch(self) -> bool:
        """The access rule, handed in by the transport: may this socket's user see the room?"""
        raise NotImplementedError

    def watching(self) -> tuple[str, str]:
        """A watcher's move refused: its code and sentence on this transport."""
        return "not_seated", _("You have no seat at this table; spectators only watch.")

    async def throttle(self) -> tuple[str, str] | None:
        """The transport's limit on moves: None, or the refusal's (code, sentence)."""
        return None

    async def send_refusal(
        self, code: str, message: str, trigger: str | None, race: dict[str, Any] | None = None
    ) -> None:
        """Send a refused move's code and sentence (worded in the reader's language: the
        transport's handlers run under it); `race`: a lost race's `taken_by`, `earlier_ms`."""
        raise NotImplementedError

    async def whole(self) -> Frame:
        raise NotImplementedError

    async def frame(self, delivery: Delivery, shown: int) -> Frame | None:
        raise NotImplementedError

    async def send_text(self, text: str) -> None:
        raise NotImplementedError

    async def send_ping(self, ping: int) -> None:
        """Ask the client to answer `{"type": "pong", "ping": ping}` at once."""
        raise NotImplementedError

    # ------------------------------------------------------------------ listening

    def open_stream(self, room_id: int, *, accepts_with_first_draw: bool = False) -> None:
        """Before the socket is accepted: its room, its gate, no move in flight, and this
        process's rooms (the live server's, of this loop: its moves go straight to them).
        `accepts_with_first_draw`: the socket is accepted by its first draw (`Gate.draw`'s or
        `Gate.resume`'s `send`), so its gate holds every change until then."""
        self.room_id = room_id
        self.live_rooms = rooms.bind(asyncio.get_running_loop())
        self.gate = Gate(self, opened=not accepts_with_first_draw)
        self.acting: set[asyncio.Task[Outcome | None]] = set()
        self.pings: dict[int, int] = {}  # a ping's number -> when it was sent (receipt clock)
        self.rtts: collections.deque[int] = collections.deque(maxlen=RTT_SAMPLES)
        self.pinging: asyncio.Task[None] | None = None

    async def listen(self) -> None:
        """Every change of the room comes to `deliver` from now on: this process's straight
        from its room, another's through the process's one relay (tables.live.rooms.Relay),
        never through a group of the socket's own. Before the table is drawn: no change falls
        between the two."""
        await self.live_rooms.listen(self.room_id, self)

    async def close_stream(self) -> None:
        """The socket ends: it listens no more and no longer counts in its seat's presence."""
        if hasattr(self, "room_id"):
            self.live_rooms.unlisten(self.room_id, self)
            if self.pinging is not None:
                self.pinging.cancel()
            await self.count_presence(None)

    # ------------------------------------------------------------------ round trips

    async def start_pings(self) -> None:
        """On an equalised table, measure this socket's round trip with pings from now on
        (tables.live.equalise); other tables send none."""
        table = await rooms.table_now(self.room_id)
        if table is not None and equalise_of(table.match.options) and self.pinging is None:
            self.pinging = asyncio.create_task(self._pings())

    async def _pings(self) -> None:
        number = 0
        try:
            while True:
                number += 1
                self.pings[number] = receipt()
                self.pings.pop(number - RTT_SAMPLES * 2, None)  # unanswered ones are forgotten
                await self.send_ping(number)
                await asyncio.sleep(PING_SECONDS if number >= QUICK_PINGS else PING_SECONDS / 8)
        except Exception:  # the socket closed under it: nothing left to measure
            return

    def pong(self, ping: Any) -> None:
        """A pong came (its frame's receipt is `received`): one round trip measured. Only the
        server's own times count; the client says nothing but the ping's number."""
        sent = self.pings.pop(ping, None) if isinstance(ping, int) else None
        if sent is not None and self.received is not None:
            self.rtts.append(self.received - sent)

    @property
    def rtt(self) -> int | None:
        """This socket's round trip (µs), the median of the last ones measured; None yet."""
        return int(statistics.median(self.rtts)) if self.rtts else None

    async def table_notice(self, event: dict[str, Any]) -> None:
        """A note outside the versioned parts (a rematch was opened), from the relay."""

    def deliver_now(self, delivery: Delivery) -> bool:
        return False  # `deliver` takes it (a transport may send some at once)

    async def deliver(self, delivery: Delivery) -> None:
        await self.gate.offer(delivery)

    async def missed(self, known: int | None) -> list[Delivery] | None:
        """The changes after `known`, the version the client says it shows, if this process
        pushed every one of them (its room keeps the last few); None: send the whole table."""
        room = rooms.get(self.room_id)
        if known is None or room is None or not room.recent:
            return None
        now = await database_sync_to_async(rooms.version_of)(self.room_id)
        return room.missed(known, now) if now is not None else None

    # ------------------------------------------------------------------ presence

    async def count_presence(self, seat: int | None) -> None:
        """Count this socket in `seat`'s presence (None: in none), uncounting the old one."""
        old, was = self.seat, self.present
        self.seat, self.present = seat, seat is not None
        if was and old is not None and old != seat:
            await database_sync_to_async(self.presence.disconnected)(self.room_id, old)
        if seat is not None and (not was or old != seat):
            await database_sync_to_async(self.presence.connected)(self.room_id, seat)

    # ------------------------------------------------------------------ moves

    async def act(
        self,
        seat: int | None,
        action: Action,
        trigger: str | None = None,
        wants_view: bool = False,
    ) -> Outcome | None:
        """Take `action` for `seat` to the room (which judges whether this user holds it);
        None when it was refused (the refusal sent, in the reader's language)."""
        received = self.received  # read before any wait: the next frame may be read meanwhile
        if not await self._may_act(seat, trigger):
            return None
        assert seat is not None
        return await self._to_room(seat, action, trigger, wants_view, received)

    async def act_soon(self, seat: int | None, action: Action, trigger: str | None = None) -> None:
        """`act` without waiting for the room (a browser's way: its frames come by the
        deliveries): judged here now, then taken to the room in a task of its own.

        Eager: the task applies the move at once, in this turn of the loop, up to its first
        wait (the commit), as a stream's `act` does; a task started on the loop's next turn
        waited for everything else that turn brought (under load, a whole turn's frames)."""
        received = self.received
        if not await self._may_act(seat, trigger):
            return
        assert seat is not None
        task = asyncio.Task(
            self._to_room(seat, action, trigger, False, received),
            loop=asyncio.get_running_loop(),
            eager_start=True,
        )
        if task.done():
            return  # refused or answered without waiting: nothing in flight
        self.acting.add(task)
        task.add_done_callback(self.acting.discard)

    async def _may_act(self, seat: int | None, trigger: str | None) -> bool:
        """A watcher does not act; the transport's limit, and never more than
        TABLE_MOVES_IN_FLIGHT of this socket's moves at once (a late move is a wrong move)."""
        if seat is None:
            await self.send_refusal(*self.watching(), trigger)
            return False
        limited = await self.throttle()
        if limited is None and len(self.acting) >= settings.TABLE_MOVES_IN_FLIGHT:
            limited = "too_fast", _("Slow down: too many actions at once.")
        if limited is not None:
            await self.send_refusal(*limited, trigger)
            return False
        return True

    async def _to_room(
        self,
        seat: int,
        action: Action,
        trigger: str | None,
        wants_view: bool,
        received: int | None,
    ) -> Outcome | None:
        try:
            return await self.live_rooms.act(
                self.room_id,
                seat,
                action,
                check=holder(seat, self.user),
                wants_view=wants_view,
                received=received,
                rtt=self.rtt if hasattr(self, "rtts") else None,
            )
        except IllegalAction as refusal:
            await self.send_refusal(refusal.code, refusal_text(refusal), trigger, race_of(refusal))
            return None


def pick(event: dict[str, Any], code: str) -> str:
    """The html of a pushed event in `code`: its own rendering, else the default one."""
    html: str = (event.get("translations") or {}).get(code) or event["html"]
    return html


# --------------------------------------------------------------------------- the gate

# What a socket's `frame` returns: the version shown and its text; NOTHING: nothing to send yet
# (a seat's own part waiting for its public frame); None: something is missing (draw it whole).
Frame = tuple[int, str]
NOTHING: Frame = (0, "")


class Gated(Protocol):
    """What a socket gives its gate: how to draw the whole table, how to frame a change."""

    async def whole(self) -> Frame: ...
    async def frame(self, delivery: Delivery, shown: int) -> Frame | None: ...
    async def send_text(self, text: str) -> None: ...


class Gate:
    """A socket's versions, in one place for the browser's table socket and the API stream.

    It sends a change only if it is newer than what the socket shows, draws the whole table
    when the socket's `frame` says something went missing, and while the whole table is drawn
    and sent, holds every change and hands those newer than it over afterwards: a frame never
    goes out before an older whole table.

    A gate not `opened` (a socket that its first draw accepts: the browser's table socket)
    holds every change until that first draw or resume has sent the accept. Without it, a
    change that came while the socket connected (it listens before it is drawn) started a
    draw of its own, whose send failed (not accepted yet), and the socket's own first draw,
    finding a draw under way, only asked for a redraw: the accept never went out. A page
    reconnecting during a deploy's handover waited 4 s on a socket never accepted, until
    that process stopped too (a clean clone's rolling deploy, 7 December).
    """

    def __init__(self, socket: Gated, *, opened: bool = True) -> None:
        self.socket = socket
        self.version = 0
        self.drawing = False
        self.redraw = False
        self.opened = opened
        self.held: list[Delivery] = []

    def shows(self, version: int) -> bool:
        """Whether a change at `version` is already shown (or is being drawn)."""
        return version <= self.version

    async def offer(self, delivery: Delivery) -> None:
        if self.drawing or not self.opened:
            self.held.append(delivery)
            return
        if not await self._send(delivery):
            await self.draw()  # something went missing: the whole table again

    async def _send(self, delivery: Delivery) -> bool:
        """Send `delivery` if it is newer than what the socket shows; False: it cannot be
        framed (something went missing), the caller draws the whole table."""
        if delivery.version <= self.version:
            return True  # already shown (a whole table overtook it)
        framed = await self.socket.frame(delivery, self.version)
        if framed is None:
            return False
        version, text = framed
        if text:
            self.version = max(self.version, version)
            await self.socket.send_text(text)
        return True

    def take_now(self, version: int) -> bool:
        """Whether a change may be sent in a plain call now (nothing drawn, it is newer)."""
        return self.opened and not self.drawing and version > self.version

    def sent_now(self, version: int) -> None:
        self.version = version

    async def resume(
        self,
        shown: int,
        missed: list[Delivery],
        send: Callable[[str], Awaitable[None]],
        first: str,
    ) -> None:
        """The socket already shows version `shown` (a page that reconnected): send `first`
        with `send` (the accept), then each change it missed, in order; what comes meanwhile
        waits as while drawing. A change that cannot be framed draws the whole table."""
        self.drawing = True
        self.version = shown
        whole = False
        try:
            await send(first)
            self.opened = True
            for delivery in missed:
                if not await self._send(delivery):
                    whole = True
                    break
        finally:
            self.drawing = False
        if whole:
            await self.draw()  # offers what was held once the whole table is out
            return
        held, self.held = self.held, []
        for delivery in held:
            if delivery.version > self.version:
                await self.offer(delivery)

    async def draw(self, send: Callable[[str], Awaitable[None]] | None = None) -> None:
        """Draw and send the whole table; `send` sends the first one (the socket's accept)."""
        if self.drawing:
            # Already drawing (a sync, a seat change meanwhile): it draws once more when that
            # is out, with what is true then.
            self.redraw = True
            return
        if not self.opened and send is None:
            return  # not accepted yet: its first draw (the accept) draws what is true then
        self.drawing = True
        try:
            while True:
                self.redraw = False
                version, text = await self.socket.whole()
                # Nothing newer than what it shows (a stream's redraw right after a draw):
                # nothing is sent, and what it shows stays as it was. The first draw (`send`,
                # the accept) always goes out.
                if text or send is not None:
                    self.version = version
                    await (send or self.socket.send_text)(text)
                    self.opened = True
                send = None
                if not self.redraw:
                    break
        finally:
            self.drawing = False
            held, self.held = self.held, []
        for delivery in held:
            if delivery.version > self.version:
                await self.offer(delivery)
