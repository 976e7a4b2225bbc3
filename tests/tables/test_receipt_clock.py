"""One receipt clock: the transports stamp each frame (`tables.live.stream.receipt`, read there
so that a plain move never enters the equaliser) on the clock the room and the equaliser read
(`tables.live.equalise.receipt`), so that a frame's receipt and the room's "now" compare: a
lost race's margin, a held play's window (docs/fairness.md)."""

from __future__ import annotations

import pytest

from tables.live import equalise, stream

pytestmark = pytest.mark.any_store


def test_the_stream_stamps_frames_on_the_equalisers_clock():
    for _ in range(1000):
        before = equalise.receipt()
        stamped = stream.receipt()
        after = equalise.receipt()
        assert before <= stamped <= after
