"""The limits of cardgames.server, against a real Daphne process and raw sockets (issue 11).

One server for the module, with small limits so that the tests send little: a 100 kB body limit,
a 16 kB WebSocket backlog limit, proxy headers on, and no keepalive pings (a client that never
reads would otherwise be dropped by the ping timeout, hiding what the backlog limit does).
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator

import pytest

from tests.lobby.realserver import (
    READ_TIMEOUT,
    Browser,
    Site,
    close_code,
    open_websocket,
    read_frame,
    running_site,
    send_frame,
)

pytestmark = pytest.mark.any_store

BODY_LIMIT = 100_000
BACKLOG_LIMIT = 16_384


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with running_site(
        tmp_path_factory.mktemp("limits"),
        options=("--ping-interval", "3600", "--proxy-headers"),
        REQUEST_BODY_LIMIT=str(BODY_LIMIT),
        WEBSOCKET_BACKLOG_LIMIT=str(BACKLOG_LIMIT),
    ) as running:
        yield running


def post_head(port: int, extra: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT)
    sock.sendall(
        b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n" + extra.encode() + b"\r\n"
    )
    return sock


def test_it_refuses_a_body_longer_than_the_limit_before_it_is_sent(site):
    sock = post_head(site.port, "Content-Length: 1000000000\r\n")
    # Not one byte of the body was sent: the answer comes from the headers alone.
    answer = sock.recv(4096)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert "Refused a request body over 100000 bytes to /accounts/login/" in site.log_text()


def test_it_cuts_off_a_chunked_body_once_it_passes_the_limit(site):
    before = site.rss()
    sock = post_head(site.port, "Transfer-Encoding: chunked\r\n")
    chunk = b"x" * 65_536
    sent, total = 0, 64 * 1024 * 1024
    try:
        while sent < total:
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sent += len(chunk)
    except OSError:
        pass  # the server closed the connection: what this test wants
    assert sent < total, "the server read a 64 MB body"
    try:
        answer = sock.recv(4096)
    except ConnectionResetError:
        answer = b""  # the reset may overtake the answer; the log below still tells
    sock.close()
    assert answer == b"" or answer.startswith(b"HTTP/1.1 413 ")
    assert site.log_text().count("Refused a request body") >= 1
    # What little was read went nowhere: the server's memory did not take the body in.
    assert site.rss() - before < 16 * 1024 * 1024


def test_a_body_within_the_limit_reaches_the_site(site):
    sock = post_head(site.port, "Content-Length: 10\r\n")
    sock.sendall(b"username=x")
    answer = sock.recv(4096)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 403 ")  # Django's CSRF refusal: the view was reached


def test_a_socket_that_does_not_read_is_closed_when_it_falls_behind(site):
    host = Browser(site.url)
    host.sign_up("alice")
    room_id = host.open_room()
    # A room socket gets the whole room view (a few kB) on every change.
    slow, status = open_websocket(site.port, f"/ws/rooms/{room_id}/", receive_buffer=4096)
    assert b" 101 " in status
    guest = Browser(site.url)
    guest.sign_up("bob")
    closed = False
    for _ in range(100):  # a bound, far above the ~10 rounds the limit needs
        guest.post(f"/rooms/{room_id}/join/", form=f"/rooms/{room_id}/")
        guest.post(f"/rooms/{room_id}/leave/", form=f"/rooms/{room_id}/")
        closing = rf"Closing a WebSocket to /ws/rooms/{room_id}/ .* unsent bytes"
        if re.search(closing, site.log_text()):
            closed = True
            break
    assert closed, "the slow socket was never closed"
    # It was told to try again later (1013, which the page's ws extension reconnects from),
    # unless the server had to drop it before the client read that far.
    assert close_code(slow) in (1013, None)
    slow.close()

    # A reconnect gets the whole current view.
    fresh, status = open_websocket(site.port, f"/ws/rooms/{room_id}/")
    opcode, payload = read_frame(fresh)
    fresh.close()
    assert opcode == 1 and b'id="room-live"' in payload and b'data-connected="true"' in payload


def test_the_socket_takes_the_scheme_from_the_proxy(site):
    alice = Browser(site.url)
    alice.sign_up("carol")
    room_id = alice.open_room()
    proxy = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "192.0.2.1"}
    sock, _ = open_websocket(
        site.port, f"/ws/rooms/{room_id}/", {"Cookie": alice.cookie_header(), **proxy}
    )
    _, payload = read_frame(sock)
    sock.close()
    assert f'value="https://127.0.0.1:{site.port}/invite/'.encode() in payload


def test_logging_out_closes_the_users_sockets_so_they_reconnect(site):
    dave = Browser(site.url)
    dave.sign_up("dave")
    room_id = dave.open_room()
    sock, _ = open_websocket(site.port, f"/ws/rooms/{room_id}/", {"Cookie": dave.cookie_header()})
    _, first = read_frame(sock)
    assert b'id="leave-button"' in first
    dave.post("/accounts/logout/", form="/accounts/profile/")
    # 1012 passes through the server (autobahn alone refuses it) and makes the page reconnect.
    assert close_code(sock) == 1012
    sock.close()


def test_an_unknown_websocket_path_is_closed_with_4404(site):
    sock, status = open_websocket(site.port, "/ws/nowhere/")
    assert b" 101 " in status
    assert close_code(sock) == 4404
    sock.close()
    assert "Traceback" not in site.log_text()


def _raw(port: int, head: bytes, body: bytes = b"") -> bytes:
    sock = socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT)
    sock.sendall(head + body)
    answer = b""
    while chunk := sock.recv(65536):  # until the server closes (Connection: close)
        answer += chunk
    sock.close()
    return answer


def test_a_body_over_the_limit_to_the_api_answers_the_apis_json(site):
    answer = _raw(
        site.port,
        b"POST /api/v1/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n",
    )
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 ") and b"Content-Type: application/json" in head
    assert json.loads(body)["error"]["code"] == "too_large"


def test_a_multipart_body_without_a_boundary_reaches_the_api_and_answers_json(site):
    # Twisted once answered this itself with a bare, empty 400; now the API judges the body.
    body = b"--x\r\nContent-Disposition: form-data\r\n\r\nhello\r\n"
    answer = _raw(
        site.port,
        b"POST /api/v1/signup HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: multipart/form-data\r\nContent-Length: %d\r\n\r\n" % len(body),
        body,
    )
    head, _, payload = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ") and b"Content-Type: application/json" in head
    # Daphne sends it chunked: the one chunk is the JSON object.
    error = json.loads(payload[payload.index(b"{") : payload.rindex(b"}") + 1])
    assert error["error"]["code"] == "bad_json"


HOSTILE_FRAMES = [
    b"[" * 5000 + b"]" * 5000,
    b'{"chat": NaN}',
    b'{"type": "play", "index": "\xc2\xb2"}',
    b'{"chat": "a\\u0000b"}',
    b'{"chat_hide": {"x": 1}}',
    b"x" * 70_000,
]
# Not UTF-8 as a text frame is refused by the WebSocket layer itself (1007); as binary it is ours.
HOSTILE_BINARY = [b"\xff\xfe not text", b"{}"]


@pytest.fixture(scope="module")
def fuzz_host(site: Site) -> tuple[Browser, int]:
    # One sign-up for the module: the server counts sign-ups per address.
    host = Browser(site.url)
    host.sign_up("fuzzer")
    return host, host.open_room()


@pytest.mark.parametrize("path", ["/ws/lobby/", "/ws/rooms/{room}/"])
def test_hostile_frames_leave_a_real_servers_sockets_open_and_its_log_clean(site, fuzz_host, path):
    host, room_id = fuzz_host
    headers = {"Cookie": host.cookie_header()}
    sock, status = open_websocket(site.port, path.format(room=room_id), headers=headers)
    assert b" 101 " in status
    read_frame(sock)  # the whole view
    for frame in HOSTILE_FRAMES:
        send_frame(sock, frame)
        opcode, payload = read_frame(sock)
        assert opcode == 1, (frame[:40], opcode, payload[:100])  # an answer, not a close (8)
    for frame in HOSTILE_BINARY:
        send_frame(sock, frame, opcode=2)
        assert read_frame(sock)[0] == 1
    sock.close()
    log = site.log_text()
    assert "Traceback" not in log and " ERROR " not in log and "1011" not in log
