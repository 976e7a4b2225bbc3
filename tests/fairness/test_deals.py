"""A shuffle anyone can check (issue 42, docs/fairness.md), at the engines' level.

1,000 rounds are dealt as the site deals them (round 1 from the first committed seed; each
later round when its last "ready" comes, from its server seed and the players' seeds) and each
deal is rebuilt by the verifier from the revealed seed alone. Fast: no database.
"""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import CLIENT_SEED, commitment, mixed_seed
from games.registry import GAMES
from tables import fairness

# (game, seats): every registered game (the test game too) at its fewest seats and at up to 5.
TABLES = sorted(
    {(slug, n) for slug, g in GAMES.items() for n in (g.min_seats, min(g.max_seats, 5))}
)
SEED_CHARS = string.ascii_letters + string.digits + "-_"


def _round_over(slug: str, seats: int, seed: int):
    """A state of `slug` whose round 1 is over, played by always taking the first legal action
    (Ligretto: the first play, else a flip), and the match's secret."""
    game = GAMES[slug]
    options = {"rounds": 2}  # every game takes a number of rounds; the match goes on after one
    secret = fairness.new_secret()
    state = game.new_match(seats, options, fairness.first_seed(secret))
    rng = random.Random(seed)
    for _ in range(20_000):
        progress = game.progress(state)
        if progress.status == "round_over":
            return game, state, secret
        moves = [(s, a) for s in range(seats) for a in game.legal_actions(state, s)]
        seat, action = rng.choice(moves)
        before = progress
        new, _ = game.apply(state, seat, action)
        state = fairness.next_deal(game, secret, before, new)
    raise AssertionError(f"{slug}: round 1 did not end")


def _client_seeds(rng: random.Random, seats: int) -> list[str | None]:
    return [
        None if rng.random() < 0.3 else "".join(rng.choices(SEED_CHARS, k=rng.randint(1, 64)))
        for _ in range(seats)
    ]


def _deal_next(game, state, seats: int, seeds: list[str | None], order: list[int]):
    """Every seat sends "ready" (with its seed, if any) in `order`: the next round's deal.

    The deal may end its round at once: a Ligretto deal whose every 1 lies under a stack top
    can never be unblocked, and is scored as it stands (L14+; about one Mini deal in 21,000,
    test_rules.py's seed 4225).
    """
    number = game.progress(state).round + 1
    events: list = []
    for seat in order:
        action = (
            {"type": "ready"} if seeds[seat] is None else {"type": "ready", "seed": seeds[seat]}
        )
        state, events = game.apply(state, seat, action)
    progress = game.progress(state)
    assert progress.round == number
    assert progress.status == "playing" or any(
        e["type"] == "round_ended" and e.get("reason") == "deadlock" for e in events
    ), (progress, events)
    return state


@pytest.fixture(scope="module")
def ended_rounds():
    return {table: _round_over(*table, seed=7) for table in TABLES}


def test_a_thousand_deals_rebuilt_from_their_revealed_seeds_equal_the_dealt_cards(ended_rounds):
    rng = random.Random(42)
    checked = 0
    for n in range(1000):
        slug, seats = TABLES[n % len(TABLES)]
        game, over, _ = ended_rounds[(slug, seats)]
        secret = fairness.new_secret()
        number = game.progress(over).round + 1
        server = fairness.server_seed(secret, number)
        shown = commitment(server)  # what the table showed before anyone was ready
        state = game.reseed(over, server)
        seeds = _client_seeds(rng, seats)
        dealt = _deal_next(game, state, seats, seeds, rng.sample(range(seats), seats))
        progress = game.progress(dealt)
        # What the round's end reveals: the server seed, the client seeds, the deal seed.
        clients = sorted(s for s in seeds if s is not None)
        assert progress.clients == tuple(clients)
        answer = fairness.verify(
            slug, str(seats), str(progress.seed), server, ",".join(clients), shown
        )
        assert answer["commitment_matches"] is True
        assert answer["seed_matches"] is True
        assert answer["cards"] == game.dealt(dealt), (slug, seats, n)
        checked += 1
    assert checked == 1000


def test_round_one_is_dealt_from_the_first_committed_seed():
    for slug, seats in TABLES:
        game = GAMES[slug]
        secret = fairness.new_secret()
        state = game.new_match(seats, None, fairness.first_seed(secret))
        server = fairness.server_seed(secret, 1)
        answer = fairness.verify(slug, str(seats), str(game.progress(state).seed), server, "", "")
        assert answer["seed_matches"] is True
        assert answer["cards"] == game.dealt(state)


def test_a_planted_mismatch_is_caught(ended_rounds):
    game, over, _ = ended_rounds[("ligretto", 5)]
    secret = fairness.new_secret()
    server = fairness.server_seed(secret, 2)
    dealt = _deal_next(game, game.reseed(over, server), 5, ["a"] * 5, list(range(5)))
    seed = game.progress(dealt).seed
    cards = game.dealt(dealt)
    # A server that dealt other cards than its seed gives: two cards swapped between seats.
    planted = {"seats": [dict(s) for s in cards["seats"]]}
    planted["seats"][0]["stack"], planted["seats"][1]["stack"] = (
        cards["seats"][1]["stack"],
        cards["seats"][0]["stack"],
    )
    assert fairness.verify("ligretto", "5", str(seed))["cards"] != planted
    # A seed other than the one the revealed seeds make, or a server seed other than the
    # committed one, is told.
    other = fairness.verify("ligretto", "5", str(seed ^ 1), server, "a,a,a,a,a", commitment(server))
    assert other["seed_matches"] is False
    assert other["commitment_matches"] is True
    lied = fairness.verify(
        "ligretto", "5", str(seed), fairness.server_seed(secret, 3), "a,a,a,a,a", commitment(server)
    )
    assert lied["commitment_matches"] is False


def test_a_client_seed_changes_the_deal_as_documented(ended_rounds):
    for (slug, seats), (game, over, _) in ended_rounds.items():
        server = "ab" * 32
        state = game.reseed(over, server)
        plain = _deal_next(game, state, seats, [None] * seats, list(range(seats)))
        mine = _deal_next(
            game, state, seats, ["alice-was-here"] + [None] * (seats - 1), list(range(seats))
        )
        # docs/fairness.md: seed = first 53 bits of SHA-256("deal|<server>|<client seeds sorted>")
        assert game.progress(plain).seed == mixed_seed(server, [])
        assert game.progress(mine).seed == mixed_seed(server, ["alice-was-here"])
        assert game.dealt(mine) != game.dealt(plain), slug
        # Who was ready first does not matter: only the sorted seeds do.
        seeds = [f"s{seat}" for seat in range(seats)]
        forward = _deal_next(game, state, seats, seeds, list(range(seats)))
        backward = _deal_next(game, state, seats, seeds, list(reversed(range(seats))))
        assert game.dealt(forward) == game.dealt(backward)


def test_the_documented_construction_by_hand():
    import hashlib

    server = "0123456789abcdef" * 4
    digest = hashlib.sha256(b"deal|" + server.encode() + b"|alice|bob").digest()
    assert mixed_seed(server, ["bob", "alice"]) == int.from_bytes(digest, "big") >> 203
    assert commitment(server) == hashlib.sha256(server.encode()).hexdigest()
    # The commitment never gives the seed away: no client seeds still hashes "deal|…".
    assert mixed_seed(server, []) != int(commitment(server)[:14], 16) >> 3


client_seed_text = st.from_regex(CLIENT_SEED, fullmatch=True)
server_seed_text = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@given(server_seed_text, st.lists(client_seed_text, max_size=12), st.randoms())
def test_mixing_is_a_53_bit_function_of_the_server_seed_and_the_set_of_client_seeds(
    server, clients, rnd
):
    seed = mixed_seed(server, clients)
    assert 0 <= seed < 2**53
    shuffled = clients[:]
    rnd.shuffle(shuffled)
    assert mixed_seed(server, shuffled) == seed


@given(server_seed_text, st.lists(client_seed_text, min_size=1, max_size=6), client_seed_text)
def test_one_more_client_seed_gives_another_seed(server, clients, extra):
    # Another multiset of inputs, another SHA-256 input: a collision would be SHA-256's.
    assert mixed_seed(server, [*clients, extra]) != mixed_seed(server, clients)


@given(server_seed_text, server_seed_text, st.lists(client_seed_text, max_size=4))
def test_another_server_seed_gives_another_seed(one, other, clients):
    if one != other:
        assert mixed_seed(one, clients) != mixed_seed(other, clients)


@pytest.mark.parametrize(
    ("game", "seats", "seed", "code"),
    [
        ("chess", "2", "1", "unknown_game"),
        ("ligretto-mini", "3", "1", "invalid_seats"),
        ("ligretto", "two", "1", "invalid_seats"),
        ("ligretto", "2", "-1", "invalid_seed"),
        ("ligretto", "2", str(2**53), "invalid_seed"),
        ("ligretto", "2", "1e5", "invalid_seed"),
        ("ligretto", "2", "٣", "invalid_seed"),
    ],
)
def test_bad_input_gets_one_code(game, seats, seed, code):
    with pytest.raises(fairness.VerifyError) as refused:
        fairness.verify(game, seats, seed)
    assert refused.value.code == code


def test_bad_seeds_to_check_get_their_code():
    with pytest.raises(fairness.VerifyError) as refused:
        fairness.verify("ligretto", "2", "1", "XYZ")
    assert refused.value.code == "invalid_server_seed"
    with pytest.raises(fairness.VerifyError) as refused:
        fairness.verify("ligretto", "2", "1", "ab" * 32, "ok,not ok")
    assert refused.value.code == "invalid_client_seed"
