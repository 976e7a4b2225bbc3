"""The room form: a Ligretto target and round limit (L6, L6+), and the match's end in words."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.registry import GAMES
from lobby.models import Room
from lobby.roomview import OPTION_LABELS
from tests.conftest import client_for

pytestmark = pytest.mark.any_store

HTMX = {"HTTP_HX_REQUEST": "true"}


def match_end(page: str) -> str:
    """Return the text of the sentence that says how the match ends."""
    start = page.index('id="match-end"')
    return page[page.index(">", start) + 1 : page.index("</p>", start)]


@pytest.mark.parametrize(
    ("form", "options"),
    [
        ({"target": 50, "rounds": 5}, {"target": 50, "rounds": 5, "row_variant": False}),
        ({"no_target": "on", "rounds": 5}, {"target": None, "rounds": 5, "row_variant": False}),
        # A number typed before "no target" was ticked does not count.
        ({"target": 50, "no_target": "on"}, {"target": None, "rounds": 10, "row_variant": False}),
        ({}, {"target": 99, "rounds": 10, "row_variant": False}),
    ],
)
def test_it_opens_a_ligretto_room_with_a_target_a_round_limit_or_both(alice, form, options):
    response = client_for(alice).post(
        reverse("lobby:create"), {"game": "ligretto", "seats": 4, **form}
    )
    assert response.status_code == 302
    assert Room.objects.get().options == options


@pytest.mark.parametrize(
    ("form", "options"),
    [
        ({"target": 30}, {"target": 30, "rounds": 10, "row_variant": False}),
        ({"best_of": 3}, {"best_of": 3, "rounds": 3, "row_variant": False}),
    ],
)
def test_it_opens_a_ligretto_mini_room_to_a_target_or_best_of_three(alice, form, options):
    response = client_for(alice).post(
        reverse("lobby:create"), {"game": "ligretto-mini", "seats": 2, **form}
    )
    assert response.status_code == 302
    assert Room.objects.get().options == options


def test_it_refuses_an_even_best_of_for_ligretto_mini_in_words(alice):
    response = client_for(alice).post(
        reverse("lobby:create"), {"game": "ligretto-mini", "seats": 2, "best_of": 4}
    )
    assert response.status_code == 400
    assert b"best_of must be an odd whole number from 3 to 9." in response.content
    assert not Room.objects.exists()


@pytest.mark.parametrize(
    ("query", "sentence"),
    [
        ("game=ligretto", "First to 99 points, or after round 10, whichever comes first."),
        (
            "game=ligretto&target=50&rounds=20",
            "First to 50 points, or after round 20, whichever comes first.",
        ),
        ("game=ligretto&no_target=on&rounds=5", "A fixed 5 rounds; the highest total wins."),
        ("game=ligretto&target=50&no_target=on", "A fixed 10 rounds; the highest total wins."),
        ("game=ligretto&rounds=1", "One round; the highest score wins."),
        ("game=ligretto-mini", "One round; the highest score wins."),
        ("game=ligretto-mini&rounds=3&row_variant=on", "A fixed 3 rounds; the highest total wins."),
        ("game=allegra", "A fixed 3 rounds; the lowest total wins."),
        ("game=allegra&rounds=1", "One round; the lowest score wins."),
        ("game=ligretto&rounds=0", "rounds must be a whole number from 1 to 50."),
        (
            "game=ligretto&target=many",
            "target must be a whole number from 1 to 10000, or null for a fixed number of rounds.",
        ),
    ],
)
def test_it_says_how_the_match_will_end_for_the_fields_sent(alice, query, sentence):
    page = client_for(alice).get(f"{reverse('lobby:create')}?{query}", **HTMX).content.decode()
    assert page.strip().startswith('<fieldset id="game-fields"')
    assert match_end(page) == sentence


def test_changing_an_option_asks_again_and_swaps_only_the_sentence(alice):
    page = client_for(alice).get(reverse("lobby:create")).content.decode()
    options = page[page.index('<div id="game-options"') :].split(">", 1)[0]
    for attribute in (
        'hx-trigger="change"',
        'hx-include="closest form"',
        'hx-target="#match-end"',
        'hx-select="#match-end"',
    ):
        assert attribute in options
    assert match_end(page) == "First to 99 points, or after round 10, whichever comes first."
    # A full page keeps what the query asked for, in the fields and in the sentence.
    page = client_for(alice).get(reverse("lobby:create") + "?target=40&rounds=7").content.decode()
    assert 'name="target" value="40"' in page and 'name="rounds" value="7"' in page
    assert match_end(page) == "First to 40 points, or after round 7, whichever comes first."


def test_a_refused_form_still_says_how_its_match_would_end(alice):
    response = client_for(alice).post(
        reverse("lobby:create"),
        {"game": "ligretto", "seats": 13, "no_target": "on", "rounds": 4},
    )
    assert response.status_code == 400
    assert match_end(response.content.decode()) == "A fixed 4 rounds; the highest total wins."


def test_every_option_a_room_can_hold_is_named_in_the_readers_words():
    """Issue 45 item 2: the room page named the clock option by its key, "clock"."""
    keys = {key for info in GAMES.values() for key in info.option_fields} - {"no_target"}
    assert keys | {"pace", "bot_speed"} <= set(OPTION_LABELS)
