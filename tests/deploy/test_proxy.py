"""deploy/nginx.conf in front of two real Daphne processes on the real PostgreSQL and Redis.

The configuration operators get (tests/proxy.py changes only its ports and paths) is checked
by `nginx -t`, then run: a room's table page, its table socket, its API calls and its API stream
all land on one process, the one that holds the room's lease; while one process is stopped
(SIGTERM, as a rolling deploy does), every request, those for its rooms included, is served by
the other (a refused connection, then a retry: never a 502); once it is back on its port, its
rooms' requests reach it again. Which process served a request is read from the proxy's access
log ($upstream_addr). Run by `make test-scale` (fails, never skips, without nginx or the
services).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import websockets
from django.conf import settings
from django.db import connection
from django.test import Client

from api.models import ApiToken
from lobby import services
from tables.models import ActionLog, Match
from tests.conftest import make_user
from tests.devserver import free_port
from tests.proxy import Access, Proxy, Site, check_config, running_proxy, site_processes

pytestmark = [pytest.mark.scale, pytest.mark.django_db(transaction=True)]

ORIGIN = "http://localhost"


@dataclass
class Deployment:
    proxy: Proxy
    sites: list[Site]

    def site(self, address: str) -> Site:
        return next(s for s in self.sites if s.address == address)


@pytest.fixture
def deployment(tmp_path) -> Iterator[Deployment]:
    assert connection.vendor == "postgresql", "set DATABASE_URL to a PostgreSQL database"
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"].startswith("channels_redis"), "REDIS_URL"
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "BOT_PACE": "0",
        "LEAVER_GRACE": "300",
        "TABLE_COUNTDOWN": "0",
        "DRIVER_LEASE": "2",
        "MOVE_FORWARD_TIMEOUT": "1",
        "API_ACTIONS_PER_USER": "1000000",
    }
    with (
        site_processes(env, tmp_path / "sites") as sites,
        running_proxy([s.port for s in sites], tmp_path / "nginx") as proxy,
    ):
        for site in sites:  # a process starts its driver and inbox with its first request
            _get(f"http://127.0.0.1:{site.port}/")
        yield Deployment(proxy, sites)


# --------------------------------------------------------------------------- helpers


@dataclass
class Player:
    token: str
    session: str


def _player(name: str) -> tuple[Any, Player]:
    user = make_user(name)
    client = Client()
    client.force_login(user)
    return user, Player(ApiToken.objects.issue(user, "proxy")[1], client.cookies["sessionid"].value)


def _get(url: str, player: Player | None = None) -> int:
    headers = {"Cookie": f"sessionid={player.session}"} if player else {}
    return _call(urllib.request.Request(url, headers=headers))


def _api(proxy: Proxy, room_id: int, player: Player, call: str, body: Any = None) -> int:
    """A Board API call on a room through the proxy (a POST when there is a body)."""
    request = urllib.request.Request(
        f"{proxy.url}/api/v1/rooms/{room_id}{call}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {player.token}", "Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    return _call(request)


def _call(request: urllib.request.Request) -> int:
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            answer.read()
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


def _wait(condition: Callable[[], bool], what: str, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def _of_room(accesses: list[Access], room_id: int) -> list[Access]:
    return [a for a in accesses if re.search(rf"/rooms/{room_id}(?:[/?]|$)", a.path)]


def _accesses(proxy: Proxy, room_id: int) -> list[Access]:
    return _of_room(proxy.accesses(), room_id)


def _rooms_on_each_process(deployment: Deployment) -> dict[str, tuple[int, Player]]:
    """One room of two players hashed to each process: {address: (room id, its host)}.

    The hash is on the room's number and the processes' addresses (free ports, new each run),
    so rooms are opened until each process has one, its process told by the proxy's log.
    """
    found: dict[str, tuple[int, Player]] = {}
    for n in range(40):
        host, player = _player(f"host{n}")
        room = services.create_room(host, "ligretto-mini", 2)
        services.join_room(room.pk, make_user(f"guest{n}"))
        assert _get(f"{deployment.proxy.url}/rooms/{room.pk}/") == 200
        # nginx logs a request just after answering it.
        _wait(lambda r=room.pk: len(_accesses(deployment.proxy, r)) == 1, "not logged")
        (access,) = _accesses(deployment.proxy, room.pk)
        found.setdefault(access.served_by, (room.pk, player))
        if len(found) == len(deployment.sites):
            return found
    raise AssertionError("40 rooms, all hashed to one process")


def _driver_pid(room_id: int) -> int:
    driver = Match.objects.get(room_id=room_id).driver
    return int(driver.split(":")[1]) if driver else 0


async def _first_frame(url: str, wanted: Callable[[str], bool], player: Player) -> str:
    """Open a socket through the proxy and return its first frame that is `wanted`."""
    headers = {"Cookie": f"sessionid={player.session}"}
    async with websockets.connect(
        url, origin=ORIGIN, additional_headers=headers, max_size=None, open_timeout=10
    ) as ws:
        while True:
            frame = str(await asyncio.wait_for(ws.recv(), timeout=10))
            if wanted(frame):
                return frame


def _sockets(proxy: Proxy, room_id: int, player: Player) -> None:
    """The room's table socket and its API stream, through the proxy: each sends the table."""
    ws = proxy.url.replace("http://", "ws://")

    async def both() -> None:
        table = f"{ws}/ws/rooms/{room_id}/table/"
        await _first_frame(table, lambda frame: 'id="table-version"' in frame, player)
        stream = f"{ws}/ws/api/v1/rooms/{room_id}/?token={player.token}"
        await _first_frame(stream, lambda frame: json.loads(frame)["type"] == "view", player)

    asyncio.run(both())


def _everything_of_a_room(proxy: Proxy, room_id: int, player: Player) -> None:
    """The table page, a view and a move over the API, the table socket and the API stream."""
    assert _get(f"{proxy.url}/rooms/{room_id}/", player) == 200
    assert _api(proxy, room_id, player, "/view") == 200
    assert _api(proxy, room_id, player, "/actions", {"action": {"type": "flip"}}) == 200
    _sockets(proxy, room_id, player)


# --------------------------------------------------------------------------- tests


def test_the_documented_configuration_passes_nginx_t(tmp_path):
    with running_proxy([free_port(), free_port()], tmp_path) as proxy:
        said = check_config(proxy)
    assert "syntax is ok" in said
    assert "test is successful" in said


def test_an_api_call_no_process_answers_gets_the_apis_own_json(tmp_path):
    # Nothing listens on either port: nginx answers itself (its 502), in the API's shape.
    with running_proxy([free_port(), free_port()], tmp_path) as proxy:
        action = json.dumps({"action": {"type": "flip"}}).encode()
        request = urllib.request.Request(
            f"{proxy.url}/api/v1/rooms/1/actions", data=action, method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=15)
        assert refused.value.code == 503
        assert refused.value.headers["Content-Type"] == "application/json"
        assert refused.value.headers["Retry-After"] == "1"
        assert json.loads(refused.value.read())["error"]["code"] == "unavailable"
        # A page is not the API's: nginx's own 502 page.
        with pytest.raises(urllib.error.HTTPError) as page:
            urllib.request.urlopen(f"{proxy.url}/rooms/1/", timeout=15)
        assert page.value.code == 502
        assert page.value.headers["Content-Type"].startswith("text/html")


def test_a_rooms_page_sockets_and_api_land_on_the_process_that_owns_it(deployment):
    proxy = deployment.proxy
    for address, (room_id, host) in _rooms_on_each_process(deployment).items():
        owner = deployment.site(address)
        # Started through the proxy: the process the hash picks starts the match and holds
        # its lease from the start.
        assert _api(proxy, room_id, host, "/start", {}) == 200
        assert _driver_pid(room_id) == owner.pid
        _everything_of_a_room(proxy, room_id, host)
        # A socket is logged once it is closed.
        _wait(lambda r=room_id: len(_accesses(proxy, r)) == 7, "the sockets were not logged")
        served = _accesses(proxy, room_id)
        assert {a.upstreams for a in served} == {(owner.address,)}, served
        assert {a.path.split("?")[0] for a in served} == {
            f"/rooms/{room_id}/",
            f"/api/v1/rooms/{room_id}/start",
            f"/api/v1/rooms/{room_id}/view",
            f"/api/v1/rooms/{room_id}/actions",
            f"/ws/rooms/{room_id}/table/",
            f"/ws/api/v1/rooms/{room_id}/",
        }
        # It still holds the lease, and applied the move itself (none was forwarded).
        assert _driver_pid(room_id) == owner.pid
        logged = ActionLog.objects.filter(match__room_id=room_id)
        _wait(logged.exists, "the move was never logged")
        assert [int(d.split(":")[1]) for d in logged.values_list("driver", flat=True)] == [
            owner.pid
        ]
    assert "no live upstreams" not in proxy.errors()


def test_while_one_process_is_stopped_the_other_serves_everything(deployment):
    proxy = deployment.proxy
    rooms = _rooms_on_each_process(deployment)
    logged = len(proxy.accesses()) + len(rooms)
    for room_id, host in rooms.values():
        assert _api(proxy, room_id, host, "/start", {}) == 200
    _wait(lambda: len(proxy.accesses()) == logged, "the starts were not logged")
    stopped, running = deployment.sites
    room_id, host = rooms[stopped.address]
    assert _driver_pid(room_id) == stopped.pid

    stopped.stop()  # SIGTERM, as a rolling deploy stops a process (not restarted yet)
    # It hands its rooms over as it stops; the other claims them.
    _wait(lambda: _driver_pid(room_id) == running.pid, "the running process never claimed")
    for _ in range(10):  # requests without a room spread by request id: both processes
        assert _get(f"{proxy.url}/") == 200
    _everything_of_a_room(proxy, room_id, host)
    other_room, other_host = rooms[running.address]
    assert _api(proxy, other_room, other_host, "/view") == 200

    _wait(lambda: len(proxy.accesses()) == logged + 16, "the sockets were not logged")
    while_stopped = proxy.accesses()[logged:]
    assert [a for a in while_stopped if a.status >= 500] == []
    assert {a.served_by for a in while_stopped} == {running.address}
    # Every request for its room was refused by the stopped process, then served by the other:
    # one retry each (the POSTed move too: a refused connection sent nothing).
    for access in _of_room(while_stopped, room_id):
        assert access.upstreams == (stopped.address, running.address), access
        assert access.upstream_statuses[0] == "502", access
    errors = proxy.errors()
    assert "no live upstreams" not in errors
    assert "Connection refused" in errors

    stopped.start()  # on the same port
    _get(f"http://127.0.0.1:{stopped.port}/")  # its driver and inbox start
    logged = len(proxy.accesses())
    assert _get(f"{proxy.url}/rooms/{room_id}/", host) == 200
    assert _api(proxy, room_id, host, "/view") == 200
    # Its room is the other's now (it claimed the lease): the move is forwarded there.
    assert _api(proxy, room_id, host, "/actions", {"action": {"type": "flip"}}) == 200
    _wait(lambda: len(proxy.accesses()) == logged + 3, "the requests were not logged")
    back = proxy.accesses()[logged:]
    assert [a.upstreams for a in back] == [(stopped.address,)] * 3
    assert "no live upstreams" not in proxy.errors()
