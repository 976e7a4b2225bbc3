"""Notifications: the bell's list, read/unread, preferences, rate limits, e-mail, and Web Push
to a push endpoint this test runs, which decrypts what it gets with the subscription's keys."""

from __future__ import annotations

import base64
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core import mail
from django.utils import translation

from lobby.models import Profile
from social import notify, services
from social.keys import b64url, new_pair
from social.models import Connection, Notification, PushSubscription
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


class PushEndpoint:
    """A push service on 127.0.0.1: keeps each request's headers and body."""

    def __init__(self) -> None:
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((self.headers, body))
                self.send_response(201)
                self.end_headers()

            def log_message(self, *args) -> None:  # noqa: ANN002
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/push/abc"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint():
    server = PushEndpoint()
    yield server
    server.close()


@pytest.fixture
def vapid(settings):
    public, private = new_pair()
    settings.WEBPUSH_VAPID_PUBLIC_KEY = public
    settings.WEBPUSH_VAPID_PRIVATE_KEY = private
    return public


def browser_keys():
    """A browser's subscription keys: its P-256 key pair and the 16-byte auth secret."""
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return key, b64url(public), os.urandom(16)


def subscribe(user, endpoint):
    key, p256dh, auth = browser_keys()
    client_for(user).post(
        "/push/subscribe/",
        json.dumps({"endpoint": endpoint.url, "keys": {"p256dh": p256dh, "auth": b64url(auth)}}),
        content_type="application/json",
    )
    return key, auth


def open_page(user, visible: bool) -> None:
    Connection.objects.create(user=user, channel=f"c-{user.pk}", process="p", visible=visible)


def test_web_push_is_sent_when_his_page_is_hidden_and_decrypts_to_the_sentence(
    alice, bob, endpoint, vapid, django_capture_on_commit_callbacks
):
    key, auth = subscribe(bob, endpoint)
    open_page(bob, visible=False)
    with django_capture_on_commit_callbacks(execute=True):
        services.ask(alice, bob)
    assert len(endpoint.received) == 1
    headers, body = endpoint.received[0]
    assert headers["Content-Encoding"] == "aes128gcm"
    assert (
        headers["Authorization"].startswith("vapid t=") and f"k={vapid}" in headers["Authorization"]
    )
    payload = json.loads(
        http_ece.decrypt(body, private_key=key, auth_secret=auth, version="aes128gcm")
    )
    assert payload["body"] == "alice asks to be your friend."
    assert Notification.objects.get(user=bob).sent == ["push"]


def test_no_web_push_while_a_page_of_his_is_visible(
    alice, bob, endpoint, vapid, django_capture_on_commit_callbacks
):
    subscribe(bob, endpoint)
    open_page(bob, visible=True)
    with django_capture_on_commit_callbacks(execute=True):
        services.ask(alice, bob)
    assert endpoint.received == []
    assert Notification.objects.get(user=bob).sent == []


def test_a_push_is_worded_in_the_readers_language(
    alice, bob, endpoint, vapid, django_capture_on_commit_callbacks
):
    Profile.objects.create(user=bob, language="de")
    key, auth = subscribe(bob, endpoint)
    with django_capture_on_commit_callbacks(execute=True):
        services.ask(alice, bob)
    _headers, body = endpoint.received[0]
    payload = json.loads(
        http_ece.decrypt(body, private_key=key, auth_secret=auth, version="aes128gcm")
    )
    assert payload["body"] == "alice möchte mit dir befreundet sein."


def test_a_subscription_the_push_service_dropped_is_forgotten(alice, bob, vapid, settings):
    PushSubscription.objects.create(
        user=bob,
        endpoint="http://127.0.0.1:9/gone",
        p256dh=browser_keys()[1],
        auth=b64url(b"x" * 16),
    )
    note = Notification.objects.create(user=bob, kind="friend_request", params={"name": "alice"})
    assert notify.web_push(note) is False  # nobody listens there: logged, not raised


def test_an_email_only_for_what_starts_soon_and_only_when_asked(
    bob, django_capture_on_commit_callbacks
):
    bob.email = "bob@example.org"
    bob.save()
    with django_capture_on_commit_callbacks(execute=True):
        notify.notify(bob, "tournament_soon", {"name": "Friday cup"})
    assert mail.outbox == []  # off by default
    client_for(bob).post(
        "/notifications/settings/",
        {"tournament_soon:site": "on", "tournament_soon:email": "on", "friend_request:email": "on"},
    )
    routes = notify.routes_of(bob.pk)
    assert routes["tournament_soon"]["email"] and not routes["friend_request"]["email"]
    assert not routes["friend_request"]["site"]  # unticked: off
    with django_capture_on_commit_callbacks(execute=True):
        notify.notify(bob, "tournament_soon", {"name": "Friday cup"})
    assert len(mail.outbox) == 1
    assert "Your tournament Friday cup starts in 5 minutes." in mail.outbox[0].body


def test_a_kind_turned_off_is_not_made(alice, bob):
    client_for(bob).post("/notifications/settings/", {})
    services.ask(alice, bob)
    assert not Notification.objects.filter(user=bob).exists()


def test_one_sender_cannot_flood_a_recipient(alice, bob, settings):
    settings.SOCIAL_NOTIFY_PER_SENDER = 2
    for _ in range(5):
        services.ask(alice, bob)
        services.end(alice, bob)
    assert Notification.objects.filter(user=bob).count() == 2


def test_the_allegra_turn_is_told_only_when_no_page_is_visible(bob):
    open_page(bob, visible=True)
    assert notify.notify(bob, "your_turn", {"game": "allegra"}) is None
    Connection.objects.filter(user=bob).update(visible=False)
    note = notify.notify(bob, "your_turn", {"game": "allegra"})
    assert note is not None and notify.word(note) == "Your turn at the Allegra table."


def test_unknown_kinds_are_refused(bob):
    with pytest.raises(notify.UnknownKind):
        notify.notify(bob, "lottery_win", {})


def test_the_list_reads_and_marks_only_ones_own(alice, bob):
    services.ask(alice, bob)
    mine = Notification.objects.get(user=bob)
    page = client_for(bob).get("/notifications/")
    assert "alice asks to be your friend." in page.text and 'class="unread"' in page.text
    assert "alice asks" not in client_for(alice).get("/notifications/").text
    client_for(alice).post("/notifications/read/", {"id": mine.pk})  # not hers
    mine.refresh_from_db()
    assert mine.read_at is None
    assert client_for(alice).post("/notifications/read/", {"id": "1e3"}).status_code == 404
    client_for(bob).post("/notifications/read/", {"id": mine.pk})
    mine.refresh_from_db()
    assert mine.read_at is not None


def test_a_push_subscription_is_checked_and_needs_an_account(client, alice):
    bad = client_for(alice).post("/push/subscribe/", "[1]", content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"] == "bad_subscription"
    assert client.post("/push/subscribe/", "{}", content_type="application/json").status_code == 302
    assert not PushSubscription.objects.exists()


def test_the_profile_offers_the_routes_per_kind(bob):
    page = client_for(bob).get("/accounts/profile/")
    assert 'id="notification-settings"' in page.text
    assert 'name="friend_request:push" checked' in page.text
    assert 'name="friend_request:email"' not in page.text  # mail only for what starts soon
    assert 'name="tournament_soon:email"' in page.text


def test_the_key_pair_decodes():
    public, private = new_pair()
    assert len(base64.urlsafe_b64decode(public + "==")) == 65
    assert len(base64.urlsafe_b64decode(private + "=")) == 32


def test_a_timed_turn_is_told_to_a_player_whose_page_is_hidden(alice, bob):
    from social.notify import your_turn
    from tables import signals

    open_page(alice, visible=True)
    open_page(bob, visible=False)
    your_turn(7, "allegra", [alice.pk, bob.pk])  # what the driver's signal runs, in its thread
    assert not Notification.objects.filter(user=alice).exists()
    note = Notification.objects.get(user=bob)
    assert note.kind == "your_turn" and note.params == {"game": "allegra", "url": "/rooms/7/"}
    assert signals.decision_due.has_listeners()  # the social app's receiver (its ready)


def test_a_moderators_message_reaches_the_player(bob):
    from django.core.management import call_command

    call_command("moderator_message", "bob", "  Please   keep the chat friendly. ")
    note = Notification.objects.get(user=bob)
    assert notify.word(note) == "A message from the moderators: Please keep the chat friendly."


def test_a_tournaments_start_and_its_rounds_reach_its_entrants_bells(
    alice, bob, carol, django_capture_on_commit_callbacks
):
    from tournaments import scheduler, signals
    from tournaments import services as tournaments

    event = tournaments.create(alice, "ligretto-mini", 2, "swiss", rounds=1, starts_in=0)
    tournaments.join(event.pk, bob)
    tournaments.join(event.pk, carol)
    signals.starting_soon.send(sender=type(event), tournament=event, user_ids=[bob.pk, carol.pk])
    soon = Notification.objects.get(user=bob, kind="tournament_soon")
    assert soon.params["url"] == f"/tournaments/{event.pk}/"
    with translation.override("de"):
        assert f"#{event.pk}" in notify.word(soon) and "Turnier" in notify.word(soon)
    with django_capture_on_commit_callbacks(execute=True):
        scheduler.run_due()  # it starts now: every entrant is seated, then told
    told = set(Notification.objects.filter(kind="round_starts").values_list("user", flat=True))
    assert told == {bob.pk, carol.pk}


@pytest.mark.django_db(transaction=True)
def test_an_untimed_allegra_turn_is_told_once_a_turn_when_hidden_and_rate_limited(settings):
    """No clock at the table: the driver tells each turn of his that begins (not each move of
    it), only while no page of his is visible, at most SOCIAL_NOTIFY_PER_SENDER per table and
    window; a process that takes the room over mid-turn does not tell it again."""
    from tables import clocks, play
    from tables.driver import MatchBots
    from tables.live import rooms
    from tests.conftest import make_user
    from tests.tables.helpers import started_room

    settings.TABLE_COUNTDOWN = 0
    settings.BOT_PACE = 0
    settings.SOCIAL_NOTIFY_PER_SENDER = 3
    alice = make_user("alice")
    open_page(alice, visible=False)
    room = started_room(alice, game="allegra", bots=1, rounds=3, clock=0)
    assert not clocks.seconds_for(rooms.read(room.pk).match.options)
    bots = MatchBots(room.pk)

    def told() -> int:
        return Notification.objects.filter(user=alice, kind="your_turn").count()

    turns: list[int] = []  # how many were told when each of her turns began
    ends: list[int] = []  # and when each ended (a turn is several moves: told once)
    in_turn = False
    for _ in range(3000):
        bots.step()
        table = rooms.read(room.pk)
        made = clocks.table_decision(table)
        mine = made is not None and 0 in made.seats
        if not mine or made.kind != "turn":
            if in_turn:
                ends.append(told())
            in_turn = False
            if not mine:
                continue
        elif not in_turn:
            in_turn = True
            bots.step()  # the driver's next look (her turn may have begun late in its last)
            turns.append(told())
            if len(turns) == 1:
                # A process that takes the room over in the middle of her turn: not told again.
                MatchBots(room.pk).step()
                assert told() == 1
                Connection.objects.filter(user=alice).update(visible=True)  # she looks on
            elif len(turns) == 2:
                Connection.objects.filter(user=alice).update(visible=False)  # and away
            elif len(turns) == 5:
                break
        legal = [a for a in table.view(0)["legal"] if a["type"] != "knock"]
        play.act(room.pk, 0, legal[0])  # one move of hers (a turn takes several)
    # Her turns 1, 3 and 4 were told (her page hidden), 2 not (visible: not counted either),
    # and 5 not: three per table and window. None was told again in its course.
    assert turns == [1, 1, 2, 3, 3], turns
    assert ends == turns[:4], ends
    note = Notification.objects.filter(user=alice, kind="your_turn").first()
    assert note.params == {"game": "allegra", "url": f"/rooms/{room.pk}/"}


@pytest.mark.django_db(transaction=True)
def test_a_ligretto_race_tells_nobody_of_a_turn(settings):
    from tables import signals
    from tables.driver import MatchBots
    from tests.conftest import make_user
    from tests.tables.helpers import started_room

    settings.TABLE_COUNTDOWN = 0
    settings.BOT_PACE = 0
    sent = []

    def receiver(sender, **kwargs):
        sent.append(kwargs)

    signals.decision_due.connect(receiver)
    try:
        room = started_room(make_user("alice"), game="ligretto", bots=1)
        bots = MatchBots(room.pk)
        for _ in range(20):
            bots.step()
    finally:
        signals.decision_due.disconnect(receiver)
    assert sent == []
