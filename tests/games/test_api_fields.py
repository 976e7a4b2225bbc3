"""Each game's Board API shapes (`Game.api`, games/<game>/api_fields.py) agree with its rules.

The API refuses a body its shapes refuse and passes on what they take to the rules: so the
shapes must take exactly the options the rules take, and every action the rules offer.
"""

from __future__ import annotations

from functools import reduce
from operator import or_
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from games.engine import IllegalAction
from games.registry import GAMES
from tables.live import stream

VALUES = st.one_of(
    st.integers(-3, 60_000),
    st.sampled_from([0, 1, 2, 50, 51, 10_000, 10_001, 3.0, 2.5]),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
)


def _options(game: Any) -> st.SearchStrategy[dict[str, Any]]:
    names = [*game.api.options[game.slug].model_fields, "target", "rounds", "x"]
    return st.dictionaries(st.sampled_from(names), VALUES, max_size=3)


@pytest.mark.parametrize("slug", list(GAMES))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_games_options_shape_takes_exactly_what_its_rules_take(slug, data):
    game = GAMES[slug]
    options = data.draw(_options(game))
    shape = game.api.options[slug]
    try:
        taken = shape.model_validate(options).model_dump(exclude_unset=True)
    except ValidationError:
        taken = None
    try:
        game.check_options(game.min_seats, options)
        rules_take = True
    except IllegalAction:
        rules_take = False
    if rules_take:
        assert taken is not None, options  # the API would refuse what the rules take
    if taken is not None:
        game.check_options(game.min_seats, taken)  # and pass on nothing the rules refuse


@pytest.mark.parametrize("slug", list(GAMES))
def test_every_action_the_rules_offer_has_a_shape_and_passes_the_wire(slug):
    game = GAMES[slug]
    shapes = TypeAdapter(reduce(or_, game.api.actions))
    offered = []
    for seats in {game.min_seats, game.max_seats}:
        for seed in range(5):
            state = game.new_match(seats, None, seed)
            for seat in range(seats):
                offered += game.legal_actions(state, seat)
                # A step on, so that more than the opening's actions are seen.
                for action in game.legal_actions(state, seat)[:1]:
                    moved, _ = game.apply(state, seat, action)
                    offered += [a for s in range(seats) for a in game.legal_actions(moved, s)]
    assert offered
    for action in offered:
        sent = shapes.validate_python(action).sent()
        assert sent == action
        assert stream.action(action) == action
