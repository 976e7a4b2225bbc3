"""Ligretto properties over random seeds and actions, 2-12 seats (L2, L6, L9, L14, G0-G3)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import IllegalAction
from games.ligretto import rules as R
from games.ligretto.bots import LEVELS
from games.ligretto.simulate import play_match

from .helpers import check_invariants, view_cards, visible_cards

FAST = settings(max_examples=50, deadline=None)


@st.composite
def matches(draw):
    preset = draw(st.sampled_from(["ligretto-mini", "ligretto"]))
    seats = 2 if preset == "ligretto-mini" else draw(st.integers(2, 12))
    options = {"rounds": draw(st.integers(1, 2)), "row_variant": draw(st.booleans())}
    seed = draw(st.integers(0, 2**31))
    steps = draw(st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99)), max_size=200))
    return preset, seats, options, seed, steps


def every_action(state, seat):
    """Every action shape a client might send, legal or not."""
    p = state.players[seat]
    out = [{"type": "flip"}, {"type": "ready"}, {"type": "play", "from": "stack"}]
    out += [{"type": "play", "from": "waste"}]
    out += [{"type": "play", "from": "row", "index": i} for i in range(len(p.row))]
    out += [{"type": "play", "from": "stack", "to": "row", "index": i} for i in range(len(p.row))]
    out += [{"type": "play", "from": "waste", "to": "row", "index": i} for i in range(len(p.row))]
    return out


def run(preset, seats, options, seed, steps, check=None):
    state = R.new_match(seats, options, seed, preset=preset)
    log = []
    for x, y in steps:
        seat = x % seats
        legal = R.legal_actions(state, seat)
        if not legal:
            continue
        action = legal[y % len(legal)]
        before = R.dump(state) if check else None
        new, events = R.apply(state, seat, action)
        assert all(e["type"] for e in events)
        if check:
            assert R.dump(state) == before  # G2: the input state is never changed
            check(new, seat)
        state = new
        log.append((seat, action))
    return state, log


@FAST
@given(matches())
def test_L2_L9_every_card_stays_in_exactly_one_place_and_piles_are_runs(match):
    run(*match, check=lambda state, seat: check_invariants(state))


@FAST
@given(matches())
def test_G2_apply_accepts_exactly_the_legal_actions(match):
    preset, seats, options, seed, steps = match
    state, _ = run(preset, seats, options, seed, steps)
    for seat in range(seats):
        legal = R.legal_actions(state, seat)
        for action in every_action(state, seat):
            before = R.dump(state)
            try:
                R.apply(state, seat, action)
                assert action in legal
            except IllegalAction as err:
                assert action not in legal, err.code
                assert R.dump(state) == before


def shuffle_hidden(state, rng):
    """Return a state differing from `state` only in what nobody may see."""
    players = []
    for p in state.players:
        hand = list(p.hand)
        rng.shuffle(hand)
        below = list(p.stack[:-1])
        rng.shuffle(below)
        under = list(p.waste[:-1])
        rng.shuffle(under)
        rows = []
        for slot in p.row:
            inner = list(slot[:-1])
            rng.shuffle(inner)
            rows.append(tuple(inner) + slot[-1:])
        players.append(
            R.Player(
                tuple(rows), tuple(below) + p.stack[-1:], tuple(hand), tuple(under) + p.waste[-1:]
            )
        )
    return R.replace(state, players=tuple(players))


@FAST
@given(matches(), st.integers(0, 1000))
def test_G2_views_hold_no_hidden_card(match, salt):
    preset, seats, options, seed, steps = match
    state, _ = run(preset, seats, options, seed, steps)
    other = shuffle_hidden(state, random.Random(salt))
    expected = visible_cards(state)
    for seat in [None, *range(seats)]:
        view = R.player_view(state, seat)
        assert view_cards(view) == expected
        assert R.player_view(other, seat) == view


def check_kept_views(state, _mover=None):
    """Every view of `state` equals the view of a fresh copy (which reuses nothing)."""
    seats = [None, *range(state.seats)]
    kept = R.player_views(state, seats)
    fresh = R.load(R.dump(state))
    for seat in seats:
        assert kept[seat] == R.player_view(fresh, seat) == R.player_view(state, seat)
    for seat in range(state.seats):
        assert R.legal_actions(state, seat) == R.legal_actions(fresh, seat)


@FAST
@given(matches())
def test_G2_views_built_from_kept_parts_equal_views_built_afresh(match):
    # A view reuses what an earlier state's view built of a pile or a player the move did not
    # touch; after every move each seat's view must be exactly the view of a fresh copy.
    run(*match, check=check_kept_views)


@pytest.mark.parametrize("preset, seats", [("ligretto-mini", 2), ("ligretto", 5)])
def test_G2_kept_views_stay_exact_through_round_ends_and_the_match_end(preset, seats):
    # Whole bot matches: a round's end shows whose cards each pile holds, on the very piles
    # whose views were kept while the round was played.
    log: list = []
    options = {"rounds": 2, "row_variant": True}
    final = play_match(preset, ["normal"] * seats, 11, options, log=log)
    state = R.new_match(seats, options, 11, preset=preset)
    check_kept_views(state)
    for seat, action in log:
        state, _ = R.apply(state, seat, action)
        check_kept_views(state)
    assert state.status == final.status == "finished"


@FAST
@given(matches())
def test_G0_G1_dump_load_round_trips_and_replays_are_identical(match):
    preset, seats, options, seed, steps = match
    state, log = run(preset, seats, options, seed, steps)
    data = R.dump(state)
    assert json.loads(json.dumps(data)) == data
    assert R.dump(R.load(json.loads(json.dumps(data)))) == data
    again = R.new_match(seats, options, seed, preset=preset)
    for seat, action in log:
        again, _ = R.apply(again, seat, action)
    assert R.dump(again) == data


def can_play_by_brute_force(state):
    """Return whether some seat has a play now or after flipping through his whole cycle twice."""
    for seat, p in enumerate(state.players):
        hand, waste = p.hand, p.waste
        for _ in range(2 * (len(hand) + len(waste)) + 2):
            trial = R.replace(
                state,
                status="playing",
                players=state.players[:seat]
                + (R.Player(p.row, p.stack, hand, waste),)
                + state.players[seat + 1 :],
            )
            if any(a["type"] == "play" for a in R.legal_actions(trial, seat)):
                return True
            if not hand and not waste:
                break
            if not hand:
                hand, waste = waste, ()
            hand, waste = hand[3:], waste + hand[:3]
    return False


def fits_anywhere_by_brute_force(state):
    """Return whether a row top, stack top, hand or waste card of anyone fits, were it on top."""
    for seat, p in enumerate(state.players):
        if any(a["type"] == "play" for a in R.legal_actions(state, seat)):
            return True
        cycle = p.waste + p.hand
        for i, card in enumerate(cycle):
            trial = R.replace(
                state,
                players=state.players[:seat]
                + (R.Player(p.row, p.stack, cycle[:i] + cycle[i + 1 :], (card,)),)
                + state.players[seat + 1 :],
            )
            if any(a.get("from") == "waste" for a in R.legal_actions(trial, seat)):
                return True
    return False


@FAST
@given(matches())
def test_L14_no_standstill_outlasts_an_action_and_a_deadlock_is_exact(match):
    def check(state, seat):
        if state.status == "playing":
            assert can_play_by_brute_force(state)
        elif state.end_reason == "deadlock":
            assert not can_play_by_brute_force(R.replace(state, status="playing"))
            assert not fits_anywhere_by_brute_force(R.replace(state, status="playing"))

    run(*match, check=check)


@FAST
@given(matches(), st.integers(0, 99))
def test_L14_an_unblock_keeps_every_card_and_every_cycle(match, skip):
    preset, seats, options, seed, steps = match
    state, _ = run(preset, seats, options, seed, steps[: len(steps) * skip // 100])
    after = R._unblock(state)
    check_invariants(after)
    assert after.center == state.center and R.round_points(after) == R.round_points(state)
    for old, new in zip(state.players, after.players, strict=True):
        assert (new.row, new.stack, new.waste) == (old.row, old.stack, ())
        # The waste goes under the hand as it lies, then the top card goes to the bottom.
        cycle = old.hand + old.waste
        assert new.hand == cycle[1:] + cycle[:1]


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["ligretto-mini", "ligretto"]),
    st.integers(2, 12),
    st.integers(0, 2**31),
    st.booleans(),
)
def test_L14_every_round_ends_under_random_legal_actions(preset, seats, seed, variant):
    seats = 2 if preset == "ligretto-mini" else seats
    rng = random.Random(seed)
    state = R.new_match(seats, {"rounds": 1, "row_variant": variant}, seed, preset=preset)
    for _ in range(20_000):
        if state.status != "playing":
            break
        seat = rng.randrange(seats)
        legal = R.legal_actions(state, seat)
        if legal:
            state, _ = R.apply(state, seat, rng.choice(legal))
    assert state.status == "round_over"
    assert len(state.scores) == 1 and state.end_reason in ("stack_empty", "deadlock")


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["ligretto-mini", "ligretto"]),
    st.integers(2, 12),
    st.integers(0, 2**31),
    st.lists(st.sampled_from(LEVELS), min_size=1, max_size=3),
    st.booleans(),
)
def test_L14_every_round_ends_with_bots(preset, seats, seed, levels, variant):
    seats = 2 if preset == "ligretto-mini" else seats
    # play_match raises if a round outlasts its bound of actions.
    state = play_match(
        preset,
        [levels[s % len(levels)] for s in range(seats)],
        seed,
        {"rounds": 2, "row_variant": variant},
    )
    assert state.status == "finished" and len(state.scores) == 2


@FAST
@given(
    st.sampled_from([3, 5, 7]),
    st.lists(st.tuples(st.integers(-14, 27), st.integers(-14, 27)), min_size=1, max_size=9),
)
def test_L6_mini_best_of_n_ends_by_round_n_and_the_most_rounds_won_wins(best_of, rounds):
    """Property: best of N ends at the first round a seat has won N // 2 + 1 rounds, or at round
    N; the winners have the most rounds won, then the highest total."""
    state = R.new_match(2, {"best_of": best_of}, 1, preset="ligretto-mini")
    for played in range(1, len(rounds) + 1):
        state.scores = tuple(rounds[:played])
        wins = R.round_wins(state)
        assert sum(wins) <= played  # a drawn round goes to nobody
        over = R._match_over(state)
        assert over == (played >= best_of or max(wins) > best_of // 2)
        if over:
            break
    assert played <= best_of
    win = R.winners(state)
    wins, sums = R.round_wins(state), R.totals(state)
    assert all((wins[s], sums[s]) >= (wins[o], sums[o]) for s in win for o in (0, 1))
    if max(wins) > best_of // 2:
        assert win == [wins.index(max(wins))]
