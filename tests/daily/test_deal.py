"""The day's deal without Django: seeds, commitment, the UTC day, streaks, the board's order."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from daily import deal as deals
from daily.board import Result, order

D = date(2026, 12, 5)


def test_the_same_date_gives_the_same_seeds_and_commitment():
    first, again = deals.deal_for(D, "key"), deals.deal_for(D, "key")
    assert first == again and first.commitment == again.commitment
    assert (first.game, first.bot_level) == ("ligretto-mini", "normal")
    assert first.seed != first.bot_seed


def test_another_date_or_another_secret_gives_another_deal():
    today = deals.deal_for(D, "key")
    assert deals.deal_for(D + timedelta(days=1), "key").seed != today.seed
    assert deals.deal_for(D, "other key").seed != today.seed
    assert deals.deal_for(D, "other key").commitment != today.commitment


@given(st.dates(), st.binary(min_size=1, max_size=40))
def test_seeds_fit_in_53_bits_and_the_commitment_is_sha256_hex(day, secret):
    deal = deals.deal_for(day, secret)
    assert 0 <= deal.seed < 2**53 and 0 <= deal.bot_seed < 2**53
    assert len(deal.commitment) == 64 and int(deal.commitment, 16) >= 0


def test_the_revealed_seeds_reproduce_the_commitment():
    deal = deals.deal_for(D, "key")
    again = deals.commitment(D, "ligretto-mini", deal.seed, "normal", deal.bot_seed)
    assert again == deal.commitment
    assert deals.commitment(D, "ligretto-mini", deal.seed + 1, "normal", deal.bot_seed) != again


def test_the_day_is_the_utc_date_across_the_rollover():
    last_second = datetime(2026, 12, 5, 23, 59, 59, tzinfo=UTC)
    assert deals.utc_day(last_second) == D
    assert deals.utc_day(last_second + timedelta(seconds=2)) == D + timedelta(days=1)
    # 01:00 in Berlin's winter is still the 5th in UTC; 09:00 in Seoul on the 6th is the 6th.
    assert deals.utc_day(datetime(2026, 12, 6, 0, 30, tzinfo=timezone(timedelta(hours=1)))) == D
    seoul = datetime(2026, 12, 6, 9, 0, tzinfo=timezone(timedelta(hours=9)))
    assert deals.utc_day(seoul) == D + timedelta(days=1)
    assert deals.next_deal_at(D) == datetime(2026, 12, 6, 0, 0)


def test_a_day_is_revealed_from_the_next_utc_day():
    assert not deals.revealed(D, D)
    assert deals.revealed(D, D + timedelta(days=1))


def test_streaks_of_days_1_2_and_4_are_current_1_and_best_2():
    d1 = date(2026, 12, 1)
    days = {d1, d1 + timedelta(days=1), d1 + timedelta(days=3)}
    assert deals.streaks(days, d1 + timedelta(days=3)) == (1, 2)
    # The run lasts through the next day (today's challenge is still ahead), not longer.
    assert deals.streaks(days, d1 + timedelta(days=4)) == (1, 2)
    assert deals.streaks(days, d1 + timedelta(days=5)) == (0, 2)
    assert deals.streaks(set(), d1) == (0, 0)


@given(st.sets(st.dates(min_value=date(2026, 1, 1), max_value=date(2026, 3, 1))))
def test_a_streak_is_never_longer_than_the_best_nor_the_best_than_the_days(days):
    current, best = deals.streaks(days, date(2026, 3, 1))
    assert 0 <= current <= best <= len(days)
    assert (best == 0) == (not days)


def _result(name: str, points: int, ended: bool, ms: int, minute: int) -> Result:
    attempt = SimpleNamespace(created_at=datetime(2026, 12, 5, 10, minute, tzinfo=UTC))
    return Result(attempt, name, True, points, ended, ms)  # type: ignore[arg-type]


def test_the_board_orders_by_points_then_ended_by_the_player_then_time():
    rows = [
        _result("slow-ender", 9, True, 90_000, 1),
        _result("few-points", 3, True, 10_000, 2),
        _result("fast-ender", 9, True, 50_000, 3),
        _result("not-ender", 9, False, 20_000, 4),
        _result("most-points", 12, False, 99_000, 5),
        _result("same-later", 9, True, 50_000, 6),
    ]
    unfinished = _result("still-playing", 99, True, 1, 7)
    unfinished.finished = False
    ranked = order([*rows, unfinished])
    assert [r.name for r in ranked] == [
        "most-points",
        "fast-ender",
        "same-later",
        "slow-ender",
        "not-ender",
        "few-points",
    ]
    assert [r.rank for r in ranked] == [1, 2, 3, 4, 5, 6]
