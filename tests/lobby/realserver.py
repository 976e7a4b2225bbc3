"""Helpers for tests against a real Daphne (cardgames.server) in a subprocess, over raw sockets."""

from __future__ import annotations

import http.cookiejar
import os
import re
import socket
import struct
import subprocess
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import PASSWORD
from tests.devserver import TEST_SITE, free_port, migrate, start_daphne, stop

# A socket read never waits longer than this: a server that does not answer fails the test
# instead of hanging it. It bounds a wait; nothing asserts how fast anything is.
READ_TIMEOUT = 20


@dataclass
class Site:
    port: int
    process: subprocess.Popen
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        return self.log.read_text()

    def rss(self) -> int:
        """Return the server's resident memory in bytes."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) * 1024


@contextmanager
def running_site(workdir: Path, options: tuple[str, ...] = (), **settings: str) -> Iterator[Site]:
    """Serve the site from its own SQLite file; `settings` become environment variables."""
    db = workdir / "site.sqlite3"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DEBUG": "True",
        "DJANGO_SETTINGS_MODULE": "cardgames.settings",
        **TEST_SITE,
        **settings,
    }
    env.pop("REDIS_URL", None)
    migrate(env)
    log_path = workdir / "daphne.log"
    port = free_port()
    with open(log_path, "w") as log:
        process = start_daphne(port, env, log, options=options)
        try:
            yield Site(port, process, log_path)
        finally:
            stop(process)


class Browser:
    """A cookie-keeping HTTP client that posts forms with their CSRF token, as a browser does."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def token(self, path: str) -> str:
        page = self.opener.open(self.base + path, timeout=READ_TIMEOUT).read().decode()
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)

    def post(self, path: str, fields: dict[str, str] | None = None, form: str | None = None) -> str:
        """Post `fields` with a token taken from the page `form` (default: `path`); return URL."""
        token = self.token(form or path)
        data = urllib.parse.urlencode({**(fields or {}), "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(
            self.base + path, data=data, headers={"Referer": self.base + path}
        )
        with self.opener.open(request, timeout=READ_TIMEOUT) as response:
            return response.geturl()

    def sign_up(self, username: str) -> None:
        fields = {"username": username, "password1": PASSWORD, "password2": PASSWORD}
        self.post("/accounts/signup/", fields)

    def open_room(self) -> int:
        url = self.post("/rooms/new/", {"game": "ligretto", "seats": "4"})
        return int(re.search(r"/rooms/(\d+)/", url).group(1))

    def cookie_header(self) -> str:
        return "; ".join(f"{cookie.name}={cookie.value}" for cookie in self.jar)


def open_websocket(
    port: int, path: str, headers: dict[str, str] | None = None, receive_buffer: int | None = None
) -> tuple[socket.socket, bytes]:
    """Open a WebSocket by hand; return the socket and the handshake's status line."""
    sock = socket.socket()
    if receive_buffer:
        # A client that never reads: its kernel buffer fills at once.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(READ_TIMEOUT)
    sock.connect(("127.0.0.1", port))
    fields = {
        "Host": f"127.0.0.1:{port}",
        "Origin": f"http://127.0.0.1:{port}",
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
        **(headers or {}),
    }
    head = f"GET {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
    sock.sendall(head.encode("latin-1") + b"\r\n")
    response = b""
    while b"\r\n\r\n" not in response:
        data = sock.recv(1)  # byte by byte: leave the first frame unread
        if not data:
            break
        response += data
    return sock, response.split(b"\r\n", 1)[0]


def read_frame(sock: socket.socket) -> tuple[int, bytes]:
    """Read one server frame (never masked); return its opcode and payload."""
    head = _read_exactly(sock, 2)
    opcode, length = head[0] & 0x0F, head[1] & 0x7F
    if length == 126:
        length = struct.unpack("!H", _read_exactly(sock, 2))[0]
    elif length == 127:
        length = struct.unpack("!Q", _read_exactly(sock, 8))[0]
    return opcode, _read_exactly(sock, length)


def close_code(sock: socket.socket) -> int | None:
    """Read frames until the close frame; return its code (None if the connection just ended)."""
    try:
        while True:
            opcode, payload = read_frame(sock)
            if opcode == 8:
                return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
    except (ConnectionError, EOFError):
        return None


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError("the server closed the connection")
        data += chunk
    return data


def send_frame(sock: socket.socket, payload: bytes, opcode: int = 1) -> None:
    """Send one client frame (masked, as a client must); text by default."""
    mask = b"\x01\x02\x03\x04"
    size = len(payload)
    if size < 126:
        head = bytes([0x80 | opcode, 0x80 | size])
    elif size < 65536:
        head = bytes([0x80 | opcode, 0x80 | 126]) + struct.pack("!H", size)
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + struct.pack("!Q", size)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    sock.sendall(head + mask + masked)
