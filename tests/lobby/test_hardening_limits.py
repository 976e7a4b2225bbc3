"""Sign-ups per address, rooms per host and room actions per user are limited, and say so."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from lobby import services
from lobby.models import Room
from tests.conftest import PASSWORD, client_for

User = get_user_model()
HTMX = {"HTTP_HX_REQUEST": "true"}


def sign_up(client: Client, username: str, password: str = PASSWORD):
    return client.post(
        reverse("signup"), {"username": username, "password1": password, "password2": password}
    )


def test_it_limits_sign_ups_per_address(db, settings):
    settings.SIGNUPS_PER_ADDRESS = 2
    for name in ("bob", "carol"):
        assert sign_up(Client(REMOTE_ADDR="10.0.0.1"), name).status_code == 302
    response = sign_up(Client(REMOTE_ADDR="10.0.0.1"), "dave")
    assert response.status_code == 429
    assert b"Too many accounts were made from your address recently" in response.content
    assert b'id="id_username"' in response.content  # the form is still there to try later
    assert not User.objects.filter(username="dave").exists()
    # Another address is not held up.
    assert sign_up(Client(REMOTE_ADDR="10.0.0.2"), "dave").status_code == 302


def test_refused_sign_ups_do_not_count(db, settings):
    settings.SIGNUPS_PER_ADDRESS = 1
    client = Client(REMOTE_ADDR="10.0.0.1")
    for _ in range(3):
        assert sign_up(client, "bob", "123").status_code == 400  # too weak
    assert sign_up(client, "bob").status_code == 302


def open_room(client: Client, game: str = "ligretto", seats: int = 3):
    return client.post(reverse("lobby:create"), {"game": game, "seats": seats})


def test_it_caps_the_rooms_one_user_hosts(alice, bob, settings):
    settings.ROOMS_PER_USER = 2
    client = client_for(alice)
    first = open_room(client, "ligretto-mini", 2)
    assert first.status_code == 302
    assert open_room(client).status_code == 302
    response = open_room(client)
    assert response.status_code == 409
    assert b"You already host 2 rooms that are open or being played" in response.content
    assert b'id="id_seats"' in response.content  # refused in place, on the form
    assert Room.objects.filter(host=alice).count() == 2
    # A game being played still counts; one that everyone left does not.
    mini = Room.objects.get(game="ligretto-mini")
    services.join_room(mini.pk, bob)
    services.start_room(mini.pk, alice)
    assert open_room(client).status_code == 409
    other = Room.objects.get(game="ligretto", host=alice)
    services.leave_room(other.pk, alice)
    assert open_room(client).status_code == 302
    # Bob hosts nothing, so he is not held up by alice's rooms.
    assert open_room(client_for(bob)).status_code == 302


def test_the_room_cap_holds_on_the_write_path(alice, settings):
    settings.ROOMS_PER_USER = 1
    services.create_room(alice, "ligretto", 3)
    with pytest.raises(services.RoomError) as refused:
        services.create_room(alice, "allegra", 3)
    assert refused.value.code == "too_many_rooms"
    assert refused.value.status == 409


def test_it_limits_room_actions_per_user(alice, bob, settings):
    settings.ROOM_ACTIONS_PER_USER = 4
    room = services.create_room(alice, "ligretto", 4)  # alice: 1
    client = client_for(bob)
    join, leave = reverse("lobby:join", args=[room.pk]), reverse("lobby:leave", args=[room.pk])
    for url in (join, leave, join, leave):
        assert client.post(url, **HTMX).status_code == 200
    response = client.post(join, **HTMX)
    assert response.status_code == 429
    # In place: the room's live part with the sentence, as for any refusal.
    assert b'id="room-live"' in response.content
    assert b"You are going too fast" in response.content
    assert not room.seat_set.filter(user=bob).exists()
    # Alice still has actions left.
    services.add_bots(room.pk, alice, count=1)


def test_an_action_limited_user_cannot_open_rooms_either(alice, settings):
    settings.ROOM_ACTIONS_PER_USER = 1
    client = client_for(alice)
    assert open_room(client).status_code == 302
    response = open_room(client)
    assert response.status_code == 429
    assert b"You are going too fast" in response.content


def test_a_window_counts_to_its_limit_and_starts_afresh_once_it_ends(monkeypatch):
    # Whichever cache holds the counts (this process's memory, or Redis on the scale path).
    from lobby import ratelimit

    clock = [1000.0]
    monkeypatch.setattr(ratelimit, "clock", lambda: clock[0])
    assert [ratelimit.hit("chat", 7, 2, 10) for _ in range(3)] == [True, True, False]
    assert ratelimit.hit("chat", 8, 2, 10)  # another user's window
    assert ratelimit.hit("reports", 7, 2, 10)  # another limit's
    if ratelimit._windows.local():
        clock[0] += 10  # the window ended
        assert [ratelimit.hit("chat", 7, 2, 10) for _ in range(3)] == [True, True, False]


def test_windows_counted_in_memory_are_dropped_once_ended_and_many(monkeypatch):
    from lobby import ratelimit

    windows = ratelimit._Windows()
    clock = [0.0]
    monkeypatch.setattr(ratelimit, "clock", lambda: clock[0])
    for user in range(windows.PRUNE_AT):
        windows.count(f"chat:{user}", 5)
    clock[0] = 6.0  # every one of them ended
    assert windows.count("chat:new", 5) == 1
    assert list(windows.windows) == ["chat:new"]


def test_the_counts_are_in_memory_only_with_the_local_memory_cache(settings):
    from lobby import ratelimit

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert ratelimit._windows.local()
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    assert not ratelimit._windows.local()


@pytest.mark.asyncio
async def test_the_event_loops_count_and_the_threads_fall_in_one_window():
    # The stream counts a move in the server's loop (`ahit`: on Redis a round trip the loop
    # awaits), HTTP in a thread (`hit`): one user's actions over both share his limit.
    from lobby import ratelimit

    counted = [
        ratelimit.hit("api-actions", 41, 3, 60),
        await ratelimit.ahit("api-actions", 41, 3, 60),
    ]
    counted += [
        await ratelimit.ahit("api-actions", 41, 3, 60),
        ratelimit.hit("api-actions", 41, 3, 60),
    ]
    assert counted == [True, True, True, False]
    assert not await ratelimit.ahit("api-actions", 41, 3, 60)
    assert await ratelimit.ahit("api-actions", 42, 3, 60)  # another user's window
    assert await ratelimit.ahit("chat", 41, 3, 60)  # another limit's


@pytest.mark.asyncio
async def test_a_window_counted_in_the_event_loop_ends_with_its_time(monkeypatch):
    from lobby import ratelimit

    clock = [1000.0]
    monkeypatch.setattr(ratelimit, "clock", lambda: clock[0])
    assert [await ratelimit.ahit("chat", 43, 1, 1) for _ in range(2)] == [True, False]
    if ratelimit._windows.local():
        clock[0] += 1
    else:
        await asyncio.sleep(1.1)  # Redis ends the window itself (the key's expiry)
    assert await ratelimit.ahit("chat", 43, 1, 1)


@pytest.fixture
def redis_counts(settings):
    """The counts on Redis, as several processes keep them (this machine's server; the scale
    suite's own when it runs)."""
    from lobby import ratelimit

    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    prefix = f"test-{uuid.uuid4().hex}"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": prefix,
        }
    }
    assert not ratelimit._windows.local()
    trips: list[int] = []
    count = ratelimit._redis.count

    async def counted(key: str, window: int, block: int = 1) -> tuple[int, float]:
        trips.append(block)
        return await count(key, window, block)

    # The real round trip, counted (not replaced).
    ratelimit._redis.count = counted  # type: ignore[method-assign]
    try:
        yield trips
    finally:
        del ratelimit._redis.count


@pytest.mark.asyncio
async def test_the_event_loop_counts_on_redis_a_block_at_a_time_and_never_over_the_limit(
    redis_counts,
):
    from lobby import ratelimit

    allowed = [await ratelimit.ahit("api-actions", 51, 100, 60) for _ in range(130)]
    assert allowed == [True] * 100 + [False] * 30
    # A round trip per tenth of the limit (and one for each refusal: nothing is held then).
    assert redis_counts[:10] == [10] * 10 and len(redis_counts) == 10 + 30
    # Another user's window, and another limit's, are their own.
    assert await ratelimit.ahit("api-actions", 52, 100, 60)
    assert await ratelimit.ahit("chat", 51, 100, 60)


@pytest.mark.asyncio
async def test_http_and_the_event_loop_on_redis_share_the_limit_exactly(redis_counts):
    from lobby import ratelimit

    http = [ratelimit.hit("api-actions", 53, 100, 60) for _ in range(5)]
    loop = [await ratelimit.ahit("api-actions", 53, 100, 60) for _ in range(100)]
    assert http == [True] * 5 and loop.count(True) == 95 and loop[-5:] == [False] * 5
    assert not ratelimit.hit("api-actions", 53, 100, 60)  # the window is full for both
    # What a process holds unused counts already: HTTP gets the limit less the held block.
    assert await ratelimit.ahit("api-actions", 54, 100, 60)
    http = [ratelimit.hit("api-actions", 54, 100, 60) for _ in range(100)]
    assert http.count(True) == 90


@pytest.mark.asyncio
async def test_a_block_held_in_the_event_loop_ends_with_its_window(redis_counts, monkeypatch):
    from lobby import ratelimit

    clock = [1000.0]
    monkeypatch.setattr(ratelimit, "clock", lambda: clock[0])
    assert await ratelimit.ahit("chat", 55, 20, 1)  # a block of 2: one held
    clock[0] += 1.5  # the window ended: what was held goes with it
    await asyncio.sleep(1.1)  # and Redis ended it too (the key's expiry)
    trips = len(redis_counts)
    assert await ratelimit.ahit("chat", 55, 20, 1)
    assert len(redis_counts) == trips + 1  # asked again, not taken from the old block
