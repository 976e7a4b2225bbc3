"""Your data: the export holds a row of every model of user data; deletion keeps the others'
games whole but the name, refuses the sign-in and the tokens; only the owner reaches either."""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from datetime import timedelta

import pytest
from django.apps import apps
from django.conf import settings as django_settings
from django.utils import timezone

from api.models import ApiToken
from chat import services as chat
from chat.models import ChatMessage
from daily import services as daily_services
from lobby import services as lobby
from lobby.models import Profile, Room
from moderation.models import Mute, Report
from social import data, invitations, notify, services
from social.models import Export, PushSubscription, Settings
from tables import play
from tables.models import ActionLog, Match, Player, Rating, RatingChange, Round, RoundScore
from tests.api.helpers import Api
from tests.conftest import PASSWORD, client_for
from tests.history.factories import played_match
from tests.tables.helpers import started_room
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db


def unzip(archive: bytes) -> dict[str, object]:
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        return {
            name.removesuffix(".json"): json.loads(z.read(name))
            if name.endswith(".json")
            else z.read(name).decode()
            for name in z.namelist()
        }


def test_every_model_that_points_at_a_user_is_exported_or_named_as_not_his():
    user_model = django_settings.AUTH_USER_MODEL
    holders = {
        model._meta.label
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if field.is_relation
        and field.concrete
        and field.related_model is not None
        and field.related_model._meta.label == user_model
    }
    missing = holders - data.covered() - set(data.NOT_HIS)
    assert not missing, f"export these (social.data.register) or name them in NOT_HIS: {missing}"


def test_the_export_holds_a_row_of_every_kind_of_his_data(alice, bob, carol):
    room = started_room(alice, [bob], game="ligretto-mini", rounds=1)
    play.act(room.pk, 0, {"type": "flip"})  # his move
    chat.post(room.pk, alice, "alice says hi")
    chat.post(room.pk, bob, "bob answers")  # the other side, as he saw it
    Profile.objects.create(user=alice, language="de")
    notify.save_routes(alice, {"invitation": {"site": True}, "friend_request": {"site": True}})
    finished = played_match("ligretto", [alice, bob], [[3, 1]])
    Rating.objects.create(user=alice, game="ligretto", mu=26.0, sigma=7.0, matches=1)
    RatingChange.objects.create(
        match=finished,
        user=alice,
        game="ligretto",
        rank=1,
        mu_before=25,
        sigma_before=8,
        mu_after=26,
        sigma_after=7,
    )
    Report.objects.create(reporter=alice, reported=carol, room=room, reason="rude words")
    Mute.objects.create(
        user=alice, by=carol, until=timezone.now() + timedelta(hours=1), reason="shouting"
    )
    services.ask(alice, bob)
    services.accept(bob, alice)
    services.block(alice, carol)
    services.ask(carol, bob)
    services.unblock(alice, carol)
    open_room = Room.objects.create(game="ligretto", seats=3, host=alice)
    open_room.seat_set.create(index=0, user=alice)
    invitations.invite(alice, bob, open_room.pk)
    services.ask(carol, alice)  # a notification of his
    PushSubscription.objects.create(
        user=alice, endpoint="https://push.invalid/a", p256dh="k", auth="a"
    )
    ApiToken.objects.issue(alice, "my bot")
    event = tournament_services.create(bob, "ligretto-mini", 2, "swiss", rounds=1, starts_in=60)
    tournament_services.join(event.pk, alice)
    mine = tournament_services.create(alice, "ligretto", 4, "swiss", rounds=2, starts_in=60)
    attempt = daily_services.play(alice)

    files = unzip(data.build(alice))
    assert "Your data from cardgames" in files["README.txt"]
    assert files["account"]["username"] == "alice"
    assert (
        files["profile"]["language"] == "de"
        and files["profile"]["notification_routes"]["invitation"]["site"]
    )
    assert (
        files["ratings"][0]["mu"] == 26.0 and files["rating_history"][0]["match_id"] == finished.pk
    )
    matches = {m["match"]: m for m in files["matches"]}
    live = matches[Match.objects.get(room=room).pk]
    assert [m["action"] for m in live["moves"]] == [{"type": "flip"}]  # his, not bob's
    assert matches[finished.pk]["your_points"] == [{"round": 1, "points": 3}]
    assert {line["text"] for line in files["chat"]} >= {"alice says hi", "bob answers"}
    assert {r["id"] for r in files["rooms"]} >= {room.pk, open_room.pk}
    assert (
        files["reports"][0]["reason"] == "rude words" and files["mutes"][0]["reason"] == "shouting"
    )
    assert files["friends"]["friendships"][0]["status"] == "accepted"
    assert files["invitations"][0]["recipient__username"] == "bob"
    assert {n["kind"] for n in files["notifications"]} == {"friend_request"}
    assert files["push_subscriptions"][0]["endpoint"] == "https://push.invalid/a"
    assert [t["name"] for t in files["api_tokens"]] == ["my bot"]
    assert "key" not in files["api_tokens"][0]  # never a secret
    assert [e["tournament_id"] for e in files["tournaments_entered"]] == [event.pk]
    assert [t["id"] for t in files["tournaments_created"]] == [mine.pk]
    assert [a["room_id"] for a in files["daily_attempts"]] == [attempt.room_id]
    blocked_once = ChatMessage.objects.create(room=room, user=carol, text="from carol")
    services.block(alice, carol)
    assert "from carol" not in {line["text"] for line in unzip(data.build(alice))["chat"]}
    assert blocked_once.pk


def test_an_export_of_1000_matches_and_its_time(alice, bob):
    rooms = Room.objects.bulk_create(
        Room(game="ligretto", seats=2, host=alice, status="finished") for _ in range(1000)
    )
    matches = Match.objects.bulk_create(
        Match(room=r, game="ligretto", seed=1, status="finished") for r in rooms
    )
    players = Player.objects.bulk_create(
        Player(match=m, seat=s, user=u, name=u.username)
        for m in matches
        for s, u in enumerate((alice, bob))
    )
    rounds = Round.objects.bulk_create(
        Round(match=m, number=1, seed=1, state={}, version=1) for m in matches
    )
    RoundScore.objects.bulk_create(
        RoundScore(round=rounds[i // 2], player=p, seat=p.seat, points=i % 7)
        for i, p in enumerate(players)
    )
    ActionLog.objects.bulk_create(
        ActionLog(match=m, round=rnd, seat=v % 2, action={"type": "flip"}, version=v)
        for m, rnd in zip(matches, rounds, strict=True)
        for v in range(1, 21)
    )
    started = time.perf_counter()
    files = unzip(data.build(alice))
    took = time.perf_counter() - started
    print(f"\nexport of 1,000 matches (20,000 moves, 10 of them each his): {took:.2f} s")
    assert len(files["matches"]) == 1000
    assert sum(len(m["moves"]) for m in files["matches"]) == 10_000


def test_the_export_page_shows_progress_then_the_download_and_only_to_its_owner(
    alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    threads = []
    monkeypatch.setattr(
        data.threading,
        "Thread",
        lambda target, args, daemon: (
            threads.append((target, args)) or type("T", (), {"start": lambda self: None})()
        ),
    )
    with django_capture_on_commit_callbacks(execute=True):
        client_for(alice).post("/account/data/export/")
    export = Export.objects.get(user=alice)
    page = client_for(alice).get("/account/data/")
    assert 'id="export-progress"' in page.text and 'hx-trigger="every 1s"' in page.text
    _target, args = threads[0]
    data.run_export(*args)  # the thread's work, here
    status = client_for(alice).get(f"/account/data/export/{export.pk}/")
    assert 'id="export-download"' in status.text and "every 1s" not in status.text
    download = client_for(alice).get(f"/account/data/export/{export.pk}/download/")
    assert download["Content-Type"] == "application/zip"
    assert unzip(download.content)["account"]["username"] == "alice"
    for path in (
        f"/account/data/export/{export.pk}/",
        f"/account/data/export/{export.pk}/download/",
    ):
        assert client_for(bob).get(path).status_code == 404


def same(html: str) -> str:
    """A page as compared before and after: its CSRF tokens (new per client) and the away
    countdown's end (drawn from the clock) blanked, and a name shortened to fit its column
    kept whole (a longer name is shortened differently)."""
    html = re.sub(r'(X-CSRFToken": "|csrfmiddlewaretoken" value="|data-until=")[^"]+', r"\1", html)
    return re.sub(
        r'<abbr title="([^"]*)" tabindex="0">[^<]*</abbr>', r'<abbr title="\1"></abbr>', html
    )


def _views(room_id: int, viewer) -> dict[str, str]:
    client = client_for(viewer)
    api = Api(viewer)
    return {
        "sheet": client.get(f"/rooms/{room_id}/sheet/").text,
        "replay": client.get(f"/rooms/{room_id}/replay?round=1&step=1").text,
        "table": client.get(f"/rooms/{room_id}/").text,
        "api_scores": api.get(f"rooms/{room_id}/scores").text,
        "player": client.get(f"/players/{viewer.username}/").text,
    }


def test_deletion_keeps_the_opponents_games_but_the_name(
    alice, bob, django_capture_on_commit_callbacks
):
    room = started_room(alice, [bob], game="ligretto-mini", rounds=1)
    play.act(room.pk, 0, {"type": "flip"})
    play.act(room.pk, 1, {"type": "flip"})
    chat.post(room.pk, alice, "see you")
    lobby.close_room(room.pk, alice, "Stopped for the test.")
    token, raw = ApiToken.objects.issue(alice, "bot")
    before = _views(room.pk, bob)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_for(alice).post("/account/delete/", {"password": PASSWORD})
    assert answer.status_code == 302
    name = f"deleted player {alice.pk}"
    after = _views(room.pk, bob)
    for page, html in before.items():
        assert "alice" in html or page == "api_scores" or page == "player", page
        expected = html.replace("/players/alice/", f"/players/{name.replace(' ', '%20')}/")
        expected = expected.replace("alice", name)
        assert same(after[page]) == same(expected), page
    assert ChatMessage.objects.get(user_id=alice.pk).text == ""
    assert not client_for(bob).login(username="alice", password=PASSWORD)
    assert not client_for(bob).login(username=name, password=PASSWORD)
    assert Api(token=raw).get("rooms").status_code == 401
    assert not ApiToken.objects.filter(pk=token.pk).exists()
    assert not Settings.objects.filter(user_id=alice.pk).exists()


def test_deletion_needs_the_password(alice):
    answer = client_for(alice).post("/account/delete/", {"password": "wrong"})
    assert answer.status_code == 400 and "That is not your password." in answer.text
    alice.refresh_from_db()
    assert alice.is_active and alice.username == "alice"


def test_a_deleted_players_sessions_end(alice):
    client = client_for(alice)
    assert client.get("/account/data/").status_code == 200
    client.post("/account/delete/", {"password": PASSWORD})
    assert client.get("/account/data/").status_code == 302  # to the log-in page
