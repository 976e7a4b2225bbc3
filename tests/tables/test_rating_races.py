"""Two rated matches with a player in common finishing at once: both rate him, one after the other.

On SQLite the write lock taken at BEGIN serialises them; on PostgreSQL (`make test-scale`) the
rating rows' FOR UPDATE locks, taken in one order after a conflict-free insert, do.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connections, transaction

from tables import signals
from tables.models import Match, Rating, RatingChange
from tests.conftest import make_user
from tests.history.factories import played_match


@pytest.mark.django_db(transaction=True)
def test_two_matches_finishing_at_once_rate_their_common_player_twice_in_turn():
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    # alice is new in both: neither transaction finds her rating row, both would insert it.
    matches = [
        played_match("ligretto", [alice, bob], [[10, 3]]),
        played_match("ligretto", [carol, alice], [[10, 3]]),
    ]
    barrier = threading.Barrier(len(matches))
    failures: list[BaseException] = []

    def finish(match: Match) -> None:
        barrier.wait()
        try:
            with transaction.atomic():
                locked = Match.objects.select_for_update().get(pk=match.pk)
                signals.match_finished.send(sender=Match, match=locked)
        except BaseException as problem:  # noqa: BLE001 - reported below, in the test's thread
            failures.append(problem)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=finish, args=(m,)) for m in matches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert Rating.objects.get(user=alice, game="ligretto").matches == 2
    first, second = RatingChange.objects.filter(user=alice).order_by("pk")
    # The second saw what the first wrote: her changes chain, none is lost.
    assert second.mu_before == pytest.approx(first.mu_after)
    assert Rating.objects.get(user=alice).mu == pytest.approx(second.mu_after)
