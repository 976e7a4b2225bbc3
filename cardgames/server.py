"""Daphne with the limits a public server needs, run as `python -m cardgames.server`.

Every option of the `daphne` command works the same (`-b`, `-p`, `--proxy-headers`, ...):

    .venv/bin/python -m cardgames.server -b 127.0.0.1 -p 8000 cardgames.asgi:application

What it adds, inside the server process where the bytes are, before the application sees them:

- Request bodies: Daphne reads a whole body (to memory or a temporary file) and then queues all of
  it for the application, so an ASGI middleware comes too late. A body whose Content-Length is over
  `REQUEST_BODY_LIMIT` (or the longest matching prefix in `REQUEST_BODY_LIMITS`) is answered 413 as
  soon as the headers are in; a body without a length (chunked) is cut off with 413 once it passes
  the limit. Either way the connection closes and nothing reaches the application. Under `/api/`
  the 413 is the API's JSON error (`too_large`), as every API failure is.
- Form bodies are left to Django: Twisted's own parse (never used, Daphne hands the raw body
  on) answered a multipart body without a boundary with a bare 400 of its own.
- WebSocket backlog: a socket whose client does not read keeps every frame sent to it in Twisted's
  write buffer. Once that buffer holds more than `WEBSOCKET_BACKLOG_LIMIT` bytes, the socket is
  closed with 1013 (try again later); the page's ws extension reconnects and gets the whole view.
- WebSocket frames go to the socket at once when nothing is queued before them (Twisted would
  buffer each and write it on the loop's next turn), with TCP_NODELAY: a frame is a move that
  someone is waiting for.
- Text frames can skip the layers between the application and the socket: the scope's
  `extensions["cardgames.send_now"]["send"](text)` writes one text frame at once, as the
  application's `websocket.send` would (Daphne's reply, autobahn's framing), without their
  Python per message; tables.live.stream.SendNow uses it for every frame a site socket sends.
  Small text frames from clients (moves) are read the same way (`small_text_frames`), and
  `extensions["cardgames.receive_now"]["take"](receiver)` has every later text frame handed
  to `receiver(text)` as it is read, instead of through Daphne's queue and the application's
  dispatch (tables.live.stream.ReceiveNow).
- The event loop is uvloop's (`SERVER_LOOP=asyncio`: asyncio's own), and a socket's reads
  go from the loop to Twisted's reader without Twisted's log context around each one.
- Close codes 1011/1012/1013 from the application pass through (autobahn alone refuses them); they
  are the codes that make htmx's ws extension reconnect.
- The WebSocket scope gets a `scheme` ("wss" behind TLS or, with `--proxy-headers`, when the
  proxy's X-Forwarded-Proto says https), as HTTP scopes already do.
"""

from __future__ import annotations

import asyncio
import errno
import faulthandler
import fcntl
import gc
import json
import logging
import os
import struct
import sys
import termios
import threading
import time
from typing import Any

if os.environ.get("SERVER_LOOP", "uvloop") == "uvloop":
    # Daphne makes its loop with asyncio.new_event_loop() when daphne.server is imported, and
    # Twisted's asyncio reactor runs on it: with this policy that loop is uvloop's, which
    # costs less per socket event than asyncio's own (measured: docs/performance.md).
    # SERVER_LOOP=asyncio keeps asyncio's.
    import uvloop

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

# daphne.server installs Twisted's asyncio reactor; it must come before anything else of Twisted.
import daphne.server
from daphne.cli import CommandLineInterface
from daphne.http_protocol import HTTPFactory, WebRequest
from daphne.ws_protocol import WebSocketProtocol
from django.conf import settings
from twisted.internet import asyncioreactor, tcp
from twisted.internet.interfaces import ISSLTransport

from cardgames.frames import small_text_frames, text_frame

logger = logging.getLogger(__name__)

DEFAULT_BODY_LIMIT = 1024 * 1024
DEFAULT_BACKLOG_LIMIT = 256 * 1024
# The close codes after which htmx's ws extension reconnects (besides 1006, an abnormal close).
RECONNECT_CODES = (1011, 1012, 1013)
TRY_AGAIN_LATER = 1013
# The scope extension through which an application writes text frames at once (send_now).
SEND_NOW = "cardgames.send_now"
# The scope extension through which an application reads text frames as they come (receive_now).
RECEIVE_NOW = "cardgames.receive_now"


def body_limit(path: bytes) -> int:
    """Return how many body bytes a request to `path` may send (longest matching prefix wins)."""
    limit = getattr(settings, "REQUEST_BODY_LIMIT", DEFAULT_BODY_LIMIT)
    text = path.split(b"?", 1)[0].decode("latin-1")
    best = ""
    for prefix, allowed in getattr(settings, "REQUEST_BODY_LIMITS", {}).items():
        if text.startswith(prefix) and len(prefix) > len(best):
            best, limit = prefix, allowed
    return limit


def unsent_bytes(transport) -> int:  # noqa: ANN001 - any Twisted transport
    """Return the bytes written to `transport` that its peer has not received yet.

    That is Twisted's write buffer (in this process's memory) plus, on Linux, the kernel's send
    queue: the kernel grows that queue up to 4 MB (tcp_wmem) before Twisted has to buffer at
    all, so counting it closes a stalled socket before it costs 4 MB of kernel memory first.
    """
    total = 0
    while transport is not None:
        # twisted.internet.abstract.FileDescriptor: dataBuffer from `offset` on, plus what
        # write() collected since the last doWrite.
        if hasattr(transport, "dataBuffer"):
            total += len(transport.dataBuffer) - transport.offset + transport._tempDataLen
            total += _kernel_send_queue(transport)
        # TLS wraps the TCP connection (TLSMemoryBIOProtocol.transport).
        transport = getattr(transport, "transport", None)
    return total


def _kernel_send_queue(transport) -> int:  # noqa: ANN001
    if sys.platform != "linux" or not hasattr(transport, "fileno"):
        return 0
    try:
        # SIOCOUTQ (the same number as TIOCOUTQ): bytes sent but not acknowledged, or unsent.
        raw = fcntl.ioctl(transport.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
    except OSError:
        return 0  # closed meanwhile
    return struct.unpack("i", raw)[0]


def too_large_body(path: str, limit: int) -> tuple[bytes, bytes]:
    """The 413's content type and body: the API's JSON error under /api/, else plain text."""
    path = path.split("?", 1)[0]
    if path == "/api" or path.startswith("/api/"):
        sentence = f"The request body is larger than {limit} bytes."
        error = {"error": {"code": "too_large", "message": sentence}}
        return b"application/json", json.dumps(error).encode()
    return b"text/plain; charset=utf-8", b"Request body too large.\n"


class LimitedRequest(WebRequest):
    """Daphne's HTTP request, refusing a body over the limit before it is read whole."""

    refused = False

    def gotLength(self, length: int | None) -> None:
        # Twisted would parse a form body itself (never used: Daphne hands the raw body on) and
        # answers a multipart body without a boundary with a bare 400 of its own; Django parses
        # forms, and under /api/ every failure answers the API's JSON.
        self._parsePOSTFormSubmission = False
        # Twisted parsed the request line already; the request itself only gets it at the end.
        self.body_limit = body_limit(getattr(self.channel, "_path", b""))
        self.body_received = 0
        if length is not None and length > self.body_limit:
            self.refuse()
            length = 0
        super().gotLength(length)

    def handleContentChunk(self, data: bytes) -> None:
        if self.refused:
            return
        self.body_received += len(data)
        if self.body_received > self.body_limit:
            self.refuse()
            return
        super().handleContentChunk(data)

    def requestReceived(self, command: bytes, path: bytes, version: bytes) -> None:
        if not self.refused:
            super().requestReceived(command, path, version)

    def refuse(self) -> None:
        """Answer 413 straight away and close: the rest of the body is never read."""
        self.refused = True
        # No "100 Continue" after the refusal (Twisted sends it once gotLength returns).
        self.requestHeaders.removeHeader(b"Expect")
        path = getattr(self.channel, "_path", b"").decode("latin-1")
        logger.warning("Refused a request body over %d bytes to %s", self.body_limit, path)
        kind, body = too_large_body(path, self.body_limit)
        self.channel.transport.write(
            b"HTTP/1.1 413 Content Too Large\r\n"
            b"Content-Type: %s\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (kind, len(body), body)
        )
        self.channel.loseConnection()


class LimitedHTTPFactory(HTTPFactory):
    def buildProtocol(self, addr):  # noqa: ANN001, ANN201
        protocol = super().buildProtocol(addr)
        protocol.requestFactory = LimitedRequest
        return protocol


class BoundedWebSocketProtocol(WebSocketProtocol):
    """Daphne's WebSocket, closed when its client falls too far behind."""

    unchecked = 0  # bytes sent since the backlog was last measured
    backlog_limit = DEFAULT_BACKLOG_LIMIT
    receiver = None  # the application's own reader of text frames (receive_now)

    def connectionMade(self):  # noqa: ANN201
        # Frames are small and each one is a move someone waits for: no Nagle delay (Twisted
        # leaves it on), which otherwise holds a frame back until the previous one is acked.
        if hasattr(self.transport, "setTcpNoDelay"):
            self.transport.setTcpNoDelay(True)
        self.backlog_limit = getattr(settings, "WEBSOCKET_BACKLOG_LIMIT", DEFAULT_BACKLOG_LIMIT)
        super().connectionMade()

    def dataReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted's name
        # autobahn's own formats a debug line (colours and all) for every read, logged or not.
        self._dataReceived(data)

    def receive_now(self, receiver) -> None:  # noqa: ANN001 - a callable of one str
        """Hand every text frame read from now on to `receiver(text)`, not to Daphne's queue."""
        self.receiver = receiver

    def onMessage(self, payload: bytes, isBinary: bool) -> None:  # noqa: N802, N803 - autobahn's
        receiver = self.receiver
        if receiver is None or isBinary or self.muted:
            super().onMessage(payload, isBinary)
            return
        self.last_ping = time.time()  # as Daphne's: traffic keeps the socket alive
        receiver(payload.decode("utf8"))  # autobahn and small_text_frames checked it is UTF-8

    def serverSend(self, content, binary=False):  # noqa: ANN001, ANN201
        if self.state in (self.STATE_CLOSING, self.STATE_CLOSED):
            return  # closing already; the application hears of it when the close completes
        super().serverSend(content, binary)
        self.sent(len(content))

    def _dataReceived(self, data: bytes) -> None:  # noqa: N802 - autobahn's name
        # A move is one small masked text frame, usually alone in its TCP segment: read such
        # frames here, in a few lines, and hand them to Daphne as autobahn would. Anything
        # else (a frame split across reads, a big, binary, fragmented or control frame, text
        # that is not UTF-8, autobahn in the middle of a message) goes to autobahn, untouched.
        if (
            self.state == self.STATE_OPEN
            and not self.data
            and self.current_frame is None
            and not self.inside_message
            and self._perMessageCompress is None
        ):
            payloads = small_text_frames(data)
            if payloads is not None:
                if self.autoPingTimeoutCall and self.autoPingRestartOnAnyTraffic:
                    self._cancelAutoPingTimeoutCall()  # traffic counts as alive, as autobahn does
                for payload in payloads:
                    if self.state != self.STATE_OPEN:
                        break
                    self.onMessage(payload, False)
                return
        super()._dataReceived(data)

    def send_now(self, text: str) -> bool:
        """Write one text frame now; False: the socket is not accepted yet (send it as usual).

        What `websocket.send` would do, without Daphne's reply dispatch and autobahn's
        sendMessage/sendFrame: a server's frame is never masked, and Daphne offers no
        compression (were it negotiated, autobahn frames it as always).
        """
        if self.state != self.STATE_OPEN:
            # Closing or closed: dropped, as serverSend does; connecting: not ours to send.
            return self.state != self.STATE_CONNECTING
        if self._perMessageCompress is not None:
            self.serverSend(text)
            return True
        payload = text.encode()
        self.sendData(text_frame(payload))
        self.sent(len(payload))
        return True

    def sent(self, size: int) -> None:
        """Count `size` bytes sent; close the socket if its client has fallen too far behind."""
        limit = self.backlog_limit
        # Measuring asks the kernel (a system call): do it once per eighth of the limit sent,
        # so a socket is closed at most that far past the limit, and a frame costs no call.
        self.unchecked += size
        if self.unchecked < limit // 8:
            return
        self.unchecked = 0
        backlog = unsent_bytes(self.transport)
        if backlog > limit:
            logger.warning(
                "Closing a WebSocket to %s (%s): %d unsent bytes, over the %d limit",
                self.path.decode("ascii", "replace"),
                self.client_addr,
                backlog,
                limit,
            )
            # A client that never reads never answers the close either: autobahn then drops
            # the connection after its close handshake timeout (1 s), and the buffer with it.
            self.sendCloseFrame(code=TRY_AGAIN_LATER, reasonUtf8=b"backlog")

    def sendData(self, data, sync=False, chopsize=None):  # noqa: ANN001, ANN201
        # A frame goes to the socket at once when nothing is waiting before it, as asyncio's
        # own transports do; Twisted would buffer it, ask the loop to watch the socket and
        # write it on the next turn (two epoll changes and a callback per frame: a little of
        # each push's latency, docs/performance.md). What the kernel does not take now is left
        # to Twisted.
        transport = self.transport
        if (
            chopsize
            or sync
            or self.send_queue
            or type(transport) is not tcp.Server
            or not transport.connected
            or transport._writeDisconnected
            or transport._tempDataLen
            or len(transport.dataBuffer) > transport.offset
        ):
            return super().sendData(data, sync, chopsize)
        try:
            sent = transport.socket.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            sent = 0  # the connection is going: Twisted finds out and closes it as always
        if sent < len(data):
            transport.write(data[sent:])
        return None

    def serverClose(self, code=None):  # noqa: ANN001, ANN201
        if code in RECONNECT_CODES:
            # autobahn's sendClose accepts only 1000 and 3000-4999.
            self.sendCloseFrame(code=code)
        else:
            super().serverClose(code)


class LimitedServer(daphne.server.Server):
    """Daphne's Server with the factories above (run() builds Daphne's own; we swap them)."""

    @property
    def http_factory(self) -> HTTPFactory:
        return self._http_factory

    @http_factory.setter
    def http_factory(self, factory: HTTPFactory) -> None:
        self._http_factory = LimitedHTTPFactory(self)

    @property
    def ws_factory(self):  # noqa: ANN201
        return self._ws_factory

    @ws_factory.setter
    def ws_factory(self, factory) -> None:  # noqa: ANN001
        factory.protocol = BoundedWebSocketProtocol
        self._ws_factory = factory

    def run(self) -> None:
        from twisted.internet import reactor

        self.ports: list[Any] = []  # the listening ports (closed first at a stop)
        # The application's own start (cardgames.lifecycle): its rooms and driver, at once.
        reactor.callWhenRunning(self.started)
        # What is loaded by now (Django, the apps, the application) lives as long as the
        # process: kept out of the collector's full passes, which would scan all of it each
        # time (pauses of 50-80 ms under load, every push of those moments late; see
        # docs/performance.md). Garbage made while loading is collected first.
        gc.collect()
        gc.freeze()
        super().run()

    def listen_success(self, port) -> None:  # noqa: ANN001 - a Twisted port
        self.ports.append(port)
        super().listen_success(port)

    def started(self) -> None:
        from cardgames import lifecycle

        self.starting = asyncio.ensure_future(lifecycle.start())  # held until it has run

    def kill_all_applications(self):  # noqa: ANN201 - a Deferred
        """On SIGTERM: stop listening (a proxy sends new connections to the other processes,
        and a restart's successor can take the port), let the application hand its rooms
        over and tell its sockets (cardgames.lifecycle.stop, within SHUTDOWN_GRACE), then end
        the applications as Daphne does."""
        from twisted.internet import defer

        return defer.Deferred.fromFuture(asyncio.ensure_future(self.stop_gracefully()))

    async def stop_gracefully(self) -> None:
        from cardgames import lifecycle

        for port in getattr(self, "ports", ()):
            try:
                port.stopListening()
            except Exception:
                logger.exception("closing a listening port failed")
        grace = getattr(settings, "SHUTDOWN_GRACE", 3.0)
        try:
            await asyncio.wait_for(lifecycle.stop(), grace + 1.0)
        except Exception:
            logger.exception("the graceful stop did not finish; stopping anyway")
        killed = super().kill_all_applications()
        await killed.asFuture(asyncio.get_running_loop())

    def create_application(self, protocol, scope):  # noqa: ANN001, ANN201
        if scope["type"] == "websocket" and "scheme" not in scope:
            # Set by parse_x_forwarded_for with --proxy-headers, from X-Forwarded-Proto.
            secure = getattr(protocol, "client_scheme", None) == "https"
            secure = secure or ISSLTransport.providedBy(protocol.transport)
            scope["scheme"] = "wss" if secure else "ws"
        if scope["type"] == "websocket":
            extensions = scope.setdefault("extensions", {})
            extensions[SEND_NOW] = {"send": protocol.send_now}
            extensions[RECEIVE_NOW] = {"take": protocol.receive_now}
        return super().create_application(protocol, scope)


class DirectReadsReactor(asyncioreactor.AsyncioSelectorReactor):
    """Twisted's asyncio reactor, calling a reader straight from the loop.

    Twisted registers every reader as `callWithLogger(reader, _readOrWrite, ...)`, which sets
    a log context (the connection's prefix for Twisted's own log lines) around every read,
    through three layers of calls and dictionaries: a few per cent of a move's cost, measured
    (docs/performance.md). The site logs through Python's logging, never Twisted's context;
    `_readOrWrite` still catches what a read raises and drops that connection, as before.
    """

    def addReader(self, reader) -> None:  # noqa: ANN001, N802 - Twisted's name
        if reader in self._readers or reader in self._continuousPolling._readers:
            return
        fd = reader.fileno()
        try:
            self._asyncioEventloop.add_reader(fd, self._readOrWrite, reader, True)
            self._readers[reader] = fd
        except OSError as e:
            self._unregisterFDInAsyncio(fd)
            if e.errno == errno.EPERM:  # not pollable (a regular file): Twisted's own way
                self._continuousPolling.addReader(reader)
            else:
                raise


def direct_reads() -> None:
    """Make the installed reactor (daphne.server's) a DirectReadsReactor, before it runs."""
    from twisted.internet import reactor

    if type(reactor) is asyncioreactor.AsyncioSelectorReactor:
        reactor.__class__ = DirectReadsReactor  # type: ignore[assignment]


class LimitedCommandLineInterface(CommandLineInterface):
    description = "cardgames: Daphne with request-body and WebSocket backlog limits"
    server_class = LimitedServer


def exit_within(seconds: float) -> None:
    """The server has stopped; the interpreter now waits for every thread it started. One
    that waits for the stopped loop (a sync view calling async_to_sync after the stop: asgiref
    schedules onto the loop and waits for ever) would keep the process, and a deploy, waiting:
    after `seconds` the process logs the threads' stacks and exits without them (status 1)."""

    def leave() -> None:
        time.sleep(seconds)
        logger.error("threads still running %.1f s after the server stopped; exiting", seconds)
        faulthandler.dump_traceback(all_threads=True)
        logging.shutdown()
        os._exit(1)

    threading.Thread(target=leave, name="exit-within", daemon=True).start()


def main() -> None:
    direct_reads()
    LimitedCommandLineInterface.entrypoint()
    exit_within(getattr(settings, "SHUTDOWN_GRACE", 3.0))


if __name__ == "__main__":
    main()
