"""nginx in front of Daphne processes, with the configuration operators get: deploy/nginx.conf.

    with site_processes(env, workdir) as sites:
        with running_proxy([s.port for s in sites], workdir / "nginx") as proxy:
            urllib.request.urlopen(proxy.url + "/")
            proxy.accesses()[-1].served_by  # "127.0.0.1:PORT": the process that answered

`running_proxy` runs a copy of deploy/nginx.conf in which only what must differ is changed: the
listen address (a free port on 127.0.0.1), the two upstream servers' ports, the access log's
path and, since nginx's compiled-in temporary paths are the system's, temporary paths in the
work directory. The pid file, the error log, `daemon off` and (under root) the workers' user are
given on the command line. Everything else (the room hash, max_fails, retries, timeouts, buffers)
is the documented file's text. For the scale tests (tests/deploy) and the benchmark
(bench/table_push.py --nginx). A missing nginx is an error, never a skip: `make nginx`.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from tests.devserver import ROOT, free_port, start_daphne

CONFIG = ROOT / "deploy" / "nginx.conf"
DOCUMENTED_SERVERS = ("127.0.0.1:8001", "127.0.0.1:8002")
ACCESS_LOG = "access_log /var/log/nginx/cardgames.access.log cardgames;"
TEMP_PATHS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
# One line of the `cardgames` log format (deploy/nginx.conf).
ACCESS = re.compile(
    r'^(?P<client>\S+) \[[^\]]+\] "(?P<method>\S+) (?P<path>.*?)" (?P<status>\d+) \d+ '
    r"upstream=(?P<upstream>.*?) upstream_status=(?P<upstream_status>.*?) request_time=\S+$"
)


def nginx_binary() -> str:
    """The nginx command: on PATH, or Debian's /usr/sbin/nginx (not on a user's PATH)."""
    found = shutil.which("nginx")
    if found:
        return found
    if os.access("/usr/sbin/nginx", os.X_OK):
        return "/usr/sbin/nginx"
    raise RuntimeError("nginx is not installed: `make nginx` installs Debian's package")


def _once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise ValueError(f"deploy/nginx.conf should contain {old!r} exactly once")
    return text.replace(old, new)


def proxy_config(upstream_ports: list[int], port: int, workdir: Path) -> str:
    """deploy/nginx.conf for a proxy on 127.0.0.1:`port` in front of `upstream_ports`."""
    if len(upstream_ports) != len(DOCUMENTED_SERVERS):
        raise ValueError(f"deploy/nginx.conf has {len(DOCUMENTED_SERVERS)} upstream servers")
    text = CONFIG.read_text()
    text = _once(text, "listen 8000;", f"listen 127.0.0.1:{port};")
    for documented, upstream in zip(DOCUMENTED_SERVERS, upstream_ports, strict=True):
        text = _once(text, f"server {documented}", f"server 127.0.0.1:{upstream}")
    text = _once(text, ACCESS_LOG, f"access_log {workdir / 'access.log'} cardgames;")
    temp = "".join(f"\n    {kind}_temp_path {workdir / 'temp' / kind};" for kind in TEMP_PATHS)
    return _once(text, "\nhttp {", "\nhttp {" + temp)


@dataclass(frozen=True)
class Access:
    """One request as the proxy's access log has it."""

    method: str
    path: str
    status: int
    upstreams: tuple[str, ...]  # every process tried, in order ("127.0.0.1:PORT")
    upstream_statuses: tuple[str, ...]

    @property
    def served_by(self) -> str:
        """The process that answered (the last one tried); "" when none was reached."""
        return self.upstreams[-1] if self.upstreams else ""


@dataclass
class Proxy:
    port: int
    url: str  # http://127.0.0.1:PORT
    workdir: Path
    config: Path
    error_log: Path
    access_log: Path
    process: subprocess.Popen

    def command(self, *more: str) -> list[str]:
        """nginx's command line for this proxy (the config and the command-line directives)."""
        return _command(self.workdir, *more)

    def accesses(self) -> list[Access]:
        """Every request logged so far (a WebSocket is logged once it is closed)."""
        out = []
        text = self.access_log.read_text() if self.access_log.exists() else ""
        for line in text.splitlines():
            found = ACCESS.match(line)
            if found is None:
                raise ValueError(f"not a line of the cardgames log format: {line!r}")
            upstreams = [a.strip() for a in re.split(r"[,:]\s", found["upstream"])]
            out.append(
                Access(
                    method=found["method"],
                    path=found["path"],
                    status=int(found["status"]),
                    upstreams=tuple(a for a in upstreams if a and a != "-"),
                    upstream_statuses=tuple(
                        s.strip() for s in re.split(r"[,:]\s", found["upstream_status"])
                    ),
                )
            )
        return out

    def errors(self) -> str:
        return self.error_log.read_text() if self.error_log.exists() else ""

    def pids(self) -> list[int]:
        """The master's pid and its workers' (for CPU accounting)."""
        return [self.process.pid, *_children(self.process.pid)]


def _command(workdir: Path, *more: str) -> list[str]:
    return [
        nginx_binary(),
        *("-p", f"{workdir}/", "-c", str(workdir / "nginx.conf"), "-e", str(workdir / "error.log")),
        *("-g", _directives(workdir), *more),
    ]


def _directives(workdir: Path) -> str:
    # Under root, nginx's workers would run as `nobody`, who may not enter a private temporary
    # directory; they run as the user who started them instead (ignored when not root).
    user = f" user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
    return f"daemon off; pid {workdir / 'nginx.pid'};{user}"


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def check_config(proxy: Proxy) -> str:
    """`nginx -t` on the proxy's configuration; its report (raises when the test fails)."""
    done = subprocess.run(proxy.command("-t"), capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise RuntimeError(f"nginx -t failed:\n{done.stderr}")
    return done.stderr


@contextmanager
def running_proxy(upstream_ports: list[int], workdir: Path, timeout: float = 15) -> Iterator[Proxy]:
    """Run nginx with deploy/nginx.conf in front of `upstream_ports` until the block ends.

    Its files (configuration, logs, pid, temporary files) go into `workdir`.
    """
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    config = workdir / "nginx.conf"
    config.write_text(proxy_config(upstream_ports, port, workdir))
    (workdir / "temp").mkdir(exist_ok=True)
    with open(workdir / "nginx.stderr", "w") as stderr:
        process = subprocess.Popen(_command(workdir), stdout=subprocess.DEVNULL, stderr=stderr)
    proxy = Proxy(
        port=port,
        url=f"http://127.0.0.1:{port}",
        workdir=workdir,
        config=config,
        error_log=workdir / "error.log",
        access_log=workdir / "access.log",
        process=process,
    )
    try:
        _wait_listening(proxy, timeout)
        yield proxy
    finally:
        _stop_nginx(process)


def _wait_listening(proxy: Proxy, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proxy.process.poll() is not None:
            said = (proxy.workdir / "nginx.stderr").read_text() + proxy.errors()
            raise RuntimeError(f"nginx exited with {proxy.process.returncode}:\n{said}")
        try:
            with socket.create_connection(("127.0.0.1", proxy.port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nginx did not listen on {proxy.port} within {timeout} s")


def _stop_nginx(process: subprocess.Popen) -> None:
    """Fast shutdown (SIGTERM: open WebSockets are not waited for), then SIGKILL, workers too."""
    workers = _children(process.pid)
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for worker in workers:  # a killed master leaves its workers running
        with suppress(ProcessLookupError):
            os.kill(worker, signal.SIGKILL)


# --------------------------------------------------------------------------- the processes behind


@dataclass
class Site:
    """One Daphne process of the site (python -m cardgames.server --proxy-headers) on a port."""

    name: str
    port: int
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen | None = None
    log: IO | None = field(default=None, repr=False)

    @property
    def address(self) -> str:
        """As nginx's $upstream_addr names it."""
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None, f"{self.name} is not running"
        return self.process.pid

    def start(self) -> None:
        """Start it (again: on the same port) and wait until it listens."""
        self.log = open(self.log_path, "a")  # noqa: SIM115 - closed by stop()
        self.process = start_daphne(self.port, self.env, self.log, options=("--proxy-headers",))

    def stop(self, grace: float = 10) -> None:
        """SIGTERM, and SIGKILL after `grace` seconds (Daphne with open sockets can be slow)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.log is not None:
            self.log.close()
            self.log = None


@contextmanager
def site_processes(env: dict[str, str], workdir: Path, count: int = 2) -> Iterator[list[Site]]:
    """Start `count` processes of the site on free ports with `env` (a shared PostgreSQL and
    Redis); their logs go to `workdir`/daphne-N.log. All are stopped at the end."""
    workdir.mkdir(parents=True, exist_ok=True)
    sites: list[Site] = []
    with ExitStack() as stack:
        for n in range(1, count + 1):
            site = Site(f"daphne-{n}", free_port(), env, workdir / f"daphne-{n}.log")
            stack.callback(site.stop, 2)
            site.start()
            sites.append(site)
        yield sites
