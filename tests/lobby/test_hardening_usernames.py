"""Usernames: letters, digits, _ and -, one alphabet, nothing invisible or look-alike."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from lobby.usernames import validate_username
from tests.conftest import PASSWORD

pytestmark = pytest.mark.any_store

User = get_user_model()


def sign_up(username: str, client: Client | None = None):
    return (client or Client()).post(
        reverse("signup"), {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    )


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("\u0430lice", "different alphabets"),  # Cyrillic а, then Latin
        ("p\u0430ypal", "different alphabets"),
        ("alice\u3164", "invisible"),  # HANGUL FILLER, a "letter" that shows nothing
        ("\u3164", "invisible"),
        ("\u115f\u1160", "invisible"),
        ("bob\u200b", "only letters"),  # zero-width space
        ("bo\u200db", "only letters"),  # zero-width joiner
        ("bob\u00ad", "only letters"),  # soft hyphen
        ("bo b", "only letters"),
        ("bob@example", "only letters"),
        ("b.ob", "only letters"),
        ("b\u0301ob", "only letters"),  # a combining accent on a letter that has none
        ("__--", "a letter or a digit"),
    ],
)
def test_it_refuses_look_alike_and_invisible_names(name, why):
    with pytest.raises(ValidationError) as refused:
        validate_username(name)
    assert why in refused.value.messages[0]
    assert refused.value.code == "invalid_username"


@pytest.mark.parametrize(
    "name", ["alice", "Bob_99", "jean-luc", "straße", "иван", "민수", "Ωμέγα", "7even"]
)
def test_it_accepts_names_in_one_alphabet(name):
    validate_username(name)


@pytest.mark.parametrize("name", ["\u0430lice", "alice\u3164", "\u3164"])
def test_the_signup_form_refuses_them_and_makes_no_account(db, name):
    response = sign_up(name)
    assert response.status_code == 400
    assert b'class="errorlist' in response.content
    assert not User.objects.exists()


def test_the_signup_form_takes_a_name_as_django_normalises_it(db):
    # Full-width letters are the same name once NFKC-normalised, as the login sees it.
    assert sign_up(" ｂｏｂ ").status_code == 302
    assert list(User.objects.values_list("username", flat=True)) == ["bob"]
    response = sign_up("Bob")
    assert response.status_code == 400
    assert b"already exists" in response.content


def test_the_signup_page_says_what_a_name_may_be(db):
    assert b"Letters, digits, _ and - only" in Client().get(reverse("signup")).content
