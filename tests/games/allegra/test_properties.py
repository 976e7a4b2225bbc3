"""Allegra properties (A2, A8, G0, G1, G2): random legal play for 2-6 seats with hypothesis.
Every card stays accounted for, views hide every face-down value, dumps round-trip, seeds replay."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.allegra import rules as R
from games.engine import IllegalAction

from .helpers import count_cards

FAST = settings(max_examples=50, deadline=None)


def random_play(seats: int, seed: int, rng: random.Random, steps: int, rounds: int = 2):
    """Yield (state, seat, action, new_state, events) along a random legal game."""
    s = R.new_match(seats, {"rounds": rounds}, seed)
    for _ in range(steps):
        moves = [(seat, a) for seat in range(seats) for a in R.legal_actions(s, seat)]
        if not moves:
            assert s.status == "finished"
            return
        # Prefer the active player's moves so rounds progress, but let knocks in too.
        seat, action = rng.choice(moves)
        new, events = R.apply(s, seat, action)
        yield s, seat, action, new, events
        s = new


def twin(s: R.State, rng: random.Random) -> R.State:
    """Return a copy that differs only in hidden things: face-down values, deck order, discard."""
    t = R.load(R.dump(s))
    down = [(i, r, c) for i, g in enumerate(t.grids) for r, row in enumerate(g)
            for c, cell in enumerate(row) if cell is not None and not cell[1]]  # fmt: skip
    below = t.discard[:-1]
    pool = [t.grids[i][r][c][0] for i, r, c in down] + t.deck + below
    rng.shuffle(pool)
    for i, r, c in down:
        t.grids[i][r][c] = (pool.pop(), False)
    t.deck = pool[: len(t.deck)]
    t.discard = pool[len(t.deck) :] + t.discard[-1:]
    return t


def views(s: R.State) -> list[dict]:
    return [R.player_view(s, seat) for seat in [None, *range(s.seats)]]


@FAST
@given(st.integers(2, 6), st.integers(0, 2**40), st.integers(0, 2**30))
def test_A2_G0_cards_accounted_and_dumps_round_trip(seats, seed, play_seed) -> None:
    rng = random.Random(play_seed)
    for _, _, _, new, _ in random_play(seats, seed, rng, 250):
        assert count_cards(new) == 120
        d = R.dump(new)
        assert json.loads(json.dumps(d)) == d
        assert R.load(json.loads(json.dumps(d))) == new
        assert R.dump(R.load(d)) == d


@FAST
@given(st.integers(2, 6), st.integers(0, 2**40), st.integers(0, 2**30))
def test_G0_views_hide_every_face_down_value(seats, seed, play_seed) -> None:
    rng = random.Random(play_seed)
    for i, (_, _, _, new, events) in enumerate(random_play(seats, seed, rng, 250)):
        if i % 10 and new.status == "playing":
            continue
        assert views(new) == views(twin(new, rng))
        for v in views(new):
            json.dumps(v)
            for g in v["grids"]:
                for row in g["cells"]:
                    assert all(c is None or set(c) in ({"value"}, {"hidden"}) for c in row)
        # Events carry only public values: no face-down card is ever named.
        for e in events:
            assert "deck" not in e and "grids" not in e


@FAST
@given(st.integers(2, 6), st.integers(0, 2**40), st.integers(0, 2**30))
def test_G2_legal_actions_are_exactly_the_accepted_ones(seats, seed, play_seed) -> None:
    rng = random.Random(play_seed)
    for s, _, _, _, _ in random_play(seats, seed, rng, 150):
        seat = rng.randrange(seats)
        legal = R.legal_actions(s, seat)
        for action in legal[:3]:
            R.apply(s, seat, action)
        for action in candidate_actions(s, rng):
            before = R.dump(s)
            try:
                R.apply(s, seat, action)
                ok = True
            except IllegalAction as exc:
                ok = False
                assert exc.code and exc.message
            assert ok == (action in legal), (action, legal)
            assert R.dump(s) == before


def candidate_actions(s: R.State, rng: random.Random) -> list[dict]:
    def place() -> dict:
        return {"seat": rng.randrange(s.seats), "row": rng.randrange(3), "col": rng.randrange(4)}

    return [
        {"type": "reveal", "place": place()},
        {"type": "swap", "place": place()},
        {"type": "place", "place": place()},
        {"type": "take", "from": place(), "to": place()},
        {"type": "draw", "source": rng.choice(["deck", "discard"])},
        {"type": "discard"},
        {"type": "knock"},
        {"type": "give", "to": rng.randrange(s.seats)},
        {"type": "ready"},
    ]


@FAST
@given(st.integers(2, 6), st.integers(0, 2**40), st.integers(0, 2**30))
def test_G1_everything_follows_from_the_seed(seats, seed, play_seed) -> None:
    a = [R.dump(x[3]) for x in random_play(seats, seed, random.Random(play_seed), 200)]
    b = [R.dump(x[3]) for x in random_play(seats, seed, random.Random(play_seed), 200)]
    assert a == b
    assert R.dump(R.new_match(seats, None, seed)) == R.dump(R.new_match(seats, None, seed))
    assert R.new_match(seats, None, seed).grids != R.new_match(seats, None, seed + 1).grids


def test_G1_each_round_is_dealt_from_its_stored_seed() -> None:
    rng = random.Random(4)
    s = R.new_match(3, None, 99)
    seeds = [s.round_seed]
    while s.status != "finished":
        moves = [(seat, a) for seat in range(3) for a in R.legal_actions(s, seat)]
        seat, action = rng.choice(moves)
        s, events = R.apply(s, seat, action)
        if any(e["type"] == "round_dealt" for e in events):
            assert s.round_seed == R.round_seed_for(99, s.round)
            # The deal is a pure function of the round's seed.
            again = R._deal(3, 3, 99, s.round, s.first)
            assert again.grids == s.grids and again.deck == s.deck
            seeds.append(s.round_seed)
    assert len(set(seeds)) == 3
