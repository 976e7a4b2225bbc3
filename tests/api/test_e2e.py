"""Whole matches against a running Daphne: two API clients (one acting over HTTP, one over the
stream) play Ligretto Mini to its end, and 3-seat Allegra with a bot; the score sheet agrees
with the rules (L15; A8, A9) and with what the players saw."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from games.allegra import bots as allegra_bots
from games.ligretto import bots as ligretto_bots
from tests.api.client import Client

pytestmark = pytest.mark.any_store


def _play_all(clients: list[Client], room_id: int, choose: Any) -> list[list[dict[str, Any]]]:
    results: list[list[dict[str, Any]]] = [[] for _ in clients]
    failures: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = clients[i].play(room_id, choose, over_http=i == 1, seed=i)
        except BaseException as failure:  # reported below, in the test's own thread
            failures.append(failure)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert not failures, failures
    assert all(not t.is_alive() for t in threads)
    return results


def _round_ends(views: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The first view each seen round ended in (the table as it lay when it was scored)."""
    ends: dict[int, dict[str, Any]] = {}
    for view in views:
        if view["status"] in ("round_over", "finished") and view["scores"]:
            ends.setdefault(len(view["scores"]), view)
    return ends


@pytest.mark.timeout(300)
def test_two_api_clients_play_a_whole_ligretto_mini_match(live_api):
    alice, bob = Client(live_api, "alice"), Client(live_api, "bob")
    room = alice.call(
        "POST", "rooms", {"game": "ligretto-mini", "seats": 2, "options": {"rounds": 2}}
    )
    assert bob.call("POST", f"rooms/{room['id']}/join")["players"][1]["name"] == "bob"
    assert alice.call("POST", f"rooms/{room['id']}/start")["status"] == "playing"

    seen = _play_all([alice, bob], room["id"], ligretto_bots.choose)

    sheet = bob.call("GET", f"rooms/{room['id']}/scores")
    assert sheet["status"] == "finished" and len(sheet["rounds"]) == 2
    ends = _round_ends(seen[0])
    for row in sheet["rounds"]:
        end = ends[row["round"]]
        # L15: +1 per own card in the centre, -2 per card left in the Ligretto stack.
        rule = [t["in_center"] - 2 * t["stack_count"] for t in end["tableaus"]]
        assert row["points"] == rule == end["scores"][row["round"] - 1]["points"]
        assert row["reason"] in ("stack_empty", "deadlock")
    totals = [sum(r["points"][s] for r in sheet["rounds"]) for s in (0, 1)]
    assert sheet["totals"] == totals
    assert sheet["winners"] == [s for s in (0, 1) if totals[s] == max(totals)]  # L6: highest
    final = seen[0][-1]
    assert final["status"] == "finished" and [p["total"] for p in final["players"]] == totals
    assert final["message"] and seen[1][-1]["version"] == final["version"]
    assert alice.call("GET", f"rooms/{room['id']}")["status"] == "finished"


def _allegra_points(end: dict[str, Any]) -> list[int]:
    """A9: every area's sum once all is face up; the ender's doubles unless lowest (or <= 0)."""
    cells = {g["seat"]: g["cells"] for g in end["grids"]}
    sums = []
    for area in end["areas"]:
        total = 0
        for row in area["places"]:
            for place in row:
                cell = cells[place["seat"]][place["row"]][place["col"]]
                assert cell is None or "value" in cell  # everything turned face up
                total += cell["value"] if cell else 0  # removed triples score 0 (A8)
        sums.append(total)
    ender = end["ender"]
    points = list(sums)
    if ender is not None and sums[ender] > min(sums) and sums[ender] > 0:
        points[ender] = 2 * sums[ender]
    return points


@pytest.mark.timeout(300)
def test_two_api_clients_and_a_bot_play_a_whole_allegra_match(live_api):
    carol, dave = Client(live_api, "carol"), Client(live_api, "dave")
    room = carol.call("POST", "rooms", {"game": "allegra", "seats": 3, "options": {"rounds": 2}})
    dave.call("POST", f"rooms/{room['id']}/join")
    filled = carol.call("POST", f"rooms/{room['id']}/bots", {"count": 1, "level": "normal"})
    assert [p["bot"] for p in filled["players"]] == [False, False, True]
    carol.call("POST", f"rooms/{room['id']}/start")

    seen = _play_all([carol, dave], room["id"], allegra_bots.choose)

    sheet = carol.call("GET", f"rooms/{room['id']}/scores")
    assert sheet["status"] == "finished" and len(sheet["rounds"]) == 2
    ends = _round_ends(seen[1])
    for row in sheet["rounds"]:
        assert row["points"] == _allegra_points(ends[row["round"]])
    totals = [sum(r["points"][s] for r in sheet["rounds"]) for s in range(3)]
    assert sheet["totals"] == totals
    assert sheet["winners"] == [s for s in range(3) if totals[s] == min(totals)]  # lowest wins
    assert [p["name"] for p in sheet["players"]] == ["carol", "dave", "Normal bot 3"]
