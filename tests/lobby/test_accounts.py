from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.conftest import PASSWORD, client_for

pytestmark = pytest.mark.any_store

User = get_user_model()


def test_it_signs_up_and_logs_in(db):
    client = Client()
    response = client.post(
        reverse("signup"),
        {"username": "alice", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("lobby:index")
    assert User.objects.filter(username="alice").exists()
    page = client.get(reverse("lobby:index"))
    assert b"Log out" in page.content and b"alice" in page.content


def test_it_refuses_weak_password_with_djangos_validators(db):
    response = Client().post(
        reverse("signup"), {"username": "alice", "password1": "123", "password2": "123"}
    )
    assert response.status_code == 400
    assert b"too short" in response.content
    assert not User.objects.exists()


def test_it_refuses_a_taken_username(alice):
    response = Client().post(
        reverse("signup"), {"username": "alice", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 400
    assert b"already exists" in response.content
    assert User.objects.count() == 1


def test_it_follows_a_safe_next_after_signup_but_not_an_offsite_one(db):
    response = Client().post(
        reverse("signup") + "?next=/rooms/new/",
        {"username": "alice", "password1": PASSWORD, "password2": PASSWORD, "next": "/rooms/new/"},
    )
    assert response["Location"] == "/rooms/new/"
    response = Client().post(
        reverse("signup"),
        {
            "username": "bob",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": "https://evil.example/",
        },
    )
    assert response["Location"] == reverse("lobby:index")


def test_it_logs_in_and_out(alice):
    client = Client()
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get(reverse("profile")).status_code == 200
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("profile")).status_code == 302


def test_it_changes_the_password(alice):
    client = client_for(alice)
    new = "another long passphrase 42"
    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password(new)


def test_profile_lists_the_users_rooms(alice, bob):
    from lobby import services

    room = services.create_room(alice, "ligretto", 3)
    page = client_for(alice).get(reverse("profile"))
    assert room.get_absolute_url().encode() in page.content
    assert room.get_absolute_url().encode() not in client_for(bob).get(reverse("profile")).content


def test_every_page_has_the_navigation(alice):
    for client in (Client(), client_for(alice)):
        for name in ("lobby:index", "login", "signup"):
            page = client.get(reverse(name), follow=True)
            assert b'<nav aria-label="Main">' in page.content
