"""A shuffle anyone can check, on the live site (issue 42, docs/fairness.md).

A High Card match (the test-only game: short rounds) played through the table socket and the
Board API: no push, socket frame or API answer of a running round holds that round's server
seed or deal seed; its commitment is there before, the seeds once it is over; the client seeds
sent with "ready" are mixed in; and every round's deal, rebuilt by GET /api/v1/verify from its
revealed seed, equals the deal the replay rebuilds from the log.
"""

from __future__ import annotations

import asyncio
import json
from urllib.parse import urlencode

import pytest
from asgiref.sync import sync_to_async

from games.engine import commitment, mixed_seed
from games.registry import GAMES
from tables import fairness, replay
from tables.live import rooms
from tables.models import Match
from tests.api.helpers import Api, next_of, stream
from tests.conftest import client_for, make_user
from tests.tables.helpers import table_socket, version_of

SEEDS = {0: "alice-seed_1", 1: "BOB-2"}


def _open(alice, bob) -> tuple[int, Api]:
    host, guest = Api(alice), Api(bob)
    made = host.post("rooms", {"game": "highcard", "seats": 2, "options": {"rounds": 3}})
    assert made.status_code == 201, made.content
    room_id = made.json()["id"]
    assert guest.post(f"rooms/{room_id}/join").status_code == 200
    assert host.post(f"rooms/{room_id}/start").status_code == 200
    return room_id, guest


def _secrets(room_id: int) -> tuple[str, dict[int, int]]:
    match = Match.objects.get(room_id=room_id)
    return match.fair_secret, dict(match.rounds.values_list("number", "seed"))


async def _until(socket, version: int) -> list[str]:
    frames = []
    while True:
        frames.append(await socket.receive_from(timeout=10))
        if 'data-version="' in frames[-1] and version_of(frames[-1]) >= version:
            return frames


async def _stream_until(socket, version: int) -> list[str]:
    texts = []
    while True:
        text = await socket.receive_from(timeout=10)
        texts.append(text)
        message = json.loads(text)
        if message.get("type") == "view" and message["view"]["version"] >= version:
            return texts


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_no_seed_of_a_running_round_reaches_anyone_and_every_deal_checks_out():
    alice, bob, eve = [await sync_to_async(make_user)(n) for n in ("alice", "bob", "eve")]
    room_id, guest = await sync_to_async(_open)(alice, bob)
    load = sync_to_async(lambda: rooms.read(room_id))
    mine = await table_socket(room_id, alice)
    watcher = await table_socket(room_id, eve)
    bobs = await stream(room_id, guest.token)
    page_of = sync_to_async(lambda user: client_for(user).get(f"/rooms/{room_id}/"))
    seen: list[tuple[int, str, str]] = []  # (round, its status then, text) of everything sent
    try:
        table = await load()
        first = [await mine.receive_from(), await watcher.receive_from()]
        first.append(json.dumps(await next_of(bobs, "view")))
        seen += [(1, "playing", text) for text in first]
        view = table.view(None)
        assert view["fairness"]["commitment"] in first[0]
        committed = {1: view["fairness"]["commitment"]}
        for _ in range(80):
            table = await load()
            view = table.view(None)
            if view["status"] == "finished":
                break
            if view["status"] == "round_over":
                seat = next(s for s in (0, 1) if s not in view["ready"])
                action = {"type": "ready", "seed": SEEDS[seat]}
            else:
                seat, action = view["turn"], {"type": "play", "index": 0}
            before = table.version
            if seat == 0:
                await mine.send_to(text_data=json.dumps(action))
            else:
                answer = await sync_to_async(guest.post)(
                    f"rooms/{room_id}/actions", {"action": action}
                )
                assert answer.status_code == 200, answer.content
                seen.append((-1, "", answer.content.decode()))
            for _ in range(200):
                table = await load()
                if table.version > before:
                    break
                await asyncio.sleep(0.05)
            assert table.version > before, "the move was not applied"
            progress = table.progress
            texts = await _until(mine, table.version) + await _until(watcher, table.version)
            texts += await _stream_until(bobs, table.version)
            texts.append(
                json.dumps((await sync_to_async(guest.get)(f"rooms/{room_id}/view")).json())
            )
            page = await page_of(alice)
            assert page.status_code == 200
            texts.append(page.content.decode())
            seen += [(progress.round, progress.status, text) for text in texts]
            fair = table.view(None)["fairness"]
            committed.setdefault(fair["round"], fair["commitment"])
            if fair["next_commitment"]:
                committed.setdefault(fair["round"] + 1, fair["next_commitment"])
        else:
            raise AssertionError("the match did not end")
    finally:
        await mine.disconnect()
        await watcher.disconnect()
        await bobs.disconnect()

    secret, seeds = await sync_to_async(_secrets)(room_id)
    assert sorted(seeds) == [1, 2, 3]
    for number, seed in seeds.items():
        server = fairness.server_seed(secret, number)
        assert committed[number] == commitment(server)  # shown before the round was dealt
        for round_then, status, text in seen:
            if round_then == number and status == "playing":
                assert server not in text and str(seed) not in text, (number, text[:300])
        # After round 1, the deal seed is the server seed mixed with both players' seeds.
        clients = [] if number == 1 else sorted(SEEDS.values())
        assert seed == mixed_seed(server, clients)
        assert any(
            round_then == number and status == "round_over" and server in text
            for round_then, status, text in seen
        ), f"round {number}'s server seed was never revealed"
    # A running round's seed does not even reach the refusal of a bad move or the API answers
    # above (they are in `seen` with round -1: checked against every round).
    for _, _, text in [s for s in seen if s[0] == -1]:
        view = json.loads(text)["view"]
        fair = view["fairness"]
        if view["status"] == "playing":
            assert fair["server_seed"] is None and fair["seed"] is None

    await sync_to_async(_every_deal_checks_out)(room_id, secret, seeds)


def _every_deal_checks_out(room_id: int, secret: str, seeds: dict[int, int]) -> None:
    match = Match.objects.get(room_id=room_id)
    game = GAMES["highcard"]
    public = Api()
    for number, seed in seeds.items():
        dealt = replay.replay_round(match, number).states[0]
        clients = [] if number == 1 else sorted(SEEDS.values())
        server = fairness.server_seed(secret, number)
        query = {
            "seed": seed,
            "game": "highcard",
            "seats": 2,
            "server_seed": server,
            "client_seeds": ",".join(clients),
            "commitment": commitment(server),
        }
        answer = public.client.get("/api/v1/verify?" + urlencode(query))
        assert answer.status_code == 200, answer.content
        body = answer.json()
        assert body["cards"] == game.dealt(dealt)
        assert body["seed_matches"] is True and body["commitment_matches"] is True
