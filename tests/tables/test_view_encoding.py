"""The Board API stream's view text: fields shared between seats are encoded once, and the text
is byte for byte what json.dumps makes of the whole message."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tables.push import _encode_view

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
VIEWS = st.dictionaries(st.sampled_from(["center", "legal", "seat", "players", "é"]), JSON)


@given(st.lists(VIEWS, min_size=1, max_size=5))
def test_each_seats_text_is_exactly_json_dumps_of_its_view(views):
    shared: dict = {}
    for view in views:
        assert _encode_view(view, shared) == json.dumps({"type": "view", "view": view})


def test_equal_values_that_encode_apart_are_each_encoded():
    # False == 0 and 1 == 1.0 in Python, but not in JSON (hypothesis found this one).
    shared: dict = {}
    for view in ({"players": [False, {}]}, {"players": [0, {}]}, {"players": [0.0, {}]}):
        assert _encode_view(view, shared) == json.dumps({"type": "view", "view": view})


def test_a_field_shared_with_an_earlier_seats_view_is_not_encoded_again():
    shared: dict = {}
    center = [{"top": 3}]
    first = {"center": center, "legal": [{"type": "flip"}], "seat": 0}
    _encode_view(first, shared)
    kept = shared["center"][1]
    second = {"center": center, "legal": [], "seat": 1}
    text = _encode_view(second, shared)
    assert shared["center"][1] is kept  # the first seat's encoding, reused
    assert text == json.dumps({"type": "view", "view": second})
