"""API play over HTTP: views, actions and refusals, the score sheet, and the browser's table
seeing the same match (a move in one appears live in the other)."""

from __future__ import annotations

import json
import re
import time

import pytest
from asgiref.sync import sync_to_async

from games.ligretto.rules import UNBLOCKED
from tables.live import rooms
from tables.models import RoundScore
from tests.api.helpers import Api, error_code
from tests.conftest import make_user
from tests.tables.helpers import card, set_state, started_room, table_socket

VIEW_FIELDS = {
    "room", "game", "status", "round", "version", "seat",
    "players", "legal", "scores", "message",
}  # fmt: skip


def _layout(data):
    """Seat 0: a red 4 and a red 7 on his row; the centre: one red pile topped by a 3."""
    for seat, player in enumerate(data["players"]):
        player["row"][0] = [card("red", 4, seat)]
        player["row"][1] = [card("red", 7, seat)]
        player["row"][2] = [card("green", 1, seat)]
    data["center"] = [
        {"color": "red", "cards": [card("red", v, 0) for v in (1, 2, 3)], "closed": False}
    ]
    data.update(status="playing", scores=[], ready=[], end_reason=None, end_message=None)
    return data


def _last_stack_card(data):
    """Seat 0's stack is one yellow 1: playing it empties the stack and ends the round (L13)."""
    data = _layout(data)
    data["players"][0]["stack"] = [card("yellow", 1, 0)]
    return data


@pytest.fixture
def table(alice, bob):
    room = started_room(alice, [bob])
    set_state(room.pk, _layout)
    return room


def test_each_seat_and_a_spectator_get_their_view(alice, bob, eve, table):
    mine = Api(alice).get(f"rooms/{table.pk}/view")
    assert mine.status_code == 200
    view = mine.json()
    assert set(view) >= VIEW_FIELDS and {"center", "tableaus"} <= set(view)
    assert view["seat"] == 0 and view["room"] == table.pk and view["game"] == "ligretto-mini"
    assert view["status"] == "playing" and view["round"] == 1
    # A deal that starts at a standstill is unblocked at once (L14+), and the view says so,
    # with the count when it took more than once (a clean clone's deal took 2).
    counted = re.fullmatch(re.escape(UNBLOCKED[:-1]) + r" \(\d+ times\)\.", view["message"] or "")
    assert view["message"] in (None, UNBLOCKED) or counted
    assert {"type": "flip"} in view["legal"]
    assert [(p["seat"], p["name"], p["bot"]) for p in view["players"]] == [
        (0, "alice", False),
        (1, "bob", False),
    ]
    assert Api(bob).get(f"rooms/{table.pk}/view").json()["seat"] == 1
    watching = Api(eve).get(f"rooms/{table.pk}/view").json()
    assert watching["seat"] is None and watching["legal"] == []
    # Nobody's view holds hidden cards: hands are counts only.
    assert all("hand" not in t for t in view["tableaus"])


def test_a_view_before_the_start_or_of_no_room_is_refused(alice):
    room = Api(alice).post("rooms", {"game": "ligretto", "seats": 2}).json()
    early = Api(alice).get(f"rooms/{room['id']}/view")
    assert early.status_code == 409 and error_code(early) == "not_started"
    assert error_code(Api(alice).get("rooms/999999/view")) == "no_such_room"
    acting = Api(alice).post(f"rooms/{room['id']}/actions", {"action": {"type": "flip"}})
    assert acting.status_code == 409 and error_code(acting) == "not_started"


def test_an_action_answers_the_next_view(alice, table):
    before = rooms.read(table.pk).version
    response = Api(alice).post(
        f"rooms/{table.pk}/actions", {"action": {"type": "play", "from": "row", "index": 0}}
    )
    assert response.status_code == 200
    view = response.json()["view"]
    assert view["version"] == before + 1
    assert view["center"][0]["top"] == 4 and view["center"][0]["count"] == 4
    assert view["tableaus"][0]["in_center"] == 4  # the red 1, 2, 3 below were seat 0's too


def test_a_refused_action_answers_409_with_the_view(alice, table):
    api = Api(alice)
    version = rooms.read(table.pk).version
    misfit = api.post(
        f"rooms/{table.pk}/actions", {"action": {"type": "play", "from": "row", "index": 1}}
    )
    assert misfit.status_code == 409 and error_code(misfit) == "does_not_fit"
    assert misfit.json()["view"]["version"] == version and misfit.json()["view"]["seat"] == 0
    pile = api.post(
        f"rooms/{table.pk}/actions",
        {"action": {"type": "play", "from": "row", "index": 0, "pile": 9}},
    )
    assert pile.status_code == 409 and error_code(pile) == "no_such_pile"
    assert rooms.read(table.pk).version == version  # nothing was written


def test_a_malformed_action_is_400(alice, table):
    api = Api(alice)
    for body in ({"action": "flip"}, {"action": {"kind": "flip"}}, {}):
        response = api.post(f"rooms/{table.pk}/actions", body)
        assert response.status_code == 400 and error_code(response) == "bad_action"
    typed = api.post(
        f"rooms/{table.pk}/actions", {"action": {"type": "play", "from": "row", "index": "x"}}
    )
    assert typed.status_code == 400 and error_code(typed) == "bad_action"


def test_a_spectator_cannot_act(eve, table):
    response = Api(eve).post(f"rooms/{table.pk}/actions", {"action": {"type": "flip"}})
    assert response.status_code == 403 and error_code(response) == "not_seated"


def test_actions_are_limited_with_retry_after(alice, table, settings):
    settings.API_ACTIONS_PER_USER = 2
    api = Api(alice)
    for _ in range(2):
        flip = api.post(f"rooms/{table.pk}/actions", {"action": {"type": "flip"}})
        assert flip.status_code == 200
    third = api.post(f"rooms/{table.pk}/actions", {"action": {"type": "flip"}})
    assert third.status_code == 429 and error_code(third) == "too_many_requests"
    assert int(third["Retry-After"]) == settings.API_ACTION_WINDOW


def test_the_score_sheet_has_rows_totals_and_winners(alice, bob, table):
    api = Api(alice)
    empty = api.get(f"rooms/{table.pk}/scores").json()
    assert empty["rounds"] == [] and empty["winners"] is None and empty["totals"] == [0, 0]
    set_state(table.pk, _last_stack_card)
    ended = api.post(
        f"rooms/{table.pk}/actions", {"action": {"type": "play", "from": "stack"}}
    ).json()["view"]
    assert ended["status"] == "round_over" and ended["message"].startswith("Round 1 is over")
    assert {"type": "ready"} in ended["legal"]
    api.post(f"rooms/{table.pk}/actions", {"action": {"type": "ready"}})
    twice = api.post(f"rooms/{table.pk}/actions", {"action": {"type": "ready"}})
    assert twice.status_code == 409 and error_code(twice) == "already_ready"
    last = Api(bob).post(f"rooms/{table.pk}/actions", {"action": {"type": "ready"}}).json()
    assert last["view"]["status"] == "finished"  # Mini: one round by default
    sheet = Api(bob).get(f"rooms/{table.pk}/scores")
    assert sheet.status_code == 200
    sheet = sheet.json()
    # L15: +1 per own card in the centre, -2 per card left in the stack.
    expected = [t["in_center"] - 2 * t["stack_count"] for t in ended["tableaus"]]
    assert sheet["rounds"] == [{"round": 1, "points": expected, "reason": "stack_empty"}]
    assert sheet["totals"] == expected == ended["scores"][0]["points"]
    assert sheet["winners"] == [0] and sheet["status"] == "finished"
    rows = RoundScore.objects.filter(round__match__room=table).order_by("seat")
    assert [r.points for r in rows] == expected
    assert error_code(api.get("rooms/999999/scores")) == "no_such_room"


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_api_and_the_browser_see_the_same_moves_live():
    alice, bob = [await sync_to_async(make_user)(n) for n in ("alice", "bob")]
    room = await sync_to_async(started_room)(alice, [bob])
    await sync_to_async(set_state)(room.pk, _layout)
    browser = await table_socket(room.pk, bob)  # bob plays in the browser
    while not await browser.receive_nothing(timeout=0.2):
        await browser.receive_from()
    api = await sync_to_async(Api)(alice)

    # A move over the API reaches bob's page at once...
    answer = await sync_to_async(api.post)(
        f"rooms/{room.pk}/actions", {"action": {"type": "play", "from": "row", "index": 0}}
    )
    version = answer.json()["view"]["version"]
    frame = await browser.receive_from(timeout=3)
    assert f'data-version="{version}"' in frame and 'aria-label="red 4"' in frame

    # ...and bob's move in the browser is in alice's next API view.
    await browser.send_to(text_data=json.dumps({"type": "play", "from": "row", "index": "2"}))
    await browser.receive_from(timeout=3)
    view = (await sync_to_async(api.get)(f"rooms/{room.pk}/view")).json()
    assert view["version"] == version + 1
    assert [(p["color"], p["top"]) for p in view["center"]] == [("red", 4), ("green", 1)]
    await browser.disconnect()


# Round 2 of this seed's two-seat Ligretto Mini match is deadlocked as dealt (L14+; found by
# searching seeds after the e2e test met one).
DEAD_DEAL_SEED = 43586


def test_a_deal_that_ends_at_once_is_scored_as_its_own_round(alice, bob):
    room = started_room(alice, [bob], rounds=2)

    def round_one_over(data):
        data.update(
            seed=DEAD_DEAL_SEED,
            status="round_over",
            scores=[[3, -4]],
            ready=[0],
            end_reason="stack_empty",
            end_message="Round 1 is over.",
        )
        return data

    set_state(room.pk, round_one_over)
    answer = Api(bob).post(f"rooms/{room.pk}/actions", {"action": {"type": "ready"}})
    assert answer.status_code == 200
    view = answer.json()["view"]
    # L14+: the new deal is deadlocked, so round 2 ends as it is dealt and is scored.
    assert view["round"] == 2 and view["status"] == "round_over"
    assert len(view["scores"]) == 2 and "no card of any player fits" in view["message"]
    sheet = Api(alice).get(f"rooms/{room.pk}/scores").json()
    assert sheet["rounds"][-1]["round"] == 2
    assert sheet["rounds"][-1]["points"] == view["scores"][1]["points"]
    assert sheet["rounds"][-1]["reason"] == "deadlock"


def test_a_play_a_paced_table_queues_no_more_of_is_refused_with_when_to_try_again(
    alice, bob, table, monkeypatch
):
    # The write path's own refusal (the room path that raises it: tests/tables/test_pacing.py):
    # a seat's play waits for its turn already, so the next one is refused for now.
    from api import views
    from tables.pacing import Pacer

    def queued(*args, **kwargs):
        pacer = Pacer()
        pacer.played_at[0] = time.time() - 1.6  # 0.4 s before its next play may come
        pacer.queue(0)  # one play of the seat waits for it
        pacer.turn(0, 2.0, queued=False)

    monkeypatch.setattr(views.play, "act", queued)
    response = Api(alice).post(f"rooms/{table.pk}/actions", {"action": {"type": "flip"}})
    assert response.status_code == 429 and error_code(response) == "pace_queued"
    assert response["Retry-After"] == "3"  # the waiting play's 0.4 s, then one pace of 2 s
    assert response.json()["view"]["seat"] == 0
