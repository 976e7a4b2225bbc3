"""The rate limits count in the cache: every test starts with none of its counts used."""

from __future__ import annotations

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _fresh_limits():
    # Users get the same ids from test to test, so counts would carry over and add up.
    cache.clear()
    yield
    cache.clear()
