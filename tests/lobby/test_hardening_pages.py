"""Invites that only show the room, the Content-Security-Policy, friendly error pages, settings."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.staticfiles import finders
from django.core.exceptions import PermissionDenied
from django.test import Client, RequestFactory
from django.urls import get_resolver, reverse
from django.views import defaults

from lobby import services
from tests.conftest import client_for

pytestmark = pytest.mark.any_store

ROOT = Path(__file__).resolve().parents[2]
HTMX = {"HTTP_HX_REQUEST": "true"}
POLICY = (
    "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)


# Invites


def test_opening_an_invite_shows_the_room_and_takes_no_seat(alice, bob):
    room = services.create_room(alice, "ligretto", 3)
    client = client_for(bob)
    response = client.get(room.get_invite_url())
    assert response.status_code == 302 and response["Location"] == room.get_absolute_url()
    assert not room.seat_set.filter(user=bob).exists()
    page = client.get(response["Location"])
    assert b'id="join-button"' in page.content
    assert b"You were invited to this room: take a seat to play." in page.content
    assert room.pk in client.session["invited_rooms"]
    # The Join button's POST is what seats him.
    client.post(reverse("lobby:join", args=[room.pk]), **HTMX)
    assert room.seat_set.filter(user=bob).exists()


def test_an_invite_to_a_full_or_started_room_offers_to_watch(alice, bob, carol):
    room = services.create_room(alice, "ligretto-mini", 2)
    services.join_room(room.pk, bob)
    page = client_for(carol).get(room.get_invite_url(), follow=True)
    assert b"Every seat in this room is taken; you can watch." in page.content
    services.start_room(room.pk, alice)
    page = client_for(carol).get(room.get_invite_url(), follow=True)
    assert b"This room has already started; you can watch." in page.content
    assert room.seat_set.count() == 2


# Content-Security-Policy


def test_every_page_carries_the_content_security_policy(alice):
    room = services.create_room(alice, "ligretto", 3)
    client = client_for(alice)
    for url in ("/", room.get_absolute_url(), "/rooms/new/", "/accounts/profile/", "/nope/"):
        assert client.get(url)["Content-Security-Policy"] == POLICY, url


INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\ssrc=)[^>]*>", re.IGNORECASE)
INLINE_HANDLER = re.compile(rb"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)
INLINE_STYLE = re.compile(rb"<style|\sstyle\s*=", re.IGNORECASE)


def test_our_pages_need_nothing_the_policy_refuses(alice, bob):
    room = services.create_room(alice, "ligretto", 3)
    pages = [
        (client_for(alice), room.get_absolute_url()),  # the host: invite link, bots, start
        (client_for(bob), room.get_absolute_url()),
        (client_for(alice), "/"),
        (client_for(alice), "/rooms/new/"),
        (client_for(alice), "/rooms/new/?game=allegra"),
        (client_for(alice), "/accounts/profile/"),
        (client_for(alice), "/accounts/password/"),
        (Client(), "/accounts/login/"),
        (Client(), "/accounts/signup/"),
        (Client(), "/nope/"),
    ]
    for client, url in pages:
        content = client.get(url).content
        assert not INLINE_SCRIPT.search(content), url
        assert not INLINE_HANDLER.search(content), url
        assert not INLINE_STYLE.search(content), url


def test_htmx_keeps_its_inline_styles_and_eval_off(db):
    content = Client().get("/").content
    assert b'"includeIndicatorStyles": false' in content
    assert b'"allowEval": false' in content


# Error pages


def test_an_unknown_page_is_a_friendly_404_with_a_way_back(alice):
    for client in (Client(), client_for(alice)):
        response = client.get("/no/such/page/")
        assert response.status_code == 404
        assert b"There is nothing here" in response.content
        assert b'<nav aria-label="Main">' in response.content
        assert b"Back to the lobby" in response.content


def test_an_htmx_request_for_nothing_says_so_in_the_error_line(alice):
    response = client_for(alice).post(reverse("lobby:join", args=[999999]), **HTMX)
    assert response.status_code == 404
    assert response["HX-Retarget"] == "#site-error"
    assert response["HX-Reswap"] == "innerHTML"
    assert response.content == b"That room or page does not exist (any more)."


def test_a_refusal_is_a_friendly_403(db):
    # No page refuses with PermissionDenied yet: call the handler the URLconf names for it.
    handler = get_resolver().resolve_error_handler(403)
    request = RequestFactory().get("/")
    request.user, request.htmx = AnonymousUser(), False
    response = handler(request, PermissionDenied())
    assert response.status_code == 403
    assert b"You may not do that" in response.content
    assert b"Back to the lobby" in response.content


def test_a_server_error_is_a_friendly_500(db):
    response = defaults.server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert b"Something went wrong on our side" in response.content
    assert b'href="/"' in response.content


def test_there_is_a_favicon(db):
    response = Client().get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"].endswith("favicon.svg")
    assert finders.find("favicon.svg")
    assert b'rel="icon"' in Client().get("/").content


# Settings


def test_production_without_a_secret_key_says_what_to_set():
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DATABASE_URL")}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**env, "DEBUG": "False", "ALLOWED_HOSTS": "cards.example.org"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "ImproperlyConfigured: Set the SECRET_KEY environment variable" in result.stderr
    assert "KeyError" not in result.stderr


@pytest.mark.parametrize(("value", "hops"), [("", 0), ("False", 0), ("True", 1), ("2", 2)])
def test_trusted_proxy_takes_a_flag_or_a_count(value, hops):
    code = "from django.conf import settings; print(settings.TRUSTED_PROXY)"
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", code],
        cwd=ROOT,
        env={**os.environ, "TRUSTED_PROXY": value},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.strip() == str(hops), result.stderr
