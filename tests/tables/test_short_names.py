"""The score tables' column heads: people's names cut evenly, bots by level and number."""

from __future__ import annotations

import pytest

from tables.templatetags.words import short_name

pytestmark = pytest.mark.any_store


def heads(*names: str, bots: tuple[str, ...] = ()) -> list[str]:
    players = [{"name": n} for n in names] + [{"name": b, "bot": True} for b in bots]
    return [short_name(p, players) for p in players]


def test_people_are_cut_at_one_length_and_bots_by_level_and_number():
    assert heads("alice", "bartholomew", "cleopatra", bots=("Normal bot 3",)) == [
        "alice",
        "bartho…",
        "cleopa…",
        "N3",
    ]


def test_the_length_grows_until_no_two_heads_look_alike():
    assert heads("alexander", "alexandra", "bob") == ["alexande…", "alexandr…", "bob"]
    assert heads("robert", "roberta") == ["robert", "roberta"]


def test_a_bots_name_in_another_language_keeps_its_number():
    assert heads("Анастасия-Ивановна", bots=("Обычный бот 4", "일반 봇 2")) == [
        "Анаста…",
        "О4",
        "일반 봇 2",
    ]


def test_a_person_a_stand_in_plays_for_keeps_his_name_cut_as_the_others():
    players = [
        {"name": "bartholomew", "bot": True},  # his seat is a stand-in's for now
        {"name": "bartosz", "bot": True},
        {"name": "anastasia-ivanovna"},
        {"name": "Fast bot 4", "bot": True},
    ]
    heads = [short_name(p, players) for p in players]
    assert heads == ["bartho…", "bartos…", "anasta…", "F4"]
