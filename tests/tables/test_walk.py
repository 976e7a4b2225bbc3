"""The walk of one move, kept true: the project files a move enters, as docs/architecture.md
lists them ("The walk of one move").

One browser move (a Ligretto flip on the table socket) and one Board API stream move are played
under a profiling hook on every thread (`threading.setprofile_all_threads`), from the frame the
move is sent in to the frame that brings its change to the mover and to the other player. Every
Python file of the project that a call enters on the way is counted (the tests' own files, the
virtualenv's and Python's are not); the set must equal the documented list, so a change that
adds a stop to the walk (or takes one away) updates the list a newcomer reads.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from api.models import ApiToken
from tables.live import rooms
from tests.api.helpers import next_of, stream
from tests.conftest import make_user
from tests.tables.helpers import started_room, table_socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
OUTSIDE = (ROOT / ".venv", ROOT / "tests", ROOT / "bench")


@pytest.fixture(autouse=True)
def _no_driver(settings):
    settings.BOT_DRIVER = False  # no bot or timer work in the walk: only the move's


def documented(kind: str) -> tuple[set[str], set[str]]:
    """The files listed under "walk: <kind>" in docs/architecture.md (a fenced block): those
    every such move enters, and those marked "[some moves]" (a move's events decide)."""
    text = DOC.read_text()
    block = re.search(rf"<!-- walk: {kind} -->\s*```\n(.*?)```", text, re.S)
    assert block, f"docs/architecture.md has no walk: {kind} list"
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    always = {line.split()[0] for line in lines if "[some moves]" not in line}
    sometimes = {line.split()[0] for line in lines if "[some moves]" in line}
    return always, sometimes


class Walk:
    """The project files entered while it is on, from every thread."""

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.first: dict[str, str] = {}  # each file's first function entered, in order
        self._known: dict[str, str | None] = {}

    def _hook(self, frame: Any, event: str, arg: Any) -> None:
        if event != "call":
            return
        name = frame.f_code.co_filename
        known = self._known.get(name, "")
        if known == "":
            path = Path(name)
            inside = path.is_absolute() and path.is_relative_to(ROOT)
            if inside and not any(path.is_relative_to(o) for o in OUTSIDE):
                known = str(path.relative_to(ROOT))
            else:
                known = None
            self._known[name] = known
        if known and known not in self.files:
            self.files.add(known)
            self.first[known] = frame.f_code.co_qualname

    def __enter__(self) -> Walk:
        threading.setprofile_all_threads(self._hook)
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(None)
        threading.setprofile_all_threads(None)


def _compare(kind: str, walk: Walk) -> None:
    walked = walk.files
    # Shown when it fails (and with -s): the files in the order first entered, and where.
    print(f"{kind}: {len(walked)} files")
    for name, function in walk.first.items():
        print(f"  {name:32} {function}")
    always, sometimes = documented(kind)
    assert always <= walked <= always | sometimes, (
        f"the {kind} walk differs from docs/architecture.md:\n"
        f"entered, not listed: {sorted(walked - always - sometimes)}\n"
        f"listed, not entered: {sorted(always - walked)}"
    )


async def _version(room_id: int) -> int:
    return await sync_to_async(lambda: rooms.read(room_id).version)()


async def test_one_browser_move_enters_the_documented_files():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob])
    a = await table_socket(room.pk, alice)
    b = await table_socket(room.pk, bob)
    for s in (a, b):  # a seat's socket counts its presence before its first frame
        await s.receive_from(timeout=10)
    now = await _version(room.pk)
    for s in (a, b):
        while s.seen < now:
            await s.receive_from(timeout=10)
    with Walk() as walk:
        await a.send_to(text_data=json.dumps({"type": "flip"}))
        mine = await a.receive_from(timeout=10)
        theirs = await b.receive_from(timeout=10)
    assert 'id="me-' in mine and 'id="me-' not in theirs  # the mover's own part, his alone
    assert a.seen == b.seen == now + 1
    await a.disconnect()
    await b.disconnect()
    _compare("browser move", walk)


async def test_one_stream_move_enters_the_documented_files():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    ta = await sync_to_async(lambda: ApiToken.objects.issue(alice, "walk")[1])()
    tb = await sync_to_async(lambda: ApiToken.objects.issue(bob, "walk")[1])()
    room = await sync_to_async(started_room)(alice, [bob])
    a, b = await stream(room.pk, ta), await stream(room.pk, tb)
    seen = [(await next_of(s, "view"))["view"]["version"] for s in (a, b)]
    now = await _version(room.pk)
    for s, last in zip((a, b), seen, strict=True):
        while last < now:
            last = (await next_of(s, "view"))["view"]["version"]
    with Walk() as walk:
        await a.send_to(text_data=json.dumps({"type": "action", "action": {"type": "flip"}}))
        mine, theirs = await next_of(a, "view"), await next_of(b, "view")
    assert mine["view"]["version"] == theirs["view"]["version"] == now + 1
    await a.disconnect()
    await b.disconnect()
    _compare("stream move", walk)
