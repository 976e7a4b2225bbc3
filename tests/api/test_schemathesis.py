"""Schemathesis against a real server: the Board API does what /api/v1/schema says, exactly.

Every check (`--checks all`) over every phase (examples, coverage, fuzzing, stateful), with a
fixed seed and a bounded number of examples, once with a user's token and once without (but for
the coverage phase: see PHASES); any failure fails the test. The per-user limits are raised for
the run (they would answer a third of its requests with 429). What the document cannot say is in
schemathesis.toml beside this.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import PASSWORD
from tests.lobby.realserver import Site, running_site

CONFIG = Path(__file__).with_name("schemathesis.toml")
# The one rule of a sign-up the document cannot state (a password not like the name).
HOOKS = Path(__file__).with_name("schemathesis_hooks.py")
SEED = 36
# Per operation and phase; the coverage phase adds its boundary cases on top.
EXAMPLES = 8
PHASES = {
    "token": ("examples", "coverage", "fuzzing", "stateful"),
    # Without a token, 37 of the 40 operations answer 401 without reading their body or query;
    # what is judged before that (the JSON's syntax, the path's shape) is judged the same with
    # a token. The coverage phase's boundary cases (some 3,000 requests, 36 s of a worker)
    # would each prove one of those answers again: the token run sends them all, the three
    # open operations (signup, token, verify) included, where a token changes nothing, and
    # the examples and fuzzing phases here still ask every operation without a token.
    "anonymous": ("examples", "fuzzing", "stateful"),
}
LIMITS = dict.fromkeys(
    (
        "API_ACTIONS_PER_USER",
        "ROOM_ACTIONS_PER_USER",
        "ROOMS_PER_USER",
        "SIGNUPS_PER_ADDRESS",
        "LOGIN_FAILURES_PER_USER",
        "LOGIN_FAILURES_PER_ADDRESS",
    ),
    "1000000",
)


def _schemathesis() -> str:
    # Installed with the dev extra beside this interpreter: missing is a failure, never a skip.
    found = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
    assert found, "schemathesis is not installed: make install-dev"
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory):
    with running_site(tmp_path_factory.mktemp("schemathesis"), **LIMITS) as site:
        yield site


def _token(site: Site) -> str:
    request = urllib.request.Request(
        f"{site.url}/api/v1/signup",
        method="POST",
        data=json.dumps({"username": "schemathesis", "password": PASSWORD}).encode(),
    )
    with urllib.request.urlopen(request, timeout=20) as answer:
        return json.load(answer)["token"]


def _operations(site: Site) -> int:
    with urllib.request.urlopen(f"{site.url}/api/v1/schema", timeout=20) as answer:
        paths = json.load(answer)["paths"]
    return sum(len(operations) for operations in paths.values())


# One run takes a minute or two on a busy 2-core machine; the suite's default limit is 120 s.
@pytest.mark.timeout(600)
@pytest.mark.parametrize("caller", ["token", "anonymous"])
def test_the_api_does_what_its_schema_says(site, caller, tmp_path):
    headers = ["-H", f"Authorization: Bearer {_token(site)}"] if caller == "token" else []
    command = [
        _schemathesis(),
        "--config-file",
        str(CONFIG),
        "--no-color",
        "run",
        f"{site.url}/api/v1/schema",
        "--checks",
        "all",
        "--phases",
        ",".join(PHASES[caller]),
        "--seed",
        str(SEED),
        "--max-examples",
        str(EXAMPLES),
        "--workers",
        "1",
        "--request-timeout",
        "20",
        *headers,
    ]
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(HOOKS)}
    run = subprocess.run(
        command, capture_output=True, text=True, timeout=540, cwd=tmp_path, env=env
    )
    report = run.stdout + run.stderr
    (Path(site.log).parent / f"schemathesis-{caller}.txt").write_text(report)
    summary = report[report.rfind("SUMMARY") :]
    print(summary)  # the figures, for whoever runs pytest -s
    assert run.returncode == 0, report[-8000:]
    # Every operation of the document was tested, in every phase, and nothing failed.
    operations = _operations(site)
    assert f"Selected: {operations}/{operations}" in summary, summary
    assert f"Tested: {operations}" in summary, summary
    for phase in PHASES[caller]:
        assert re.search(rf"✅ {phase.capitalize()}", summary), (phase, summary)
    assert re.search(r"\d+ passed", summary) or "No issues found" in summary, summary
    assert not re.search(r"\b\d+ failures?\b", summary), summary
