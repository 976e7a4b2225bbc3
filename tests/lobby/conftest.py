"""The rate limits count in the cache: every test starts with none of its counts used."""

from __future__ import annotations

import uuid

import pytest


@pytest.fixture(autouse=True)
def _fresh_limits(settings):
    # Users get the same ids from test to test, so counts would carry over and add up. A key
    # prefix of the test's own starts it afresh on the configured cache (Redis on the scale
    # path) without clear(), which on Redis would flush a database other runs share.
    default = settings.CACHES["default"]
    prefix = f"{default.get('KEY_PREFIX', '')}test-{uuid.uuid4().hex}"
    settings.CACHES = {**settings.CACHES, "default": {**default, "KEY_PREFIX": prefix}}
