"""The Board API stream's view text: fields shared between seats are encoded once, and the text
is the compact JSON of the whole message (byte for byte as one call encodes it, field by field;
with a plan for the seats' views built together, the same JSON with the shared fields first)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables.live.render import (
    _encode_own,
    _encode_planned,
    _encode_view,
    _plan,
    _plan_parts,
    encode_message,
)

pytestmark = pytest.mark.any_store

JSON = st.recursive(
    st.none()
    | st.booleans()
    # Views hold 64-bit integers at most (beyond, a field falls back to json's encoder).
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)  # JSON has neither
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def compact(message: object) -> str:
    """The message encoded whole, in one call: what the text put together field by field must
    be, byte for byte; and it must read back as the message."""
    text = encode_message(message)
    assert json.loads(text) == message
    return text


VIEWS = st.dictionaries(st.sampled_from(["center", "legal", "seat", "players", "é"]), JSON)


@given(st.lists(VIEWS, min_size=1, max_size=5))
def test_each_seats_text_is_exactly_json_dumps_of_its_view(views):
    shared: dict = {}
    for view in views:
        assert _encode_view(view, shared) == compact({"type": "view", "view": view})


def test_equal_values_that_encode_apart_are_each_encoded():
    # False == 0 and 1 == 1.0 in Python, but not in JSON (hypothesis found this one).
    shared: dict = {}
    for view in ({"players": [False, {}]}, {"players": [0, {}]}, {"players": [0.0, {}]}):
        assert _encode_view(view, shared) == compact({"type": "view", "view": view})


def test_a_field_shared_with_an_earlier_seats_view_is_not_encoded_again():
    shared: dict = {}
    center = [{"top": 3}]
    first = {"center": center, "legal": [{"type": "flip"}], "seat": 0}
    _encode_view(first, shared)
    kept = shared["center"][1]
    second = {"center": center, "legal": [], "seat": 1}
    text = _encode_view(second, shared)
    assert shared["center"][1] is kept  # the first seat's encoding, reused
    assert text == compact({"type": "view", "view": second})


@given(
    st.lists(VIEWS, min_size=2, max_size=5),
    st.dictionaries(st.sampled_from(["center", "players", "tableaus", "é"]), JSON),
)
def test_a_plan_encodes_each_seats_view_as_exactly_its_json(own_parts, public):
    # As a push builds them: one public part, the very same objects in every seat's view, and
    # each seat's own fields (some seats may lack a field, or have one the others do not).
    views = [{**public, **own} for own in own_parts]
    plan = _plan(views)
    for view in views:
        text = _encode_planned(view, plan)
        assert json.loads(text) == {"type": "view", "view": view}
        assert text.startswith('{"type":"view","view":{')


def test_a_plan_encodes_what_every_seat_shares_once():
    center = [{"top": 3}]
    views = [{"center": center, "legal": [], "seat": seat} for seat in range(3)]
    common, names = _plan(views)
    assert common == '"center":[{"top":3}]' and names == ["legal", "seat"]
    # Equal is not the same: a value equal to another seat's is still that seat's own.
    views[2]["center"] = [{"top": 3}]
    assert _plan(views)[1] == ["center", "legal", "seat"]


ENGINE = st.dictionaries(st.sampled_from(["center", "legal", "seat", "message", "é"]), JSON)


@given(
    st.lists(ENGINE, min_size=2, max_size=5),
    st.dictionaries(st.sampled_from(["center", "tableaus", "legal", "é"]), JSON),
    st.dictionaries(st.sampled_from(["room", "status", "legal", "message", "é"]), JSON),
)
def test_a_plan_from_the_parts_is_byte_for_byte_the_joined_views_plan(own_parts, public, shared):
    # prepare's road (tables.current.Table.view_parts): each seat's engine view (one public
    # part, the very same objects, and its own fields), the room's part every seat shares, and
    # each view joined as Table.joined joins it (the room's part over it, then its seat).
    seats = list(range(len(own_parts)))
    engine = {seat: {**public, **own} for seat, own in zip(seats, own_parts, strict=True)}
    joined = []
    for seat in seats:
        view = dict(engine[seat])
        view.update(shared)
        view["seat"] = seat
        joined.append(view)
    plan = _plan(joined)
    assert _plan_parts(seats, engine, shared) == plan
    for seat, view in zip(seats, joined, strict=True):
        assert _encode_own(engine[seat], seat, plan) == _encode_planned(view, plan)
