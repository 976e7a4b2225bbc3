"""Play now's pool: requests of one game and seat count meet, so two people pressing at the
same instant share one room (threads here; processes on PostgreSQL in `make test-scale`), and
the rating band starts wide for provisional ratings and widens while a room waits."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, connections
from django.utils import timezone

from games.registry import GAMES
from lobby import quickplay, services
from lobby.models import Room
from tables.models import Rating
from tests.api.helpers import Api
from tests.conftest import client_for, make_user

ROOT = Path(__file__).resolve().parents[2]
# Each request runs in a thread of its own, on its own connection: rows must be committed.
pytestmark = pytest.mark.django_db(transaction=True)

GAME_SLUGS = ["ligretto-mini", "ligretto", "allegra"]


def _at_once(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run `calls` in threads released together by a barrier; return their results."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = calls[i]()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors
    return results


def _rated(name: str, game: str, shown: int) -> Any:
    user = make_user(name)
    # Established (20 matches): shown = mu * 60 on the site's scale.
    Rating.objects.create(user=user, game=game, mu=shown / 60, sigma=2.0, matches=20)
    return user


@pytest.mark.parametrize("game", GAME_SLUGS)
def test_two_people_pressing_at_the_same_instant_get_one_room(game):
    for n in range(5):
        ana, ben = make_user(f"ana{n}"), make_user(f"ben{n}")
        rooms = _at_once([lambda u=u: quickplay.play_now(u, game) for u in (ana, ben)])
        assert rooms[0].pk == rooms[1].pk, f"run {n}: two rooms"
        room = Room.objects.get(pk=rooms[0].pk)
        assert sorted(s.user.username for s in room.seat_set.all()) == [f"ana{n}", f"ben{n}"]
        if room.seats == 2:
            assert room.status == Room.Status.PLAYING
        else:
            assert room.status == Room.Status.OPEN
            # The next pair meets afresh (nobody hosts a quick-play room: a moderator closes it).
            services.close_room(room.pk, room.host, moderator=True)
    assert Room.objects.filter(game=game).count() == 5


def test_two_board_api_clients_posting_play_at_once_get_one_room():
    callers = [Api(make_user("ana")), Api(make_user("ben"))]
    answers = _at_once([lambda c=c: c.post("play", {"game": "ligretto-mini"}) for c in callers])
    assert [a.status_code for a in answers] == [200, 200]
    ids = {a.json()["id"] for a in answers}
    assert len(ids) == 1
    assert Room.objects.get(pk=ids.pop()).status == Room.Status.PLAYING


def test_two_site_clicks_at_once_land_in_one_room():
    clients = [client_for(make_user("ana")), client_for(make_user("ben"))]
    answers = _at_once([lambda c=c: c.post("/play/allegra/") for c in clients])
    assert {a["Location"] for a in answers} == {Room.objects.get().get_absolute_url()}


def test_ratings_400_apart_meet_once_the_room_has_waited_a_few_seconds(settings):
    settings.QUICK_PLAY_BAND, settings.QUICK_PLAY_BAND_GROWTH = 300, 40
    game = "ligretto-mini"
    strong = _rated("bob", game, 1700)
    room = quickplay.play_now(strong, game)
    at_once = quickplay.play_now(_rated("alice", game, 1300), game)
    assert at_once.pk != room.pk  # 400 apart and nobody waited: not yet
    Room.objects.filter(pk=room.pk).update(created_at=timezone.now() - timedelta(seconds=3))
    later = quickplay.play_now(_rated("dave", game, 1300), game)
    assert later.pk == room.pk and later.status == Room.Status.PLAYING  # 300 + 3 x 40 > 400


def test_a_provisional_rating_starts_with_a_wide_band(settings):
    # After one match: 1658? and 1342? (the numbers) still meet at once.
    game = "ligretto-mini"
    ana, ben = make_user("ana"), make_user("ben")
    Rating.objects.create(user=ana, game=game, mu=1658 / 60, sigma=7.0, matches=1)
    Rating.objects.create(user=ben, game=game, mu=1342 / 60, sigma=7.0, matches=1)
    room = quickplay.play_now(ana, game)
    assert quickplay.play_now(ben, game).pk == room.pk


def test_the_quick_play_seats_come_from_each_games_registry_entry():
    for slug, game in GAMES.items():
        seats = quickplay.seats_for(slug)
        assert game.min_seats <= seats <= game.max_seats
        assert seats == (game.quick_play_seats or game.min_seats)
    assert quickplay.seats_for("ligretto") == 4


def test_the_lobby_and_the_room_page_show_who_waits_and_for_how_long():
    ana = make_user("ana")
    ben, cat = client_for(make_user("ben")), client_for(make_user("cat"))
    room = quickplay.play_now(ana, "ligretto")
    set_at = timezone.now()
    Room.objects.filter(pk=room.pk).update(created_at=set_at - timedelta(seconds=75))
    room.seat_set.update(joined_at=set_at - timedelta(seconds=75))
    lobby = ben.get("/").content.decode()
    page = cat.get(room.get_absolute_url()).content.decode()
    # The label counts on while the pages are drawn (a loaded machine may take a second or two):
    # 1:15, or the seconds that passed since the wait was set.
    passed = int((timezone.now() - set_at).total_seconds())
    shown = [f"1:{15 + s:02d}" for s in range(passed + 1)]
    assert f'id="waiting-{room.pk}"' in lobby and any(label in lobby for label in shown)
    assert 'id="waiting-seat-0"' in page and "ana" in page
    assert any(label in page for label in shown), shown


@pytest.mark.scale
def test_two_processes_pressing_at_once_get_one_room():
    assert connection.vendor == "postgresql", "set DATABASE_URL to a PostgreSQL database"
    for name in ("ana", "ben"):
        make_user(name)
    db = settings.DATABASES["default"]
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    start = timezone.now().timestamp() + 4  # both interpreters are up by then
    script = (
        "import time; from django.contrib.auth.models import User; from lobby import quickplay;"
        "user = User.objects.get(username='{name}');"
        f"time.sleep(max(0, {start} - time.time()));"
        "print(quickplay.play_now(user, 'allegra').pk)"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "manage.py", "shell", "--no-imports", "-c", script.format(name=n)],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": url},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in ("ana", "ben")
    ]
    outputs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    ids = {out.strip().splitlines()[-1] for out, _ in outputs}
    assert len(ids) == 1 and Room.objects.filter(game="allegra").count() == 1
