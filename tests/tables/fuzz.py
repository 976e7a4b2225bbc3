"""Hypothesis strategies for hostile input, shared by the socket and the HTTP fuzz tests."""

from __future__ import annotations

from hypothesis import strategies as st

# The values a client can put anywhere: huge and non-finite numbers, digits that are not ASCII,
# NUL, braces that look like JSON, and every JSON type nested a little.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["", "0", "-1", "²", "١٢", "𝟗", "1e3", "\x00", "row", "{", '{"seat": 0}']),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
