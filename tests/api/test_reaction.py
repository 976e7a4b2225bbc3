"""The reaction-time check end to end (issue 42): a scripted Board API player that answers every
view 80 ms after it came is flagged within 50 plays against a running Daphne, and is then
refused a rated event (a tournament) and a rated room; an ordinary account is not."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from games.ligretto import bots as ligretto_bots
from tests.api.client import Client

pytestmark = pytest.mark.any_store

REACTION = 0.08  # seconds from a view to the next play


def _clicker_plays(clicker: Client, plays: int) -> int:
    """Play unrated Ligretto Mini against a bot over HTTP, each play 80 ms after the view it
    answers; return how many plays were sent (a match that ends is followed by another)."""
    rng = random.Random(5)
    sent = 0
    while sent < plays:
        room = clicker.call(
            "POST",
            "rooms",
            {"game": "ligretto-mini", "seats": 2, "rated": False, "options": {"rounds": 20}},
        )
        clicker.call("POST", f"rooms/{room['id']}/bots", {"count": 1, "level": "easy"})
        assert clicker.call("POST", f"rooms/{room['id']}/start")["status"] == "playing"
        view = clicker.call("GET", f"rooms/{room['id']}/view")
        idle = 0
        while sent < plays and view["status"] != "finished" and idle < 400:
            action, _ = ligretto_bots.choose(view, "normal", rng)
            time.sleep(REACTION)  # the auto-clicker's whole thought
            if action is None:  # nothing to play: look again
                view, idle = clicker.call("GET", f"rooms/{room['id']}/view"), idle + 1
                continue
            answer: dict[str, Any] = clicker.call(
                "POST", f"rooms/{room['id']}/actions", {"action": action}
            )
            if action["type"] != "ready":
                sent += 1
            view = answer.get("view") or clicker.call("GET", f"rooms/{room['id']}/view")
    return sent


@pytest.mark.timeout(300)
def test_an_api_player_answering_in_80_ms_is_flagged_within_50_plays(live_api):
    host = Client(live_api, "rt_host")
    clicker, other = Client(live_api, "rt_clicker"), Client(live_api, "rt_other")
    event = host.call(
        "POST",
        "tournaments",
        {"game": "ligretto-mini", "seats": 2, "format": "swiss", "rounds": 1, "starts_in": 3600},
    )
    assert "id" in event, event
    rated = host.call("POST", "rooms", {"game": "ligretto", "seats": 4})
    assert "id" in rated, rated

    assert _clicker_plays(clicker, 50) == 50

    # The flag is written beside the plays, in tens: by the 50th it is there (the samples of
    # the last plays may still be on their way to the database when the answer comes).
    refusal: dict[str, Any] = {}
    for _ in range(100):
        refusal = clicker.call("POST", f"tournaments/{event['id']}/join")
        if refusal.get("error", {}).get("code") == "held_out":
            break
        time.sleep(0.05)
    assert refusal.get("status") == 403 and refusal["error"]["code"] == "held_out", refusal
    assert "reaction times" in refusal["error"]["message"]
    joined = clicker.call("POST", f"rooms/{rated['id']}/join")
    assert joined["status"] == 403 and joined["error"]["code"] == "held_out", joined
    # An ordinary account enters both.
    assert other.call("POST", f"tournaments/{event['id']}/join").get("status") != 403
    assert "error" not in other.call("POST", f"rooms/{rated['id']}/join")
