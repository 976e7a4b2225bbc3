"""Each game says its own words through the registry: names, how a match ends, its messages.

The engines speak English Sentences (games.engine.Sentence); the site words them in the reader's
language (tables.words.say), with the players' names put in by the game's layout.
"""

from __future__ import annotations

import pytest
from django.utils import translation

from games.engine import Sentence
from games.ligretto import layout
from games.ligretto import rules as R
from games.registry import GAMES
from tables import words

pytestmark = pytest.mark.any_store


@pytest.mark.parametrize(
    ("code", "names"),
    [
        ("en", ["Ligretto Mini", "Ligretto", "Allegra", "High Card"]),
        ("de", ["Ligretto Mini", "Ligretto", "Allegra", "High Card"]),
        ("ru", ["Лигретто Мини", "Лигретто", "Аллегра", "High Card"]),
        ("ko", ["리그레토 미니", "리그레토", "알레그라", "High Card"]),
    ],
)
def test_every_game_is_named_in_the_readers_language(code, names):
    with translation.override(code):
        assert [words.game_name(slug) for slug in GAMES] == names


def test_how_a_match_ends_is_the_games_own_sentence():
    ligretto, allegra = GAMES["ligretto"], GAMES["allegra"]
    end = ligretto.describe_end({"rounds": 10, "target": 99})
    assert isinstance(end, Sentence)
    assert end == "First to 99 points, or after round 10, whichever comes first."
    with translation.override("de"):
        assert words.describe_end_text(allegra, {"rounds": 1}) == (
            "Eine Runde; die wenigsten Punkte gewinnen."
        )
        assert "3" in words.describe_end_text(allegra, {"rounds": 3})
    with translation.override("ru"):
        assert words.describe_end_text(ligretto, {"rounds": 1, "target": None}) != (
            "One round; the highest score wins."
        )
    # A game registered from elsewhere says its rules' English.
    third = GAMES["highcard"]
    assert (
        words.describe_end_text(third, {"rounds": 2}) == "A fixed 2 rounds; the highest total wins."
    )


def _players(*names):
    return {s: {"seat": s, "name": n} for s, n in enumerate(names)}


def _finished_with_a_shared_win():
    state = R.new_match(3, {"rounds": 1}, seed=1, preset="ligretto")
    state.scores = ((3, 3, 3),)
    state.status = "round_over"
    for seat in (0, 1):
        state, _ = R.apply(state, seat, {"type": "ready"})
    state, events = R.apply(state, 2, {"type": "ready"})
    return state, events


def test_a_shared_win_is_said_with_the_names_in_every_language():
    state, events = _finished_with_a_shared_win()
    message = events[-1]["message"]
    assert message == "The match is over: seats 0, 1 and 2 share the win with 3 points."
    named = layout._named(message, _players("Ann", "Bob", "Cleo"))
    assert named == "The match is over: Ann, Bob and Cleo share the win with 3 points."
    with translation.override("de"):
        assert words.say(named) == (
            "Die Partie ist vorbei: Ann, Bob und Cleo teilen sich den Sieg (3 Punkte)."
        )
    with translation.override("ru"):
        assert "Ann, Bob и Cleo" in words.say(named)


def test_a_round_end_is_worded_from_its_sentence_not_its_english():
    state = R.new_match(2, {"rounds": 1}, seed=3, preset="ligretto-mini")
    state, events = R._end_round(state, "stack_empty", 1, [])
    message = state.message
    assert message == (
        "Round 1 is over: seat 1 emptied their Ligretto stack. That was the last round."
    )
    named = layout._named(message, _players("Ann", "Bob"))
    with translation.override("de"):
        assert words.say(named) == (
            "Runde 1 ist vorbei: Bob hat den Ligretto-Stapel geleert. Das war die letzte Runde."
        )
    with translation.override("en"):
        assert words.say(named) == (
            "Round 1 is over: Bob emptied their Ligretto stack. That was the last round."
        )


def test_a_reloaded_table_keeps_its_message_in_every_language():
    state = R.new_match(2, {"rounds": 1}, seed=3, preset="ligretto-mini")
    state, _ = R._end_round(state, "deadlock", None, [], repeated=True)
    loaded = R.load(R.dump(state))
    assert isinstance(loaded.message, Sentence) and loaded.message == state.message
    assert R.dump(loaded) == R.dump(state)
    with translation.override("ko"):
        assert words.say(loaded.message) == words.say(state.message) != str(state.message)


def test_a_message_rewritten_in_a_snapshot_is_not_taken_back_from_its_old_words():
    state = R.new_match(2, {"rounds": 1}, seed=3, preset="ligretto-mini")
    state, _ = R._end_round(state, "deadlock", None, [])
    data = R.dump(state)
    assert R.load({**data, "message": None}).message is None
    assert R.load({**data, "message": "Round 1 is over."}).message == "Round 1 is over."


def test_a_target_of_one_point_is_singular_in_every_language():
    mini = GAMES["ligretto-mini"]
    says = {}
    for code in ("en", "de", "ru", "ko"):
        with translation.override(code):
            says[code] = [words.describe_end_text(mini, {"rounds": 3, "target": n}) for n in (1, 5)]
    assert says["en"][0] == "First to 1 point, or after round 3, whichever comes first."
    assert says["en"][1].startswith("First to 5 points,")
    assert says["de"][0].startswith("Wer zuerst 1 Punkt hat") and " 5 Punkte " in says["de"][1]
    assert says["ru"][0].startswith("До 1 очка ") and says["ru"][1].startswith("До 5 очков ")
    assert says["ko"][0].startswith("먼저 1점에")


@pytest.mark.parametrize("code", ["en", "de", "ru", "ko"])
def test_a_pushed_part_words_each_colour_as_the_site_does(code):
    # Ligretto's parts translate the layout's TERMS entry in their template (Django's own
    # `translate`, with the catalogue's context), no longer through the `term` filter: the
    # words must stay the site's, for a card colour and for its letter.
    from django.template import engines

    django_engine = engines["django"]
    for context in ("card colour", "card colour, as a letter"):
        drawn = django_engine.from_string(
            "{% load i18n_kept %}{% translate word context '" + context + "' %}"
        )
        for colour in ("red", "yellow", "green", "blue"):
            word = layout._colour(colour, context)
            with translation.override(code):
                assert drawn.render({"word": word}) == words.term(context, colour)
