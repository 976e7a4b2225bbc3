"""The tournament page's socket: the live part on connect, pushed again on every change, and the
player's table link once a round seats him."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from cardgames.asgi import application
from tests.conftest import make_user
from tests.tables.helpers import ORIGIN
from tournaments import scheduler, services


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_page_hears_a_join_and_the_start_without_a_reload(settings):
    settings.LEAVER_GRACE = 3600
    alice = await database_sync_to_async(make_user)("alice")
    bob = await database_sync_to_async(make_user)("bob")
    t = await database_sync_to_async(services.create)(
        alice, "ligretto-mini", 2, "swiss", rounds=1, starts_in=60
    )
    socket = WebsocketCommunicator(application, f"/ws/tournaments/{t.pk}/", headers=ORIGIN)
    connected, _ = await socket.connect(timeout=10)
    assert connected
    first = await socket.receive_from(timeout=5)
    assert 'id="tournament-live"' in first and 'data-connected="true"' in first
    await database_sync_to_async(services.join)(t.pk, bob)
    pushed = await socket.receive_from(timeout=5)
    assert "bob" in pushed
    await database_sync_to_async(services.add_bots)(t.pk, alice, 1, "easy")
    await socket.receive_from(timeout=5)
    await database_sync_to_async(scheduler.run_due)(t.starts_at)  # the start, on time
    started = await socket.receive_from(timeout=5)
    assert "Round 1" in started or "round 1" in started
    await socket.disconnect()
