from __future__ import annotations

import pytest
from django.core.cache import cache

from games import play, push


@pytest.fixture(autouse=True)
def _fresh_process_state():
    # Rolled-back tests reuse primary keys, so a match id can name another test's match in
    # the per-process caches of games.play and games.push; and limits count in the cache.
    play._cache.clear()
    push._last.clear()
    cache.clear()
    yield
    cache.clear()
