"""Daphne's memory while lobby sockets that never read sit through many room changes.

    .venv/bin/python bench/slow_sockets.py --sockets 100 --rooms 400
    .venv/bin/python bench/slow_sockets.py --root ../old-checkout --server daphne   # before

`--sockets` WebSockets open the lobby with a 4 kB receive buffer and never read; one account
(another one whenever a room limit refuses it) opens `--rooms` rooms over HTTP, as a browser
does. The script prints the server's resident memory (VmRSS) before the sockets, with them
open, after the rooms, and 10 s after the sockets went away; what the kernel still held unsent
for them; and how many sockets the server closed for falling behind. Keepalive pings are off
(--ping-interval 3600) so that only the backlog limit closes a socket. `--root` serves another
checkout of the site (e.g. one from before the limits, with `--server daphne`, Daphne alone).
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lobby_push import PASSWORD, Browser

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.devserver import free_port, start_daphne, stop  # noqa: E402


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024


def kernel_send_queues_mb(port: int) -> float:
    """Return what the kernel holds unsent for the server's connections on `port` (Send-Q)."""
    out = subprocess.run(
        ["ss", "-tnH", "state", "established", f"sport = :{port}"], capture_output=True, text=True
    ).stdout
    return sum(int(line.split()[1]) for line in out.splitlines() if line.strip()) / 1024 / 1024


def slow_socket(port: int) -> socket.socket:
    """Open a lobby WebSocket by hand, with a tiny receive buffer, and never read from it."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(
        (
            f"GET /ws/lobby/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Origin: http://127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    return sock


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=100)
    parser.add_argument("--rooms", type=int, default=400)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to serve")
    parser.add_argument("--server", default="cardgames.server", help="module run with -m")
    args = parser.parse_args()

    root = args.root.resolve()
    workdir = Path(tempfile.mkdtemp(prefix="bench-slow-"))
    env = {
        **os.environ,
        "DEBUG": "True",
        "DJANGO_SETTINGS_MODULE": "cardgames.settings",
        "DATABASE_URL": f"sqlite:///{workdir / 'bench.sqlite3'}",
        "PYTHONPATH": str(root),
    }
    env.pop("REDIS_URL", None)
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], cwd=root, env=env, check=True)
    port = free_port()
    log_path = workdir / "daphne.log"
    with open(log_path, "w") as log:
        options = ("--ping-interval", "3600")
        server = start_daphne(port, env, log, options=options, server=args.server, cwd=root)
    try:
        site = f"http://127.0.0.1:{port}"
        Browser(site).opener.open(site + "/").read()  # warm up: first request imports views
        figures = {"idle": rss_mb(server.pid)}
        sockets = [slow_socket(port) for _ in range(args.sockets)]
        time.sleep(2)  # let every handshake and first list go out
        figures["sockets open"] = rss_mb(server.pid)

        host, accounts, opened = None, 0, 0
        started = time.perf_counter()
        while opened < args.rooms:
            if host is None:
                accounts += 1
                host = Browser(site)
                fields = {"password1": PASSWORD, "password2": PASSWORD}
                host.post_form("/accounts/signup/", {"username": f"slow{accounts}", **fields})
                token = host.token("/rooms/new/")
            try:
                url = host.post_form("/rooms/new/", {"game": "ligretto", "seats": "4"}, token)
            except OSError:
                url = ""
            if re.search(r"/rooms/\d+/$", url):
                opened += 1
            else:
                host = None  # refused (a limit on rooms per account): the next account
        elapsed = time.perf_counter() - started
        time.sleep(2)
        figures["after rooms"] = rss_mb(server.pid)
        kernel = kernel_send_queues_mb(port)
        for sock in sockets:
            sock.close()
        time.sleep(10)
        figures["10 s after closing"] = rss_mb(server.pid)
        closed = log_path.read_text().count("unsent bytes, over the")
    finally:
        stop(server)

    print(
        f"{args.server} serving {root.name}: {args.sockets} slow lobby sockets, "
        f"{opened} rooms opened by {accounts} account(s) in {elapsed:.1f} s"
    )
    for name, value in figures.items():
        print(f"  RSS {name:>20}: {value:7.1f} MB")
    print(f"  kernel send queues after rooms: {kernel:7.1f} MB")
    print(f"  sockets closed for falling behind: {closed}")


if __name__ == "__main__":
    main()
