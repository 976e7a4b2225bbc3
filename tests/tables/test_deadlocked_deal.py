"""A deal the rules end at once (L14+: every 1 of both players lies under a stack top, so no card
can ever start a pile; Mini's seed 4225) still makes a match people can finish: the table shows
the round scored as it stands, both say ready, and the match ends with its scores kept."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from lobby import services
from tables.live import rooms
from tables.models import RoundScore
from tests.conftest import client_for

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _no_countdown(settings):
    settings.TABLE_COUNTDOWN = 0


def _page(user, url: str) -> tuple[int, str]:
    answer = client_for(user).get(url)
    return answer.status_code, answer.content.decode()


def _scores(room_id: int) -> list[int]:
    return list(
        RoundScore.objects.filter(round__match__room_id=room_id)
        .order_by("seat")
        .values_list("points", flat=True)
    )


async def test_L14_plus_a_match_dealt_deadlocked_shows_its_scored_round_and_ends_on_ready(
    alice, bob
):
    room = await sync_to_async(services.arrange_room)(
        alice, "ligretto-mini", [alice, bob], deal_seed=4225
    )
    status, html = await sync_to_async(_page)(alice, room.get_absolute_url())
    assert status == 200
    assert 'data-status="round_over"' in html
    assert "no card of any player fits anywhere" in html
    assert await sync_to_async(_scores)(room.pk) == [-14, -14]  # seven stack cards each (L15)
    await rooms.act(room.pk, 0, {"type": "ready"})
    outcome = await rooms.act(room.pk, 1, {"type": "ready"})
    assert outcome.table is not None and outcome.table.match.status == "finished"
    assert await sync_to_async(_scores)(room.pk) == [-14, -14]
