"""High Card (test-only): each seat holds three hidden cards; the highest card wins a trick.

Pure: no Django, no clock, no global random; the deal comes from the seed. Rule ids H1-H5:
H1 a deck of 1..12, three cards each, the rest a face-down stock; H2 the turn seat plays one
card; H3 when every seat has played, the highest card takes the trick and leads next; H4 a round
ends with the hands, one point per trick; H5 after the last round the highest total wins.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from games.engine import (
    Action,
    Event,
    IllegalAction,
    Progress,
    Sentence,
    View,
    client_seed,
    mixed_seed,
)

SEAT_LIMITS = {"highcard": (2, 4)}
# Its name as the site says it (a Sentence: the site's catalogue does not know it, so English).
NAMES = {"highcard": Sentence("High Card")}
REFUSALS: dict[str, Sentence] = {}
DECK = tuple(range(1, 13))
HAND = 3
MAX_ROUNDS = 5
OPTION_FIELDS = {"highcard": ("rounds",)}
ROUNDS_HELP = {"highcard": "How many rounds (default 1)."}
LOWEST_WINS = False


@dataclass(frozen=True)
class State:
    preset: str
    seats: int
    options: dict[str, Any]
    seed: int
    round: int
    status: str  # playing, round_over, finished
    hands: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    trick: tuple[tuple[int, int], ...]  # (seat, value) in the order played
    taken: tuple[tuple[int, ...], ...]  # the cards of the tricks each seat took this round
    turn: int
    scores: tuple[tuple[int, ...], ...] = ()
    ready: tuple[int, ...] = ()
    message: Sentence | str = ""
    # The checkable shuffle (docs/fairness.md): the next round's server seed, the client seeds
    # brought with "ready" since, and those the current round's seed was mixed from.
    server_seed: str | None = None
    client_seeds: tuple[tuple[int, str], ...] = ()
    clients: tuple[str, ...] = ()


def check_options(
    seats: int, options: dict[str, Any] | None, preset: str = "highcard"
) -> dict[str, Any]:
    """Return the options with defaults filled, or raise invalid_seats / invalid_options."""
    low, high = SEAT_LIMITS[preset]
    if type(seats) is not int or not low <= seats <= high:
        raise IllegalAction("invalid_seats", f"High Card is played by {low} to {high} players.")
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise IllegalAction("invalid_options", "Options must be an object.")
    unknown = sorted(str(k) for k in options if k != "rounds")
    if unknown:
        raise IllegalAction("invalid_options", f"Unknown option: {', '.join(unknown)}.")
    rounds = options.get("rounds", 1)
    if type(rounds) is not int or not 1 <= rounds <= MAX_ROUNDS:
        raise IllegalAction(
            "invalid_options", f"Rounds must be a whole number from 1 to {MAX_ROUNDS}."
        )
    return {"rounds": rounds}


def describe_end(options: dict[str, Any]) -> Sentence:
    """Say in words how a match with these (checked) options ends (H5)."""
    rounds = options["rounds"]
    if rounds == 1:
        return Sentence("One round; the most tricks win.")
    return Sentence("A fixed %(rounds)d rounds; the highest total wins.", rounds=rounds)


def _deal(
    state_seats: int, seed: int, round_no: int
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    deck = list(DECK)
    random.Random(seed * 100 + round_no).shuffle(deck)  # H1: a seeded deal per round
    hands = tuple(tuple(sorted(deck[i * HAND : (i + 1) * HAND])) for i in range(state_seats))
    return hands, tuple(deck[state_seats * HAND :])


def new_match(
    seats: int, options: dict[str, Any] | None, seed: int, preset: str = "highcard"
) -> State:
    """Deal round 1 from `seed`."""
    checked = check_options(seats, options, preset)
    hands, stock = _deal(seats, seed, 1)
    return State(
        preset=preset,
        seats=seats,
        options=checked,
        seed=seed,
        round=1,
        status="playing",
        hands=hands,
        stock=stock,
        trick=(),
        taken=((),) * seats,
        turn=0,
    )


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action `seat` may send now."""
    if state.status == "playing" and seat == state.turn:
        return [{"type": "play", "index": i} for i in range(len(state.hands[seat]))]
    if state.status == "round_over" and seat not in state.ready:
        return [{"type": "ready"}]
    return []


def apply(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """Apply `action` for `seat`; raise IllegalAction (state unchanged) if it is not allowed."""
    if not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise IllegalAction("not_seated", "There is no such seat.")
    kind = action.get("type") if isinstance(action, dict) else None
    if kind == "play":
        return _play(state, seat, action)
    if kind == "ready":
        return _ready(state, seat, client_seed(action))
    raise IllegalAction("unknown_action", "High Card knows the actions play and ready.")


def _play(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    if state.status != "playing":
        raise IllegalAction("not_playing", "The round is not being played.")
    if seat != state.turn:
        raise IllegalAction("not_your_turn", "It is not your turn.")
    hand, index = state.hands[seat], action.get("index")
    if type(index) is not int or not 0 <= index < len(hand):
        raise IllegalAction("bad_index", "Pick one of your cards.")
    value = hand[index]
    hands = tuple(h[:index] + h[index + 1 :] if s == seat else h for s, h in enumerate(state.hands))
    trick = state.trick + ((seat, value),)
    events: list[Event] = [{"type": "card_played", "seat": seat, "value": value}]
    if len(trick) < state.seats:  # H2: the next seat plays
        return replace(state, hands=hands, trick=trick, turn=(seat + 1) % state.seats), events
    winner = max(trick, key=lambda play: play[1])[0]  # H3: the highest card (values are unique)
    taken = tuple(
        t + tuple(v for _, v in trick) if s == winner else t for s, t in enumerate(state.taken)
    )
    events.append({"type": "trick_won", "seat": winner})
    new = replace(state, hands=hands, trick=(), taken=taken, turn=winner)
    if any(hands):
        return new, events
    points = tuple(len(t) // state.seats for t in taken)  # H4: a point per trick
    best = max(range(state.seats), key=points.__getitem__)
    message = Sentence(
        "Round %(round)s is over: seat %(seat)s took the most tricks.", round=state.round, seat=best
    )
    new = replace(new, status="round_over", scores=state.scores + (points,), message=message)
    events.append(
        {"type": "round_ended", "points": list(points), "reason": "hands_empty", "message": message}
    )
    return new, events


def _ready(state: State, seat: int, seed: str | None) -> tuple[State, list[Event]]:
    if state.status != "round_over" or seat in state.ready:
        raise IllegalAction("not_round_over", "There is nothing to be ready for.")
    new = replace(state, ready=tuple(sorted(state.ready + (seat,))))
    if seed is not None:
        new = replace(new, client_seeds=(*new.client_seeds, (seat, seed)))
    events: list[Event] = [{"type": "player_ready", "seat": seat}]
    if len(new.ready) < state.seats:
        return new, events
    if len(state.scores) >= state.options["rounds"]:  # H5
        win = winners(new)
        message = Sentence(
            "The match is over: %(seats)s won.", seats=", ".join(f"seat {s}" for s in win)
        )
        new = replace(new, status="finished", message=message)
        events.append(
            {"type": "match_finished", "totals": totals(new), "winners": win, "message": message}
        )
        return new, events
    seed, clients, as_round = state.seed, (), state.round + 1
    if state.server_seed is not None:  # a reseeded round is dealt as round 1 from its own seed
        clients = tuple(sorted(c for _, c in new.client_seeds))
        seed, as_round = mixed_seed(state.server_seed, clients), 1
    hands, stock = _deal(state.seats, seed, as_round)
    new = replace(
        new,
        seed=seed,
        server_seed=None,
        client_seeds=(),
        clients=clients,
        round=state.round + 1,
        status="playing",
        hands=hands,
        stock=stock,
        taken=((),) * state.seats,
        turn=state.round % state.seats,  # the lead moves on each round
        ready=(),
        message="",
    )
    return new, events + [{"type": "round_started", "round": new.round}]


def totals(state: State) -> list[int]:
    return [sum(row[s] for row in state.scores) for s in range(state.seats)]


def winners(state: State) -> list[int]:
    sums = totals(state)
    return [s for s, v in enumerate(sums) if v == max(sums)]


def last_round_points(state: State) -> list[int]:
    """Return each seat's points in the last finished round (its row of the score sheet)."""
    return list(state.scores[-1])


def cards(state: State) -> list[int]:
    """Every card the state holds (H1: the whole deck, always)."""
    held = [v for h in state.hands for v in h] + [v for t in state.taken for v in t]
    return sorted(held + list(state.stock) + [v for _, v in state.trick])


def redeal_hidden(state: State, seat: int | None, rng: random.Random) -> State:
    """Return `state` with what `seat` cannot see (the others' hands, the stock) dealt anew."""
    others = [s for s in range(state.seats) if s != seat]
    pool = [v for s in others for v in state.hands[s]] + list(state.stock)
    rng.shuffle(pool)
    hands = list(state.hands)
    for s in others:
        hands[s], pool = tuple(sorted(pool[: len(hands[s])])), pool[len(hands[s]) :]
    return replace(state, hands=tuple(hands), stock=tuple(pool))


def player_view(state: State, seat: int | None) -> View:
    """Everything `seat` (None: a spectator) may see: its own hand, only counts of the others'."""
    view: View = {
        "game": state.preset,
        "options": dict(state.options),
        "status": state.status,
        "round": state.round,
        "turn": state.turn,
        "trick": [{"seat": s, "value": v} for s, v in state.trick],
        "hands": [
            {"seat": s, "count": len(h), "tricks": len(state.taken[s]) // state.seats}
            for s, h in enumerate(state.hands)
        ],
        "hand": list(state.hands[seat]) if seat is not None else None,
        "stock_count": len(state.stock),
        "legal": legal_actions(state, seat) if seat is not None else [],
        "scores": [{"round": i + 1, "points": list(p)} for i, p in enumerate(state.scores)],
        "totals": totals(state),
        "ready": list(state.ready),
        "seat": seat,
        "message": state.message or None,
    }
    if state.status == "finished":
        view["winners"] = winners(state)
    return view


def dump(state: State) -> dict[str, Any]:
    """The state as JSON-native data."""
    return {
        "preset": state.preset,
        "seats": state.seats,
        "options": dict(state.options),
        "seed": state.seed,
        "round": state.round,
        "status": state.status,
        "hands": [list(h) for h in state.hands],
        "stock": list(state.stock),
        "trick": [list(p) for p in state.trick],
        "taken": [list(t) for t in state.taken],
        "turn": state.turn,
        "scores": [list(p) for p in state.scores],
        "ready": list(state.ready),
        "message": state.message,
        # Only when set: a match without a checkable shuffle dumps as it always did.
        **({"server_seed": state.server_seed} if state.server_seed is not None else {}),
        **({"client_seeds": [list(c) for c in state.client_seeds]} if state.client_seeds else {}),
        **({"clients": list(state.clients)} if state.clients else {}),
    }


def load(data: dict[str, Any]) -> State:
    """The state `dump` wrote."""
    return State(
        preset=data["preset"],
        seats=data["seats"],
        options=dict(data["options"]),
        seed=data["seed"],
        round=data["round"],
        status=data["status"],
        hands=tuple(tuple(h) for h in data["hands"]),
        stock=tuple(data["stock"]),
        trick=tuple((s, v) for s, v in data["trick"]),
        taken=tuple(tuple(t) for t in data["taken"]),
        turn=data["turn"],
        scores=tuple(tuple(p) for p in data["scores"]),
        ready=tuple(data["ready"]),
        message=data["message"],
        server_seed=data.get("server_seed"),
        client_seeds=tuple((int(s), str(c)) for s, c in data.get("client_seeds", ())),
        clients=tuple(data.get("clients", ())),
    )


def progress(state: State) -> Progress:
    """The round being played, the rounds scored, the deal's seed and the status (the site's)."""
    return Progress(
        round=state.round,
        rounds_scored=len(state.scores),
        seed=state.seed,
        status=state.status,
        clients=state.clients,
    )


def dealt(state: State) -> dict[str, Any]:
    """Every card where it lies: the hands and the stock."""
    return {"hands": [list(h) for h in state.hands], "stock": list(state.stock)}


def reseed(state: State, server_seed: str) -> State:
    """`state`, whose next round is dealt from `server_seed` mixed with the client seeds."""
    return replace(state, server_seed=server_seed)


def player_views(state: State, seats: list[int | None]) -> dict[int | None, View]:
    """`player_view` of each of `seats`."""
    return {seat: player_view(state, seat) for seat in seats}
