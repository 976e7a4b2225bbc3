"""Failed logins slow down per normalised username and per address, on every login page."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory

from lobby import ratelimit
from tests.conftest import PASSWORD, make_user

User = get_user_model()
LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"


@pytest.fixture
def clock(monkeypatch):
    """The rate limiter's clock, moved by hand: `clock.now += 5` is five seconds later."""

    class Clock:
        now = 1_000_000.0

    clock = Clock()
    monkeypatch.setattr(ratelimit, "now", lambda: clock.now)
    return clock


@pytest.fixture
def limits(settings):
    settings.LOGIN_FAILURES_PER_USER = 3
    settings.LOGIN_FAILURES_PER_ADDRESS = 100
    settings.LOGIN_FAILURE_WINDOW = 900
    settings.LOGIN_MAX_DELAY = 60
    return settings


def from_address(address: str) -> Client:
    return Client(REMOTE_ADDR=address)


def log_in(client: Client, username: str, password: str, url: str = LOGIN):
    return client.post(url, {"username": username, "password": password})


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_it_counts_padded_recased_and_wide_names_as_one(bob, limits, clock):
    for _ in range(3):
        assert log_in(from_address("10.0.0.1"), "bob", "wrong").status_code == 400
    # Django strips and NFKC-normalises the name before looking bob up: so does the limit.
    for i, name in enumerate(["bob ", " bob", "Bob", "ｂｏｂ"]):
        client = from_address(f"10.0.1.{i}")
        response = log_in(client, name, PASSWORD)
        assert response.status_code == 429, name
        assert not signed_in(client)


def test_it_answers_a_right_and_a_wrong_password_alike_while_limited(bob, limits, clock):
    for _ in range(3):
        log_in(from_address("10.0.0.1"), "bob", "wrong")
    right = log_in(from_address("10.0.0.2"), "bob", PASSWORD)
    wrong = log_in(from_address("10.0.0.3"), "bob", "wrong again")
    assert right.status_code == wrong.status_code == 429
    assert right["Retry-After"] == wrong["Retry-After"] == "2"
    assert right.context["form"].errors == wrong.context["form"].errors
    assert list(right.context["form"].errors) == ["__all__"]
    assert right.context["form"].non_field_errors() == [
        "Too many failed logins for this username or from your address. "
        "Please wait 2 seconds and try again."
    ]
    assert b"Please enter a correct" not in right.content
    # The tries made while limited were not checked, so they did not count either.
    clock.now += 2
    assert log_in(from_address("10.0.0.2"), "bob", PASSWORD).status_code == 302


def test_the_wait_doubles_with_each_failure_and_ends(bob, limits, clock):
    client = from_address("10.0.0.1")
    for _ in range(3):
        assert log_in(client, "bob", "wrong").status_code == 400
    for wait in (2, 4, 8, 16, 32, 60, 60):  # capped at LOGIN_MAX_DELAY
        assert log_in(client, "bob", PASSWORD)["Retry-After"] == str(wait)
        clock.now += wait - 1
        assert log_in(client, "bob", PASSWORD).status_code == 429
        clock.now += 1
        assert log_in(client, "bob", "wrong").status_code == 400
    clock.now += 60
    assert log_in(client, "bob", PASSWORD).status_code == 302
    # A success forgets the name's failures.
    assert log_in(from_address("10.0.0.1"), "bob", "wrong").status_code == 400


def test_an_address_that_fails_on_many_names_waits_but_others_do_not(alice, bob, settings, clock):
    settings.LOGIN_FAILURES_PER_USER = 100
    settings.LOGIN_FAILURES_PER_ADDRESS = 5
    guesser = from_address("10.0.0.66")
    for i in range(5):
        assert log_in(guesser, f"name{i}", "wrong").status_code == 400
    assert log_in(guesser, "bob", PASSWORD).status_code == 429
    # Someone else, from elsewhere, is not held up by that address.
    elsewhere = from_address("10.0.0.7")
    assert log_in(elsewhere, "bob", PASSWORD).status_code == 302


def test_a_login_to_ones_own_account_does_not_clear_the_address(alice, bob, settings, clock):
    settings.LOGIN_FAILURES_PER_USER = 100
    settings.LOGIN_FAILURES_PER_ADDRESS = 3
    guesser = from_address("10.0.0.66")
    for _ in range(3):
        log_in(guesser, "bob", "wrong")
    clock.now += 2
    assert log_in(Client(REMOTE_ADDR="10.0.0.66"), "alice", PASSWORD).status_code == 302
    assert log_in(guesser, "bob", "wrong").status_code == 400  # counted: now 4 from here
    assert log_in(guesser, "bob", PASSWORD).status_code == 429


def test_the_admin_login_is_limited_too(db, limits, clock):
    make_user("root", is_staff=True, is_superuser=True)
    client = from_address("10.0.0.1")
    for _ in range(3):
        response = log_in(client, "root", "wrong", ADMIN_LOGIN)
        assert response.status_code == 200  # the admin's own answer to a wrong password
        assert b"Please enter the correct" in response.content
    response = log_in(client, "root", PASSWORD, ADMIN_LOGIN)
    assert response.status_code == 429
    assert b"Too many failed logins" in response.content
    assert not signed_in(client)
    # The site's login and the admin's share the count.
    assert log_in(from_address("10.0.0.2"), "root", PASSWORD).status_code == 429
    clock.now += 2
    assert log_in(client, "root", PASSWORD, ADMIN_LOGIN).status_code == 302
    assert signed_in(client)


@pytest.mark.parametrize(
    ("hops", "forwarded", "address"),
    [
        (0, "1.1.1.1", "10.0.0.9"),  # no proxy trusted: the header is anyone's to write
        (1, "6.6.6.6, 1.1.1.1", "1.1.1.1"),  # the client forged the first entry
        (2, "6.6.6.6, 1.1.1.1, 10.1.0.1", "1.1.1.1"),
        (2, "", "10.0.0.9"),  # not through the proxies after all
    ],
)
def test_a_trusted_proxy_tells_the_client_address(settings, hops, forwarded, address):
    settings.TRUSTED_PROXY = hops
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR=forwarded)
    assert ratelimit.client_address(request) == address


def test_a_banned_account_is_told_it_is_banned_only_with_its_own_password(db):
    carl = make_user("carl")
    carl.is_active = False
    carl.save()
    right = Client().post(LOGIN, {"username": "carl", "password": PASSWORD})
    assert right.status_code == 400
    assert "banned by a moderator" in right.content.decode()
    wrong = Client().post(LOGIN, {"username": "carl", "password": "not his password"})
    assert "banned" not in wrong.content.decode()  # a guesser learns nothing more
    assert "correct username and password" in wrong.content.decode()
