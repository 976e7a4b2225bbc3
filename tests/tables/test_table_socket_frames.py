"""A real server hands a table socket's frames straight to it (cardgames.server's receive_now,
tables.live.stream.ReceiveNow), as it does a Board API stream's: frames sent at once after
connecting wait for the whole table, each is answered once, in the order sent, in the
socket's own language."""

from __future__ import annotations

import http.cookiejar
import json
import re
import time
import urllib.parse
import urllib.request

import pytest
from websockets.sync.client import connect

from tests.api.client import Client
from tests.conftest import PASSWORD

pytestmark = pytest.mark.any_store

FLIP = json.dumps({"type": "flip", "HEADERS": {"HX-Trigger": "me-flip"}})


def _session(base: str, username: str) -> str:
    """Sign `username` in through the site's own login form; return his session cookie."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{base}/accounts/login/", timeout=10) as page:
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.read().decode())
    form = {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1)}
    data = urllib.parse.urlencode(form).encode()
    with opener.open(f"{base}/accounts/login/", data, timeout=10):
        pass
    return next(c.value for c in jar if c.name == "sessionid")


def _playing(host: Client, room_id: int) -> None:
    """Wait until the countdown is over (asked over HTTP: a socket's coming and going would
    change the table's version too)."""
    deadline = time.monotonic() + 10
    while host.call("GET", f"rooms/{room_id}/view")["status"] != "playing":
        assert time.monotonic() < deadline, "the countdown never ended"
        time.sleep(0.05)


def _version(frame: str) -> int:
    return int(re.search(r'id="table-version" data-version="(\d+)"', frame).group(1))


def _table(base: str, room_id: int, session: str, language: str):
    url = base.replace("http", "ws", 1) + f"/ws/rooms/{room_id}/table/"
    headers = {"Cookie": f"sessionid={session}", "Accept-Language": language}
    return connect(url, origin=base, additional_headers=headers, open_timeout=10)


def _flash(frame: str) -> tuple[str, str]:
    found = re.search(r'id="table-flash"[^>]*data-code="([^"]+)"[^>]*>([^<]*)<', frame)
    assert found, frame
    return found.group(1), found.group(2)


def _mini_match(live_api: str, host_name: str, guest_name: str) -> int:
    """A Mini room of the two API players, started and playing: its id."""
    host, guest = Client(live_api, host_name), Client(live_api, guest_name)
    room = host.call("POST", "rooms", {"game": "ligretto-mini", "seats": 2})["id"]
    guest.call("POST", f"rooms/{room}/join")
    host.call("POST", f"rooms/{room}/start")
    _playing(host, room)
    return room


def _hand(frame: str, seat: int) -> int | None:
    found = re.search(rf'id="lg-seat-{seat}-hand"><dt>[^<]*</dt><dd[^>]*>(\d+)<', frame)
    return int(found.group(1)) if found else None


def _answers(ws, whole: str, count: int) -> list[str]:
    """The next `count` frames that answer seat 0's own frames: a refusal, or a change of his
    hand. The room's own changes between them (the other seat, who never connects, marked
    away: a clean clone's loaded run saw it come first) are left out, in order."""
    answers, hand = [], _hand(whole, 0)
    while len(answers) < count:
        frame = ws.recv(timeout=10)
        if 'id="table-flash"' in frame or _hand(frame, 0) not in (None, hand):
            answers.append(frame)
            hand = _hand(frame, 0) or hand
    return answers


def _first(ws, wanted) -> str:
    """The first frame `wanted` accepts, those before it read and left."""
    while not wanted(frame := ws.recv(timeout=10)):
        pass
    return frame


def test_frames_sent_at_once_are_answered_after_the_whole_table_in_order(live_api):
    room = _mini_match(live_api, "frames-a", "frames-b")
    with _table(live_api, room, _session(live_api, "frames-a"), "de") as ws:
        for frame in ("[not json", FLIP):
            ws.send(frame)  # neither awaited: both on their way before the table is drawn
        whole = ws.recv(timeout=10)
        refusal, flipped = _answers(ws, whole, 2)
        ws.send(FLIP)
        (again,) = _answers(ws, flipped, 1)
    assert 'data-connected="true"' in whole
    assert _flash(refusal)[0] == "bad_json"
    # Each flip's push: a newer version, with the flipper's own waste and hand in it.
    assert _version(whole) < _version(flipped) < _version(again)
    assert 'id="me-flip"' in flipped and 'id="me-flip"' in again
    assert _hand(whole, 0) == _hand(flipped, 0) + 3 == _hand(again, 0) + 6


def test_a_spectators_move_is_refused_in_his_own_language(live_api):
    Client(live_api, "frames-eve")
    room = _mini_match(live_api, "frames-c", "frames-d")
    with _table(live_api, room, _session(live_api, "frames-eve"), "de") as ws:
        ws.send(FLIP)
        assert 'data-connected="true"' in ws.recv(timeout=10)
        # The room's own changes may come first (the seats, who never connect, marked away:
        # a clean clone's loaded run saw it); the refusal is the first flash.
        code, sentence = _flash(_first(ws, lambda frame: 'id="table-flash"' in frame))
    assert code == "spectator"
    assert sentence == "Du schaust an diesem Tisch zu; nur Spieler sind am Zug."


def _quiet(ws) -> None:
    """Read what comes until nothing has for half a second."""
    while True:
        try:
            ws.recv(timeout=0.5)
        except TimeoutError:
            return


def test_a_flip_reaches_both_seats_with_only_the_movers_own_part_in_his_frame(live_api):
    # The server writes a change's frames in a plain call (TableConsumer.deliver_now): the
    # mover's frame has his own part before the public ones, the other page's has none.
    room = _mini_match(live_api, "frames-f", "frames-g")
    with (
        _table(live_api, room, _session(live_api, "frames-f"), "en") as mover,
        _table(live_api, room, _session(live_api, "frames-g"), "en") as other,
    ):
        assert 'data-connected="true"' in mover.recv(timeout=10)
        assert 'data-connected="true"' in other.recv(timeout=10)
        _quiet(mover), _quiet(other)  # the pages' coming in changes the table too: read it
        mover.send(FLIP)
        # The room's own changes may still come first (a presence settled late: seen on this
        # machine, a bare version): the flip's frames are the mover's with his own part in it,
        # and the other page's of that version.
        mine = _first(mover, lambda frame: 'id="me-flip"' in frame)
        theirs = _first(other, lambda frame: _version(frame) >= _version(mine))
    assert _version(mine) == _version(theirs)
    assert mine.index('id="me-flip"') < mine.index('id="table-version"')
    assert 'id="me-flip"' not in theirs
