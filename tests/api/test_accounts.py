"""API accounts: sign-up, tokens (hashed, revocable, on the profile page), bans and limits."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, assume, given
from hypothesis import settings as examples

from api.models import ApiToken, hash_token
from tests.api.helpers import Api, error_code
from tests.conftest import PASSWORD, client_for

User = get_user_model()


def test_it_signs_up_with_a_token_that_works(db):
    response = Api().post("signup", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 201
    body = response.json()
    assert body["username"] == "alice"
    me = Api(token=body["token"])
    assert me.get("rooms").status_code == 200
    # Stored hashed: the token itself is nowhere in the database.
    stored = ApiToken.objects.get(user__username="alice")
    assert stored.key == hash_token(body["token"]) and body["token"] not in stored.key


def test_it_refuses_a_taken_username(alice):
    response = Api().post("signup", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 409 and error_code(response) == "username_taken"


def test_it_refuses_an_invalid_username(db):
    response = Api().post("signup", {"username": "al ice!", "password": PASSWORD})
    assert response.status_code == 400 and error_code(response) == "invalid_username"
    long = Api().post("signup", {"username": "a" * 151, "password": PASSWORD})
    assert long.status_code == 400 and error_code(long) == "invalid_username"


def test_it_refuses_a_weak_password(db):
    response = Api().post("signup", {"username": "alice", "password": "123"})
    assert response.status_code == 400 and error_code(response) == "weak_password"
    assert "short" in response.json()["error"]["message"]
    assert not User.objects.exists()


def test_it_answers_bad_bodies_with_400_json(db):
    api = Api()
    assert error_code(api.post("signup", raw="{not json")) == "bad_json"
    assert error_code(api.post("signup", raw="[1, 2]")) == "bad_json"
    missing = api.post("signup", {"username": "alice"})
    assert missing.status_code == 400 and error_code(missing) == "bad_request"
    typed = api.post("token", {"username": "alice", "password": 12345678})
    assert typed.status_code == 400 and error_code(typed) == "bad_request"


def test_it_gives_a_token_for_good_credentials_only(alice):
    response = Api().post("token", {"username": "alice", "password": PASSWORD, "name": "my bot"})
    assert response.status_code == 200
    assert Api(token=response.json()["token"]).get("rooms").status_code == 200
    assert ApiToken.objects.get(user=alice).name == "my bot"
    wrong = Api().post("token", {"username": "alice", "password": "wrong horse"})
    assert wrong.status_code == 401 and error_code(wrong) == "bad_credentials"


def test_it_refuses_calls_without_a_good_token(alice):
    assert error_code(Api().get("rooms")) == "no_token"
    bad = Api(token="cg_not-a-token").get("rooms")
    assert bad.status_code == 401 and error_code(bad) == "bad_token"
    basic = Client().get("/api/v1/rooms", headers={"Authorization": "Basic YWxpY2U6eA=="})
    assert basic.status_code == 401 and error_code(basic) == "no_token"


def test_a_banned_users_tokens_stop_working(alice):
    api = Api(alice)
    assert api.get("rooms").status_code == 200
    alice.is_active = False
    alice.save()
    banned = api.get("rooms")
    assert banned.status_code == 401 and error_code(banned) == "bad_token"
    again = Api().post("token", {"username": "alice", "password": PASSWORD})
    assert again.status_code == 401 and error_code(again) == "bad_credentials"


def test_a_session_cookie_cannot_act_on_the_api(alice):
    browser = client_for(alice)  # signed in on the site
    response = browser.post("/api/v1/rooms", {"game": "ligretto", "seats": 2}, "application/json")
    assert response.status_code == 401 and error_code(response) == "no_token"
    assert not alice.hosted_rooms.exists()


def test_a_token_cannot_act_on_the_browsers_forms(alice):
    _, raw = ApiToken.objects.issue(alice, "t")
    bearer = {"Authorization": f"Bearer {raw}"}
    form = {"game": "ligretto", "seats": 2}
    # As a browser would send it: CSRF refuses a form post without its cookie and token.
    guarded = Client(enforce_csrf_checks=True).post(reverse("lobby:create"), form, headers=bearer)
    assert guarded.status_code == 403
    # And past CSRF, the site knows sessions only: the token signs nobody in.
    response = Client().post(reverse("lobby:create"), form, headers=bearer)
    assert response.status_code == 302 and reverse("login") in response["Location"]
    assert not alice.hosted_rooms.exists()


def test_the_api_needs_no_csrf_token(alice):
    api = Api(alice)
    api.client = Client(enforce_csrf_checks=True)
    response = api.post("rooms", {"game": "ligretto", "seats": 2})
    assert response.status_code == 201


def test_it_limits_signups_per_address_with_retry_after(db, settings):
    settings.SIGNUPS_PER_ADDRESS = 2
    api = Api()
    for name in ("alice", "bob"):
        assert api.post("signup", {"username": name, "password": PASSWORD}).status_code == 201
    third = api.post("signup", {"username": "carol", "password": PASSWORD})
    assert third.status_code == 429 and error_code(third) == "too_many_requests"
    assert int(third["Retry-After"]) == settings.SIGNUP_WINDOW
    assert not User.objects.filter(username="carol").exists()
    # One limit for both ways in: the site's sign-up page refuses this address too.
    page = Client().post(
        reverse("signup"), {"username": "carol", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert page.status_code == 429


def test_token_requests_take_the_login_throttle(alice, settings):
    settings.LOGIN_FAILURES_PER_USER = 3
    api = Api()
    for _ in range(3):
        assert api.post("token", {"username": "alice", "password": "guess"}).status_code == 401
    blocked = api.post("token", {"username": "alice", "password": PASSWORD})
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) >= 1
    assert error_code(blocked) == "too_many_requests"


def test_the_profile_page_creates_lists_and_revokes_tokens(alice):
    browser = client_for(alice)
    created = browser.post(reverse("profile"), {"token_name": "laptop script"})
    assert created.status_code == 200
    raw = created.context["new_token"]
    assert raw.startswith("cg_") and raw.encode() in created.content  # shown once
    assert Api(token=raw).get("rooms").status_code == 200
    page = browser.get(reverse("profile"))
    assert b"laptop script" in page.content and raw.encode() not in page.content
    token = ApiToken.objects.get(user=alice, name="laptop script")
    assert token.last_used_at is not None  # the call above used it
    revoked = browser.post(reverse("profile"), {"revoke": token.pk})
    assert revoked.status_code == 302
    assert Api(token=raw).get("rooms").status_code == 401


def test_nobody_revokes_anothers_token(alice, bob):
    token, raw = ApiToken.objects.issue(alice, "mine")
    response = client_for(bob).post(reverse("profile"), {"revoke": token.pk})
    assert response.status_code == 404
    assert Api(token=raw).get("rooms").status_code == 200


# --------------------------------------------------------------------------- the schema's rules


def _valid_names():
    from hypothesis import strategies as st

    from api import schemas

    names = st.from_regex(schemas.USERNAME, fullmatch=True)
    return names.filter(lambda n: len(n) <= 150 and not re.match(schemas.GUEST_NAME, n))


def _valid_passwords():
    from hypothesis import strategies as st

    from api import schemas

    phrases = st.from_regex(schemas.PASS_PHRASE, fullmatch=True)
    return phrases.filter(
        lambda p: len(p) >= schemas.PASSWORD_MIN and not re.search(schemas.COMMON_PHRASES, p)
    )


@examples(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
@given(username=_valid_names(), password=_valid_passwords())
def test_every_sign_up_the_schema_calls_valid_is_taken_by_the_sites_form(db, username, password):
    """ST202: the schema states the form's rules; only the name-likeness is said in words."""
    from api.schemas import NewUser
    from lobby.forms import SignupForm
    from tests.api.schemathesis_hooks import like_the_name

    assume(not like_the_name(username, password))
    NewUser.model_validate({"username": username, "password": password})  # the API's own check
    form = SignupForm({"username": username, "password1": password, "password2": password})
    assert form.is_valid(), form.errors


def test_the_schema_refuses_what_the_form_would_and_words_it(db):
    api = Api()
    for password in ("correcthorse", "12345678", "  FRIEND of Joan ", "a b"):
        refused = api.post("signup", {"username": "zed", "password": password})
        assert refused.status_code == 400 and error_code(refused) == "weak_password", password
    for name in ("guest-12ab", "ann∙lee", "aнн"):  # kept for guests, a sign, two alphabets
        refused = api.post("signup", {"username": name, "password": PASSWORD})
        assert refused.status_code == 400 and error_code(refused) == "invalid_username", name
    assert api.post("signup", {"username": "Jürgen", "password": PASSWORD}).status_code == 201
    assert api.post("signup", {"username": "Ёлка_2", "password": PASSWORD}).status_code == 201
    assert api.post("signup", {"username": "김철수", "password": PASSWORD}).status_code == 201


def test_the_schemas_shortest_password_is_the_sites(settings):
    from api.schemas import password_min_length

    validator = "django.contrib.auth.password_validation.MinimumLengthValidator"
    settings.AUTH_PASSWORD_VALIDATORS = [{"NAME": validator, "OPTIONS": {"min_length": 12}}]
    assert password_min_length() == 12
    settings.AUTH_PASSWORD_VALIDATORS = []
    assert password_min_length() == 1
