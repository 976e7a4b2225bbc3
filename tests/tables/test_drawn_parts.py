"""The parts Ligretto's layout draws in Python are the bytes its templates drew.

`seat-N`, `seat-N-flip`, `pile-N`, `center`, `me`, `me_row`, `me_flip`, `me_stack` and
`me_say` are drawn by the layout (`layout.draw_part`), pushed alone and inside the whole table.
tests/tables/drawn_parts.json.gz holds what main's templates drew (tests/tables/drawn_parts.py
wrote it, before these parts left the template) for seeded matches of both presets: every
change, for readers of en, de, ru and ko at every seat, and every seat's and a spectator's
whole table when the status changes and every 100 moves, with a stand-in, a player away, a bot
and a name to escape at the table. The same matches, played again, must draw the same bytes.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from games.engine import escape
from tests.tables import drawn_parts

pytestmark = pytest.mark.any_store


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    return json.loads(gzip.decompress(drawn_parts.GOLDEN.read_bytes()))


def _texts(value: Any, texts: list[str]) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return texts[value]
    if isinstance(value, dict):
        return {k: _texts(v, texts) for k, v in value.items()}
    return value


@pytest.mark.parametrize("match", range(len(drawn_parts.MATCHES)))
def test_each_change_and_whole_table_draws_the_templates_bytes(golden, match):
    game, seats, options, seed, count, who = drawn_parts.MATCHES[match]
    expected = golden["matches"][match]
    assert (expected["game"], expected["seed"]) == (game, seed)
    drawn = list(drawn_parts.drawn(game, seats, options, seed, count, who))
    assert len(drawn) == len(expected["changes"])
    compared = 0
    for n, (mine, theirs) in enumerate(zip(drawn, expected["changes"], strict=True)):
        theirs = _texts(theirs, golden["texts"])
        for kind in ("public", "own", "full"):
            assert mine.get(kind) == theirs.get(kind), (game, seed, n, kind)
            compared += kind in mine
    assert compared > len(drawn)


def test_the_matches_draw_every_part_the_layout_draws(golden):
    # What the golden must hold for the comparison to mean something: each drawn part in
    # every language, a stood-in seat's part, a finished table, a name that needs escaping.
    said = "".join(golden["texts"])
    for marker in ('id="me-waste"', 'id="me-flip"', 'id="me-stack"', 'id="lg-me-say"'):
        assert said.count(marker) > 100, marker
    assert 'id="lg-seat-1-waste"' in said and "take-seat-back" in said
    assert 'class="tag away" data-until=' in said and "ein Bot spielt in" in said
    assert 'class="owners"' in said and "data-arrived" in said
    assert 'data-status="finished"' in said and 'data-status="round_over"' in said
    assert "Your points this round" in said and "Deine Punkte in dieser Runde" in said
    assert "Ligretto stack: empty, key S" in said
    assert escape("O'Neil & <Co>") in said
    # The centre and the reader's own part, drawn whole (`center`, `me`): a centre with no
    # pile yet, closed piles with their seats in every language, a stood-in seat's notice,
    # the ready button in the match's last round and before another, the wait.
    assert said.count('id="lg-center"') > 100 and '<p class="empty">' in said
    assert 'class="owners closed-owners"' in said
    for closed in ("red, closed", "rot, geschlossen", "закрыт", "닫힘"):
        assert closed in said, closed
    assert said.count('id="lg-me" class="me') > 100 and 'id="lg-stood-in"' in said
    assert 'id="me-seed"' in said and "Show the result" in said and "Ready for round 2" in said
    assert "Waiting for the others" in said


def test_escape_is_djangos():
    from django.utils.html import escape as django_escape

    text = 'O\'Neil & <Co> "x" é'
    assert escape(text) == django_escape(text)
