"""The strict decoder every transport uses (tables.live.stream)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables.live import stream

pytestmark = pytest.mark.any_store


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('{"a": NaN}', "bad_json"),
        ('{"a": Infinity}', "bad_json"),
        ('{"a": -Infinity}', "bad_json"),
        ("[" * 9 + "]" * 9, "bad_json"),
        ("[" * 100_000, "too_large"),
        ('{"a": "x\\u0000y"}', "bad_json"),
        ('{"a\\u0000": 1}', "bad_json"),
        ("{", "bad_json"),
        ("", "bad_json"),
        (b"\xff\xfe", "bad_json"),
        ("é" * 9000, "too_large"),  # 9,000 characters, 18,000 bytes
    ],
)
def test_it_refuses_what_a_careful_server_must_not_take(text, code):
    with pytest.raises(stream.WireError) as refusal:
        stream.loads(text)
    assert refusal.value.code == code and refusal.value.message


def test_it_takes_eight_levels_and_brackets_inside_strings():
    assert stream.loads("[" * 8 + "]" * 8) == [[[[[[[[]]]]]]]]
    assert stream.loads('{"chat": "[[[[[[[[[[ {{{{ \\" ]]"}') == {"chat": '[[[[[[[[[[ {{{{ " ]]'}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("3", 3),
        ("-2", -2),
        (5, 5),
        ("٣", None),
        ("³", None),
        (True, None),
        ("12", None),
        ("", None),
        (2.0, None),
    ],
)
def test_ascii_int_takes_ascii_digits_in_range_only(value, expected):
    assert stream.ascii_int(value, -5, 10) == expected


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(st.characters(exclude_characters="\x00")),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=5).filter(lambda k: "\x00" not in k), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(json_values)
def test_whatever_it_accepts_is_what_json_would_decode(value):
    text = json.dumps(value)
    try:
        decoded = stream.loads(text)
    except stream.WireError as refusal:
        assert refusal.code in {"bad_json", "too_large"}  # too deep or too long only
        return
    assert decoded == value
