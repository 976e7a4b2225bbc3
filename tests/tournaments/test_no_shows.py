"""No-shows: a player who never comes gets a stand-in that scores nothing for him, and two missed
rounds in a row withdraw him; the notifications' signals go out at their moments."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.tournaments.runner import run_to_end
from tournaments import scheduler, services, signals
from tournaments.models import Entry, TableSeat

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.timeout(300)
def test_two_missed_rounds_withdraw_a_player_and_a_missed_seat_scores_nothing(alice, bob, settings):
    settings.BOT_PACE = 0
    settings.LEAVER_GRACE = 0  # nobody opens a table: a stand-in comes at once
    settings.TOURNAMENT_BREAK = 0
    heard: list[tuple[str, list[int]]] = []

    def soon(sender, tournament, user_ids, **kwargs):
        heard.append(("soon", user_ids))

    def starting(sender, tournament, round, user_ids, **kwargs):
        heard.append((f"round {round.number}", user_ids))

    signals.starting_soon.connect(soon)
    signals.round_starting.connect(starting)
    try:
        t = services.create(alice, "ligretto-mini", 2, "swiss", rounds=3, starts_in=200)
        services.join(t.pk, bob)
        services.add_bots(t.pk, alice, 3, "easy")
        scheduler.run_due()  # the reminder, five minutes (at most) before the start
        assert heard == [("soon", [bob.pk])]
        scheduler.run_due(t.starts_at + timedelta(seconds=1))
        run_to_end(t.pk)
    finally:
        signals.starting_soon.disconnect(soon)
        signals.round_starting.disconnect(starting)
    entry = Entry.objects.get(tournament=t, user=bob)
    assert entry.status == Entry.Status.WITHDRAWN and entry.missed == 2
    seats = TableSeat.objects.filter(entry=entry).order_by("table__number")
    assert [s.missed for s in seats] == [True, True]  # not seated in round 3
    assert all(s.share == 0 and s.round_points == 0 for s in seats)
    assert [name for name, _ in heard] == ["soon", "round 1", "round 2", "round 3"]
    assert heard[3][1] == []  # round 3 seats no person: bob was withdrawn
