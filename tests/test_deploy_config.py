"""deploy/nginx.conf is what docs/operations.md shows, and says what the docs say it does.

No nginx needed: the file is read as text (tests/deploy runs it, `nginx -t` included).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from tests.proxy import CONFIG, DOCUMENTED_SERVERS, proxy_config

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "operations.md"
FENCE = re.compile(r"^( *)```nginx\n(.*?)^\1```$", re.MULTILINE | re.DOTALL)


def _docs_blocks() -> list[str]:
    return [textwrap.dedent(body) for _, body in FENCE.findall(DOCS.read_text())]


def _directives(name: str) -> list[str]:
    """The arguments of every `name ...;` directive in the file (comments left out)."""
    text = re.sub(r"#[^\n]*", "", CONFIG.read_text())
    return [args.strip() for args in re.findall(rf"(?:^|[{{;\s]){name}\s+([^;{{]*);", text)]


def test_the_docs_show_the_whole_file_once_and_only_its_own_lines():
    config = CONFIG.read_text()
    blocks = _docs_blocks()
    assert blocks.count(config) == 1, "docs/operations.md should show deploy/nginx.conf whole"
    for block in blocks:
        # A part shown on its own (the map and the upstream) is the file's text, indentation
        # aside: the file nests it in `http { }`.
        lines = block.rstrip("\n").splitlines()
        assert any(
            "\n".join((" " * indent + line) if line else line for line in lines) in config
            for indent in (0, 4, 8)
        ), f"this block of docs/operations.md is not in deploy/nginx.conf:\n{block}"


def test_rooms_are_hashed_to_the_two_processes():
    assert _directives("hash") == ["$room_id consistent"]
    assert "map $uri $room_id {" in CONFIG.read_text()
    assert _directives("server") == [f"{s} max_fails=0" for s in DOCUMENTED_SERVERS]
    assert _directives("listen") == ["8000"]
    assert _directives("proxy_pass") == ["http://cardgames"]


def test_a_stopped_process_costs_a_retry_and_a_move_is_never_sent_twice():
    (retry,) = _directives("proxy_next_upstream")
    assert retry.split() == ["error", "timeout", "http_502", "http_503"]
    assert "non_idempotent" not in retry
    assert _directives("proxy_next_upstream_tries") == ["2"]
    assert _directives("proxy_connect_timeout") == ["1s"]


def test_sockets_are_upgraded_and_outlive_daphnes_ping():
    assert _directives("proxy_http_version") == ["1.1"]
    headers = dict(h.split(None, 1) for h in _directives("proxy_set_header"))
    assert headers["Upgrade"] == "$http_upgrade"
    assert headers["Connection"] == "$connection_upgrade"
    assert "map $http_upgrade $connection_upgrade {" in CONFIG.read_text()
    (timeout,) = _directives("proxy_read_timeout")
    assert int(timeout.removesuffix("s")) > 20


def test_forwarded_headers_are_set_not_appended_and_bodies_capped():
    headers = dict(h.split(None, 1) for h in _directives("proxy_set_header"))
    assert headers["Host"] == "$http_host"  # with its port: Django's CSRF check compares it
    assert headers["X-Forwarded-Proto"] == "$scheme"
    assert headers["X-Forwarded-For"] == "$remote_addr"
    assert "$proxy_add_x_forwarded_for" not in CONFIG.read_text()
    assert _directives("client_max_body_size") == ["1m"]
    assert _directives("proxy_max_temp_file_size") == ["0"]
    assert len(_directives("proxy_buffers")) == 1


def test_the_harness_changes_only_ports_and_paths(tmp_path):
    written = proxy_config([5001, 5002], 5000, tmp_path)
    original = CONFIG.read_text().splitlines()
    changed = [line for line in written.splitlines() if line not in original]
    assert changed == [
        *(
            f"    {kind}_temp_path {tmp_path / 'temp' / kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        ),
        "        server 127.0.0.1:5001 max_fails=0;",
        "        server 127.0.0.1:5002 max_fails=0;",
        f"    access_log {tmp_path / 'access.log'} cardgames;",
        "        listen 127.0.0.1:5000;",
    ]
    with pytest.raises(ValueError):
        proxy_config([5001], 5000, tmp_path)
