"""The daily challenge over the Board API: the day, the one attempt, a day's leaderboard."""

from __future__ import annotations

import pytest

from daily import deal as deals
from daily.models import Attempt
from games.registry import GAMES
from tables.models import Match
from tests.api.helpers import Api, error_code
from tests.conftest import client_for
from tests.daily.helpers import play_round

pytestmark = pytest.mark.django_db

TODAY = "2026-12-05"


@pytest.fixture(autouse=True)
def _frozen_day(settings):
    settings.DAILY_NOW = f"{TODAY}T12:00:00+00:00"


def _dealt(room_id: int) -> list[object]:
    """The cards dealt to each seat of a room's first round, as the engine shows them."""
    match = Match.objects.get(room_id=room_id)
    game = GAMES[match.game]
    state = game.load(match.rounds.get(number=1).state)
    return [game.player_view(state, seat)["tableaus"][seat] for seat in (0, 1)]


def test_today_says_the_deal_and_whether_you_played(alice):
    a = Api(alice)
    today = a.get("daily").json()
    assert today["date"] == TODAY and today["game"] == "ligretto-mini"
    assert today["bot_level"] == "normal" and len(today["commitment"]) == 64
    assert today["played"] is False and today["room"] is None
    assert today["revealed"] is False and today["seed"] is None and today["bot_seed"] is None
    assert today["next_deal_at"] == "2026-12-06T00:00:00Z"
    room = a.post("daily/play")
    assert room.status_code == 201, room.content
    assert room.json()["game"] == "ligretto-mini" and room.json()["rated"] is True
    again = a.get("daily").json()
    assert again["played"] is True and again["room"] == room.json()["id"]
    assert again["commitment"] == today["commitment"]


def test_two_accounts_get_the_same_deal_and_a_second_attempt_is_409(alice, bob):
    a, b = Api(alice), Api(bob)
    first, other = a.post("daily/play").json(), b.post("daily/play").json()
    assert first["id"] != other["id"]
    assert _dealt(first["id"]) == _dealt(other["id"])
    second = a.post("daily/play")
    assert second.status_code == 409 and error_code(second) == "already_played"
    body = second.json()
    assert "one attempt a day" in body["error"]["message"]
    assert body["room"] == first["id"] and body["result"].endswith(f"/rooms/{first['id']}/")
    assert Attempt.objects.filter(user=alice).count() == 1


def test_a_past_days_seed_is_revealed_and_deals_what_was_played(alice, settings):
    a = Api(alice)
    room = a.post("daily/play").json()
    assert a.get(f"daily?date={TODAY}").json()["seed"] is None  # not before the day is over
    settings.DAILY_NOW = "2026-12-06T00:00:01+00:00"
    past = a.get(f"daily?date={TODAY}").json()
    assert past["revealed"] is True and past["played"] is True and past["room"] == room["id"]
    again = deals.commitment(
        deals.date.fromisoformat(TODAY), past["game"], past["seed"], "normal", past["bot_seed"]
    )
    assert again == past["commitment"]
    game = GAMES[past["game"]]
    dealt = game.new_match(2, {"rounds": 1}, past["seed"])
    assert _dealt(room["id"]) == [game.player_view(dealt, s)["tableaus"][s] for s in (0, 1)]
    assert a.get("daily").json()["date"] == "2026-12-06"


def test_the_leaderboard_lists_finished_runs_and_their_replays_the_next_day(
    alice, bob, eve, settings
):
    for n, user in enumerate((alice, bob)):
        play_round(Api(user).post("daily/play").json()["id"], seed=n)
    board = Api(eve).get(f"daily/{TODAY}/leaderboard").json()
    assert board["revealed"] is False and board["seed"] is None
    assert sorted(e["player"] for e in board["entries"]) == ["alice", "bob"]
    assert [e["rank"] for e in board["entries"]] == [1, 2]
    assert all("replay" not in e and "room" not in e for e in board["entries"])
    keys = [(-e["points"], not e["ended_by_player"], e["duration_ms"]) for e in board["entries"]]
    assert keys == sorted(keys)

    settings.DAILY_NOW = "2026-12-06T08:00:00+00:00"
    board = Api(eve).get(f"daily/{TODAY}/leaderboard").json()
    assert board["revealed"] is True and isinstance(board["seed"], int)
    replay = board["entries"][0]["replay"]
    assert replay.endswith(f"/daily/{TODAY}/replay/{board['entries'][0]['room']}/")
    # Eve never sat there, and the room is private; the day's reveal opens its replay.
    watcher = client_for(eve)
    page = watcher.get(replay.removeprefix("http://testserver"), follow=True)
    assert page.status_code == 200
    assert page.redirect_chain[-1][0] == f"/rooms/{board['entries'][0]['room']}/replay"


def test_a_guest_plays_unranked_from_the_page_once_and_is_not_on_the_board(client, alice):
    started = client.post("/daily/play/")
    assert started.status_code == 302 and "/rooms/" in started["Location"]
    attempt = Attempt.objects.get()
    assert not attempt.ranked and not attempt.room.rated
    play_round(attempt.room_id)
    again = client.post("/daily/play/")
    assert again.status_code == 409
    assert "already played today" in again.content.decode()
    assert Api(alice).get(f"daily/{TODAY}/leaderboard").json()["entries"] == []
    # Logged out (the session emptied), the same browser is still refused a second guest.
    client.post("/accounts/logout/")
    third = client.post("/daily/play/")
    assert third.status_code == 409 and "This browser has already played" in third.content.decode()
    assert Attempt.objects.count() == 1


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("daily/2026-02-30/leaderboard", 404, "no_such_day"),
        ("daily/2026-12-06/leaderboard", 404, "no_such_day"),
        ("daily/yesterday/leaderboard", 400, None),
        ("daily?date=2027-01-01", 404, "no_such_day"),
        ("daily?date=5.12.2026", 400, None),
    ],
)
def test_a_bad_date_is_a_clear_refusal(alice, path, status, code):
    answer = Api(alice).get(path)
    assert answer.status_code == status, answer.content
    assert answer.json()["error"]["message"]
    if code is not None:
        assert error_code(answer) == code


def test_the_calls_need_a_token():
    assert Api().get("daily").status_code == 401
    assert Api().post("daily/play").status_code == 401
    assert Api().get(f"daily/{TODAY}/leaderboard").status_code == 401
