"""docs/api.md's worked examples run as written against a real Daphne."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request

import pytest

from tests.conftest import PASSWORD
from tests.devserver import ROOT

pytestmark = pytest.mark.any_store

DOC = (ROOT / "docs" / "api.md").read_text()


def _block(language: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", DOC, re.S)
    assert len(blocks) == 1, f"docs/api.md should have one {language} example"
    return blocks[0]


def _token(base: str, username: str) -> str:
    request = urllib.request.Request(
        f"{base}/api/v1/signup",
        method="POST",
        data=json.dumps({"username": username, "password": PASSWORD}).encode(),
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)["token"]


@pytest.mark.timeout(300)
def test_the_python_client_plays_a_round_against_a_bot(live_api, tmp_path):
    script = tmp_path / "client.py"
    script.write_text(_block("python"))
    done = subprocess.run(
        [sys.executable, str(script), live_api, _token(live_api, "pat")],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"Round 1 is over: .* Points: \[-?\d+, -?\d+\]", done.stdout), done.stdout


@pytest.mark.timeout(300)
def test_the_curl_example_runs(live_api):
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", _block("sh")],
        env={**os.environ, "BASE": live_api},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    joined, started, legal, waste, sheet, refused = done.stdout.splitlines()
    assert [p["name"] for p in json.loads(joined)["players"]] == ["ann", "ben"]
    assert json.loads(started)["status"] == "playing"
    assert "'type': 'flip'" in legal
    assert waste == "3"  # a flip turns three cards onto the waste (L11)
    assert json.loads(sheet)["rounds"] == []
    assert json.loads(refused)["error"]["code"] == "bad_action"
