"""Allegra rules engine (A1-A10, G0-G2): deal, opening, turns, knocking, triples, scoring.
Pure: no Django, no clock, no global random; shuffles use `random.Random` seeded per round."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from games.engine import (
    Action,
    IllegalAction,
    Progress,
    Sentence,
    View,
    client_seed,
    gettext_noop,
    mixed_seed,
    ngettext,
)
from games.sentences import message_of, to_data

SEAT_LIMITS = {"allegra": (2, 6)}
# The game's name as the site says it (its catalogue words it; the engine keeps English).
NAMES = {"allegra": Sentence(gettext_noop("Allegra"))}
# What a refused move's code says in a few words, where its sentence is not enough (none here).
REFUSALS: dict[str, Sentence] = {}
DEFAULT_ROUNDS = 3
MAX_ROUNDS = 20
# What the site asks for (A1, A10): the room form's fields and its words; the lowest total wins.
OPTION_FIELDS = {"allegra": ("rounds", "clock")}
# Marked for the site's catalogues (games.engine.gettext_noop is a no-op; the site translates).
ROUNDS_HELP = {"allegra": gettext_noop("How many rounds (default 3).")}
LOWEST_WINS = True
# What the room form says under the clock's field.
FIELD_HELP = {
    "allegra": {
        "clock": gettext_noop(
            "Seconds for each decision (the opening’s two cards, a turn, a knock step); when "
            "they run out, a bot decides. 0: no clock (default 30)."
        )
    }
}
# Seconds a player has for each decision (the opening's two cards, a turn, a knock step); 0: no
# clock. The engine only checks the option: the site keeps the time (tables.clocks).
DEFAULT_CLOCK = 30
MAX_CLOCK = 600
# What the site's clock needs to know (tables.clocks, through the registry): the actions a seat
# may take but never owes (A7: anyone may knock; nobody has to), the kinds of decision a clock
# runs for, and those that pass from seat to seat (the same key may come round again).
OPTIONAL_ACTIONS = frozenset({"knock"})
CLOCK_KINDS = ("opening", "turn", "knock", "ready")
TURN_KINDS = ("turn", "knock")
ROWS = 3
COLS = 4

# A2: the one place the deck's make-up is written down (120 cards).
DECK_COUNTS: dict[int, int] = {
    -1: 6,
    0: 8,
    1: 9,
    2: 10,
    3: 10,
    4: 11,
    5: 12,
    6: 11,
    7: 10,
    8: 10,
    9: 9,
    10: 8,
    11: 6,
}
DECK_SIZE = sum(DECK_COUNTS.values())

PHASES = ("opening", "draw", "decide", "knock_place", "knock_take")
ACTION_TYPES = ("reveal", "draw", "swap", "discard", "knock", "give", "place", "take", "ready")

Place = tuple[int, int, int]  # (seat, row, col) of a grid
Cell = tuple[int, bool] | None  # (value, face_up); None once removed by a triple (A8)


@dataclass
class State:
    """Everything about one Allegra match; plain data (see `dump`)."""

    seats: int
    rounds: int
    seed: int
    round: int
    round_seed: int
    first: int
    grids: list[list[list[Cell]]]
    deck: list[int]  # top is the last item
    discard: list[int]  # top is the last item
    status: str = "playing"  # playing | round_over | finished
    phase: str = "opening"
    turn: int | None = None
    revealed: list[int] = field(default_factory=list)
    drawn: int | None = None
    drawn_from: str | None = None  # "deck" | "discard" while a drawn card is held
    knocks: list[int] = field(default_factory=list)
    knocker: int | None = None
    hand: int | None = None
    ender: int | None = None
    final_lap: list[int] = field(default_factory=list)  # seats still to play after the ender
    reshuffles: int = 0
    removed: list[int] = field(default_factory=list)  # values taken out by triples this round
    scores: list[dict[str, Any]] = field(default_factory=list)
    # Beside each score entry: the round's area sums and its ender, so that a score sheet can
    # show the doubling (A9).
    sheet: list[dict[str, Any]] = field(default_factory=list)
    ready: list[int] = field(default_factory=list)
    # What every view says just happened (api.md `message`): the deal through the opening, the
    # final lap until the round ends, the round's scoring through round_over, then the result.
    message: Sentence | str | None = None
    # A checkable shuffle (docs/fairness.md): the next round's server seed (the site's, set by
    # `reseed` when a round ends; never in a view), the client seeds "ready" brought since
    # ([seat, seed]), and those the current round's seed was mixed from (sorted).
    server_seed: str | None = None
    client_seeds: list[list[Any]] = field(default_factory=list)
    clients: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Areas (A4): computed here and nowhere else.


@cache
def area_rows(seats: int, seat: int) -> tuple[tuple[Place, ...], ...]:
    """Return the 3 x 5 places of `seat`'s area: [left neighbour's column 3, own columns 0..3]."""
    left = (seat + 1) % seats
    return tuple(
        ((left, row, COLS - 1),) + tuple((seat, row, col) for col in range(COLS))
        for row in range(ROWS)
    )


@cache
def area_places(seats: int, seat: int) -> tuple[Place, ...]:
    """Return the 15 places of `seat`'s area, row by row."""
    return tuple(p for row in area_rows(seats, seat) for p in row)


@cache
def area_set(seats: int, seat: int) -> frozenset[Place]:
    """Return `seat`'s area as a set, for membership tests."""
    return frozenset(area_places(seats, seat))


def place_dict(p: Place) -> dict[str, int]:
    """Return the API form of a place."""
    return {"seat": p[0], "row": p[1], "col": p[2]}


# ---------------------------------------------------------------------------------------------
# Options and dealing (A1-A3, A5, G1)


def check_options(
    seats: int, options: dict[str, Any] | None, preset: str = "allegra"
) -> dict[str, Any]:
    """Return normalized options, or raise invalid_seats / invalid_options (A1)."""
    if preset not in SEAT_LIMITS:
        raise ValueError(f"unknown preset {preset!r}")
    lo, hi = SEAT_LIMITS[preset]
    if type(seats) is not int or not lo <= seats <= hi:
        raise IllegalAction(
            "invalid_seats",
            gettext_noop("Allegra is played by %(low)d to %(high)d players."),
            low=lo,
            high=hi,
        )
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise IllegalAction("invalid_options", gettext_noop("Options must be an object."))
    unknown = sorted(str(k) for k in options if k not in ("rounds", "clock"))
    if unknown:
        raise IllegalAction("invalid_options", f"Unknown option: {', '.join(unknown)}.")
    rounds = options.get("rounds", DEFAULT_ROUNDS)
    # bool is an int subclass; True rounds would be nonsense.
    if type(rounds) is not int or not 1 <= rounds <= MAX_ROUNDS:
        raise IllegalAction(
            "invalid_options",
            gettext_noop("Rounds must be a whole number from 1 to %(most)d."),
            most=MAX_ROUNDS,
        )
    clock = options.get("clock", DEFAULT_CLOCK)
    if type(clock) is not int or not 0 <= clock <= MAX_CLOCK:
        raise IllegalAction(
            "invalid_options",
            gettext_noop("The clock must be a whole number of seconds from 0 to %(most)d."),
            most=MAX_CLOCK,
        )
    return {"rounds": rounds, "clock": clock}


def describe_end(options: dict[str, Any]) -> Sentence:
    """Say in words how a match with these (checked) options ends (A1, A10)."""
    rounds = options["rounds"]
    if rounds == 1:
        return Sentence(gettext_noop("One round; the lowest score wins."))
    return ngettext(
        "A fixed %(rounds)d round; the lowest total wins.",
        "A fixed %(rounds)d rounds; the lowest total wins.",
        rounds,
        rounds=rounds,
    )


def decision(view: View) -> tuple[list[Any], str]:
    """The key and kind of the decision a table waits for, from a spectator's view (the
    site's clock, tables.clocks): the opening is one decision for every seat (both cards: A5);
    a turn is the active seat's draw and what follows it (A6); each step of a knock (A7: the
    knocker's placing, the active player's taking) is its own; between rounds, pressing ready.
    The key stays the same while it is the same decision."""
    rnd = view.get("round")
    if view.get("status") == "round_over":
        return [rnd, "ready"], "ready"
    phase = view.get("phase")
    if phase == "opening":
        return [rnd, "opening"], "opening"
    if phase in ("knock_place", "knock_take"):
        return [rnd, "knock", phase, view.get("turn")], "knock"
    return [rnd, "turn", view.get("turn")], "turn"


def last_round_points(state: State) -> list[int]:
    """Return each seat's points in the last finished round (its row of the score sheet)."""
    return list(state.scores[-1]["points"])


def round_seed_for(seed: int, round_no: int) -> int:
    """Return the seed of round `round_no` of a match seeded with `seed` (G1)."""
    # String seeding is stable across processes (no hash randomization).
    return random.Random(f"allegra:{seed}:{round_no}").getrandbits(52)


def full_deck() -> list[int]:
    """Return the 120 card values of A2, sorted."""
    return [v for v, n in DECK_COUNTS.items() for _ in range(n)]


def _deal(
    seats: int, rounds: int, seed: int, round_no: int, first: int | None, as_round: int = 0
) -> State:
    # `as_round`: the round number the cards are dealt as (a reseeded round's are round 1's).
    round_seed = round_seed_for(seed, as_round or round_no)
    rng = random.Random(round_seed)
    deck = full_deck()
    rng.shuffle(deck)
    grids: list[list[list[Cell]]] = [
        [[(deck.pop(), False) for _ in range(COLS)] for _ in range(ROWS)] for _ in range(seats)
    ]
    discard = [deck.pop()]
    if first is None:
        first = rng.randrange(seats)
    return State(
        seats=seats,
        rounds=rounds,
        seed=seed,
        round=round_no,
        round_seed=round_seed,
        first=first,
        grids=grids,
        deck=deck,
        discard=discard,
        turn=first,
        revealed=[0] * seats,
        message=Sentence(
            gettext_noop(
                "Round %(round)s is dealt: everyone turns two cards face up, then %(who)s begins."
            ),
            round=round_no,
            who=seat_name(first),
        ),
    )


def new_match(
    seats: int, options: dict[str, Any] | None, seed: int, preset: str = "allegra"
) -> State:
    """Validate the options and deal round 1 from `seed`."""
    opts = check_options(seats, options, preset)
    return _deal(seats, opts["rounds"], seed, 1, None)


# ---------------------------------------------------------------------------------------------
# Small helpers


def _clone(s: State) -> State:
    # Only the lists change in place; every other field is immutable and can be shared.
    # Cells are immutable tuples, so copying the rows copies the grids.
    return replace(
        s,
        grids=[[row[:] for row in g] for g in s.grids],
        deck=s.deck[:],
        discard=s.discard[:],
        revealed=s.revealed[:],
        knocks=s.knocks[:],
        final_lap=s.final_lap[:],
        removed=s.removed[:],
        scores=s.scores[:],  # score entries are never mutated once written
        sheet=s.sheet[:],
        ready=s.ready[:],
    )


def _cell(s: State, p: Place) -> Cell:
    return s.grids[p[0]][p[1]][p[2]]


def _set(s: State, p: Place, c: Cell) -> None:
    s.grids[p[0]][p[1]][p[2]] = c


def _filled(s: State, seat: int) -> list[Place]:
    return [p for p in area_places(s.seats, seat) if _cell(s, p) is not None]


def _face_down(s: State, seat: int) -> list[Place]:
    return [p for p in area_places(s.seats, seat) if (c := _cell(s, p)) is not None and not c[1]]


def _all_face_up(s: State, seat: int) -> bool:
    return not _face_down(s, seat)


def _outside_active(s: State, knocker: int) -> list[Place]:
    """Return the non-empty places of the knocker's area not also in the active player's area."""
    own = area_set(s.seats, s.turn)
    return [p for p in _filled(s, knocker) if p not in own]


def _actor(s: State) -> int | None:
    """Return the seat that must act now (None in the opening, where everyone acts)."""
    if s.phase == "opening":
        return None
    if s.phase == "knock_place":
        return s.knocker
    return s.turn


def _knock_open(s: State) -> bool:
    return s.phase == "decide" and s.drawn is not None and s.drawn_from == "deck"


SEAT_WORDS = gettext_noop("Seat %(seat)s")


def seat_name(seat: int) -> Sentence:
    """Return how messages name a seat (the site's layout puts the player's name instead)."""
    return Sentence(SEAT_WORDS, seat=seat)


# ---------------------------------------------------------------------------------------------
# Triples (A8)


def _equal_face_up(a: Cell, b: Cell, c: Cell) -> bool:
    return (
        a is not None
        and b is not None
        and c is not None
        and a[1]
        and b[1]
        and c[1]
        and a[0] == b[0] == c[0]
    )


def find_triples(s: State) -> set[Place]:
    """Return every place that belongs to at least one triple, over all areas."""
    g = s.grids
    marked: set[Place] = set()
    for seat in range(s.seats):
        for row in area_rows(s.seats, seat):
            cells = [g[p[0]][p[1]][p[2]] for p in row]
            for k in range(3):
                if _equal_face_up(cells[k], cells[k + 1], cells[k + 2]):
                    marked.update(row[k : k + 3])
    # Columns are whole grid columns, so checking every grid once covers every area.
    for seat in range(s.seats):
        grid = g[seat]
        for col in range(COLS):
            if _equal_face_up(grid[0][col], grid[1][col], grid[2][col]):
                marked.update((seat, r, col) for r in range(ROWS))
    return marked


def _remove_triples(s: State, events: list[dict[str, Any]]) -> None:
    # Removal only empties places, which never creates a new triple: one pass suffices.
    marked = find_triples(s)
    if not marked:
        return
    places = sorted(marked)
    values = []
    for p in places:
        cell = _cell(s, p)
        assert cell is not None
        values.append(cell[0])
        s.removed.append(cell[0])
        _set(s, p, None)
    events.append(
        {"type": "triple_removed", "places": [place_dict(p) for p in places], "values": values}
    )


# ---------------------------------------------------------------------------------------------
# Legal actions


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    """List every action `seat` may send now, fully spelled out."""
    s = state
    if type(seat) is not int or not 0 <= seat < s.seats:
        return []
    if s.status == "finished":
        return []
    if s.status == "round_over":
        return [] if seat in s.ready else [{"type": "ready"}]
    if s.phase == "opening":
        if s.revealed[seat] >= 2:
            return []
        return [{"type": "reveal", "place": place_dict(p)} for p in _face_down(s, seat)]
    if s.phase == "knock_place":
        if seat != s.knocker:
            return []
        return [{"type": "place", "place": place_dict(p)} for p in _filled(s, seat)]
    if seat != s.turn:
        if _knock_open(s) and s.seats >= 3 and seat not in s.knocks and _filled(s, seat):
            return [{"type": "knock"}]
        return []
    if s.phase == "draw":
        out: list[Action] = []
        if s.deck:
            out.append({"type": "draw", "source": "deck"})
        if s.discard:
            out.append({"type": "draw", "source": "discard"})
        return out
    if s.phase == "decide":
        if s.drawn is None:
            return [{"type": "reveal", "place": place_dict(p)} for p in _face_down(s, seat)]
        out = [{"type": "swap", "place": place_dict(p)} for p in _filled(s, seat)]
        if s.drawn_from == "deck":
            if _face_down(s, seat):
                out.append({"type": "discard"})
            out.extend({"type": "give", "to": k} for k in s.knocks)
        return out
    if s.phase == "knock_take":
        assert s.knocker is not None
        targets = _filled(s, seat)
        return [
            {"type": "take", "from": place_dict(f), "to": place_dict(t)}
            for f in _outside_active(s, s.knocker)
            for t in targets
        ]
    return []


# ---------------------------------------------------------------------------------------------
# Applying actions


def _is_int(x: Any) -> bool:
    return type(x) is int


def _parse_place(action: dict[str, Any], key: str) -> tuple[int, int, int]:
    p = action.get(key)
    if not isinstance(p, dict) or not all(_is_int(p.get(k)) for k in ("seat", "row", "col")):
        raise IllegalAction("bad_action", f'"{key}" must be a place {{"seat", "row", "col"}}.')
    return (p["seat"], p["row"], p["col"])


def _check_shape(action: Any) -> str:
    """Refuse a malformed action with bad_action, independent of the state."""
    if not isinstance(action, dict):
        raise IllegalAction("bad_action", "An action must be an object.")
    kind = action.get("type")
    if kind not in ACTION_TYPES:
        raise IllegalAction("bad_action", f"Unknown action type {kind!r}.")
    if kind in ("reveal", "swap", "place"):
        _parse_place(action, "place")
    elif kind == "take":
        _parse_place(action, "from")
        _parse_place(action, "to")
    elif kind == "draw":
        if action.get("source") not in ("deck", "discard"):
            raise IllegalAction("bad_action", 'A draw needs "source": "deck" or "discard".')
    elif kind == "give" and not _is_int(action.get("to")):
        raise IllegalAction("bad_action", 'A give needs "to": a seat.')
    return str(kind)


def _in_area(s: State, seat: int, p: Place, what: str = "your area") -> None:
    if p not in area_set(s.seats, seat):
        raise IllegalAction("not_in_area", f"That place is not in {what}.")


def _not_empty(s: State, p: Place) -> tuple[int, bool]:
    cell = _cell(s, p)
    if cell is None:
        raise IllegalAction(
            "empty_place", gettext_noop("That place is empty: its card left the game.")
        )
    return cell


def _require_actor(s: State, seat: int) -> None:
    actor = _actor(s)
    if actor is not None and seat != actor:
        if s.phase == "knock_place":
            raise IllegalAction(
                "not_your_turn",
                gettext_noop("%(name)s must place the card first."),
                name=seat_name(actor),
            )
        raise IllegalAction("not_your_turn", gettext_noop("It is not your turn."))


def apply(state: State, seat: int, action: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    """Apply `seat`'s action; return the new state and events, or raise IllegalAction."""
    if type(seat) is not int or not 0 <= seat < state.seats:
        raise IllegalAction("no_such_seat", gettext_noop("There is no such seat at this table."))
    kind = _check_shape(action)
    if state.status == "finished":
        raise IllegalAction("match_over", gettext_noop("The match is over."))
    if state.status == "round_over" and kind != "ready":
        raise IllegalAction(
            "round_over", gettext_noop("The round is over; send ready for the next one.")
        )
    s = _clone(state)
    events: list[dict[str, Any]] = []
    _HANDLERS[kind](s, seat, action, events)
    _reshuffle_if_empty(s, events)
    return s, events


def _do_reveal(s: State, seat: int, a: dict[str, Any], ev: list[dict[str, Any]]) -> None:
    p = _parse_place(a, "place")
    if s.phase == "opening":
        if s.revealed[seat] >= 2:
            raise IllegalAction(
                "no_more_reveals", gettext_noop("You have already turned two cards face up.")
            )
    else:
        _require_actor(s, seat)
        if s.phase != "decide" or s.drawn is not None:
            raise IllegalAction(
                "wrong_phase", gettext_noop("You may turn a card face up only after a discard.")
            )
    _in_area(s, seat, p)
    cell = _not_empty(s, p)
    if cell[1]:
        raise IllegalAction("face_up", gettext_noop("That card is already face up."))
    _set(s, p, (cell[0], True))
    ev.append({"type": "card_revealed", "seat": seat, "place": place_dict(p), "value": cell[0]})
    _remove_triples(s, ev)
    if s.phase == "opening":
        s.revealed[seat] += 1
        if all(n >= 2 for n in s.revealed):
            s.phase = "draw"
            s.turn = s.first
            s.message = None
            ev.append({"type": "opening_ended", "turn": s.first})
            _skip_stuck(s, ev)
    else:
        _end_turn(s, ev)


def _do_draw(s: State, seat: int, a: dict[str, Any], ev: list[dict[str, Any]]) -> None:
    _require_actor(s, seat)
    if s.phase != "draw":
        raise IllegalAction("wrong_phase", gettext_noop("You cannot draw now."))
    source = a["source"]
    pile = s.deck if source == "deck" else s.discard
    if not pile:
        if source == "deck":
            raise IllegalAction("deck_empty", gettext_noop("The deck pile is empty."))
        raise IllegalAction("discard_empty", gettext_noop("The discard pile is empty."))
    s.drawn = pile.pop()
    s.drawn_from = source
    s.phase = "decide"
    ev.append({"type": "card_drawn", "seat": seat, "source": source, "value": s.drawn})


def _require_held(s: State) -> int:
    if s.phase != "decide":
        raise IllegalAction("wrong_phase", gettext_noop("You hold no drawn card."))
    if s.drawn is None:
        raise IllegalAction(
            "wrong_phase", gettext_noop("You discarded the card: turn a card face up.")
        )
    return s.drawn


def _do_swap(s: State, seat: int, a: dict[str, Any], ev: list[dict[str, Any]]) -> None:
    _require_actor(s, seat)
    drawn = _require_held(s)
    p = _parse_place(a, "place")
    _in_area(s, seat, p)
    old = _not_empty(s, p)[0]
    _set(s, p, (drawn, True))
    s.discard.append(old)
    s.drawn = s.drawn_from = None
    s.knocks = []
    ev.append(
        {"type": "card_swapped", "seat": seat, "place": place_dict(p), "value": drawn, "old": old}
    )
    _remove_triples(s, ev)
    _end_turn(s, ev)


def _do_discard(s: State, seat: int, a: dict[str, Any], ev: list[dict[str, Any]]) -> None:
    _require_actor(s, seat)
    drawn = _require_held(s)
    if s.drawn_from != "deck":
        raise IllegalAction(
            "must_swap", gettext_noop("A card taken from the discard pile must be swapped in.")
        )
    if not _face_down(s, seat):
        raise IllegalAction(
            "must_swap", gettext_noop("No card of your area is face down: you must swap.")
        )
    s.discard.append(drawn)
    s.drawn = s.drawn_from = None
    s.knocks = []
    ev.append({"type": "card_discarded", "seat": seat, "value": drawn})


def _do_knock(s: State, seat: int, a: dict[str, Any], ev: list[dict[str, Any]]) -> None:
    if s.seats < 3:
        raise IllegalAction("no_knocking", gettext_noop("Knocking needs three or more players."))
    if s.phase != "opening" and seat == s.turn:
        raise IllegalAction("own_turn", gettext_noop("You cannot knock on your own card."))
    if not _knock_open(s):
        raise IllegalAction(
            "wrong_phase", gettext_noop("Knock only while a deck card awaits a decision.")
        )
    if seat in s.knocks:
        raise IllegalAction("already_knocked", gettext_noop("You have already knocked."))
    if not _filled(s, seat):
        raise IllegalAction("empty_area", gettext_noop("Your area has no card to swap."))
    s.knocks.append(seat)
    ev.append({"type": "knocked", "seat": seat})


def _do_give(s: State, seat: int, a: dict[str, Any], ev: list[dict[str, Any]]) -> None:
    _require_actor(s, seat)
    drawn = _require_held(s)
    to = a["to"]
    if not _knock_open(s) or to not in s.knocks:
        raise IllegalAction(
            "not_knocked", gettext_noop("You can give the card only to a player who knocked.")
        )
    s.knocker = to
    s.knocks = []
    s.phase = "knock_place"
    ev.append({"type": "card_given", "seat": seat, "to": to, "value": drawn})


def _do_place(s: State, seat: int, a: dict[str, Any], ev: list[dict[str, Any]]) -> None:
    _require_actor(s, seat)
    if s.phase != "knock_place":
        raise IllegalAction("wrong_phase", gettext_noop("There is no given card to place."))
    p = _parse_place(a, "place")
    _in_area(s, seat, p)
    old = _not_empty(s, p)[0]
    assert s.drawn is not None
    value = s.drawn
    _set(s, p, (value, True))
    s.hand = old
    s.drawn = s.drawn_from = None
    ev.append(
        {"type": "card_placed", "seat": seat, "place": place_dict(p), "value": value, "old": old}
    )
    _remove_triples(s, ev)
    assert s.turn is not None
    if not _outside_active(s, seat) or not _filled(s, s.turn):
        # A7+: nothing to take, so steps 2 and 3 fall away.
        s.discard.append(old)
        s.hand = None
        ev.append({"type": "hand_discarded", "seat": seat, "value": old})
        s.knocker = None
        _end_turn(s, ev)
    else:
        s.phase = "knock_take"


def _do_take(s: State, seat: int, a: dict[str, Any], ev: list[dict[str, Any]]) -> None:
    _require_actor(s, seat)
    if s.phase != "knock_take":
        raise IllegalAction("wrong_phase", gettext_noop("You cannot take a card now."))
    knocker = s.knocker
    assert knocker is not None and s.hand is not None
    src = _parse_place(a, "from")
    dst = _parse_place(a, "to")
    _in_area(s, knocker, src, "the knocker's area")
    if src in area_set(s.seats, seat):
        raise IllegalAction(
            "in_own_area", gettext_noop("That card is in your own area too; take another.")
        )
    value = _not_empty(s, src)[0]
    _in_area(s, seat, dst)
    old = _not_empty(s, dst)[0]
    _set(s, dst, (value, True))
    _set(s, src, None)  # the hole counts as empty until step 3 fills it
    s.discard.append(old)
    ev.append(
        {
            "type": "card_taken",
            "seat": seat,
            "from": place_dict(src),
            "to": place_dict(dst),
            "value": value,
            "old": old,
        }
    )
    _remove_triples(s, ev)
    _set(s, src, (s.hand, True))
    ev.append({"type": "hole_filled", "seat": knocker, "place": place_dict(src), "value": s.hand})
    s.hand = None
    s.knocker = None
    _remove_triples(s, ev)
    _end_turn(s, ev)


def _do_ready(s: State, seat: int, a: dict[str, Any], ev: list[dict[str, Any]]) -> None:
    if s.status != "round_over":
        raise IllegalAction("wrong_phase", gettext_noop("The round is still being played."))
    if seat in s.ready:
        raise IllegalAction("already_ready", gettext_noop("You are already ready."))
    s.ready.append(seat)
    own = client_seed(a)
    if own is not None:
        s.client_seeds = [*s.client_seeds, [seat, own]]
    ev.append({"type": "player_ready", "seat": seat})
    if len(s.ready) < s.seats:
        return
    if s.round < s.rounds:
        first = (s.first + 1) % s.seats
        if s.server_seed is not None:
            # A reseeded round: its cards as round 1 of a match seeded with its own seed.
            clients = sorted(str(c) for _, c in s.client_seeds)
            seed = mixed_seed(s.server_seed, clients)
            nxt = _deal(s.seats, s.rounds, seed, s.round + 1, first, as_round=1)
            nxt.clients = clients
        else:
            nxt = _deal(s.seats, s.rounds, s.seed, s.round + 1, first)
        nxt.scores = s.scores[:]
        nxt.sheet = s.sheet[:]
        s.__dict__.update(nxt.__dict__)
        ev.append({"type": "round_dealt", "round": s.round, "first": s.first})
        return
    totals = match_totals(s)
    best = min(totals)
    winners = [i for i, t in enumerate(totals) if t == best]
    s.status = "finished"
    if len(winners) == 1:
        s.message = Sentence(
            gettext_noop("%(who)s wins the match with %(points)s points."),
            who=seat_name(winners[0]),
            points=best,
        )
    else:
        names = Sentence(
            gettext_noop("%(names)s and %(last)s"),
            names=", ".join(seat_name(w) for w in winners[:-1]),
            last=seat_name(winners[-1]),
        )
        s.message = Sentence(
            gettext_noop("%(who)s win the match with %(points)s points."), who=names, points=best
        )
    ev.append(
        {"type": "match_finished", "totals": totals, "winners": winners, "message": s.message}
    )


_HANDLERS = {
    "reveal": _do_reveal,
    "draw": _do_draw,
    "swap": _do_swap,
    "discard": _do_discard,
    "knock": _do_knock,
    "give": _do_give,
    "place": _do_place,
    "take": _do_take,
    "ready": _do_ready,
}


# ---------------------------------------------------------------------------------------------
# Turn order, end of round (A9) and the empty deck (A10)


def _skip_stuck(s: State, ev: list[dict[str, Any]]) -> None:
    """Pass the turn of a player whose area has no card left: he can neither swap nor reveal."""
    # Only reachable when triples emptied a whole area; that area is all face up, so an ender
    # exists and the final lap bounds this loop.
    while s.status == "playing" and s.turn is not None and not _filled(s, s.turn):
        ev.append({"type": "turn_skipped", "seat": s.turn})
        _end_turn(s, ev, skipped=True)


def _end_turn(s: State, ev: list[dict[str, Any]], skipped: bool = False) -> None:
    active = s.turn
    assert active is not None
    n = s.seats
    s.phase = "draw"
    s.drawn = s.drawn_from = None
    s.knocks = []
    s.knocker = None
    if s.ender is None:
        for k in range(n):
            cand = (active + k) % n
            if _all_face_up(s, cand):
                s.ender = cand
                lap = [(active + j) % n for j in range(1, n + 1)]
                s.final_lap = [x for x in lap if x != cand]
                s.message = Sentence(
                    gettext_noop(
                        "%(who)s has every card face up: everyone else gets one more turn."
                    ),
                    who=seat_name(cand),
                )
                ev.append({"type": "round_ending", "ender": cand, "message": s.message})
                break
    if s.ender is None:
        s.turn = (active + 1) % n
    elif s.final_lap:
        s.turn = s.final_lap.pop(0)
    else:
        _finish_round(s, ev)
        return
    if not skipped:
        _skip_stuck(s, ev)


def area_sum(s: State, seat: int) -> int:
    """Return the sum of the non-empty places of `seat`'s area (face-down cards included)."""
    return sum(c[0] for p in area_places(s.seats, seat) if (c := _cell(s, p)) is not None)


def _finish_round(s: State, ev: list[dict[str, Any]]) -> None:
    for grid in s.grids:
        for row in grid:
            for i, c in enumerate(row):
                if c is not None and not c[1]:
                    row[i] = (c[0], True)
    ev.append({"type": "cards_turned"})
    _remove_triples(s, ev)  # A8+: before scoring
    sums = [area_sum(s, seat) for seat in range(s.seats)]
    ender = s.ender
    assert ender is not None
    points = sums[:]
    doubled = sums[ender] > 0 and sums[ender] > min(sums)
    if doubled:
        points[ender] *= 2
    s.scores = s.scores + [{"round": s.round, "points": points}]
    s.sheet = s.sheet + [{"round": s.round, "sums": sums, "ender": ender}]
    s.status = "round_over"
    s.turn = None
    s.phase = "draw"
    s.ready = []
    s.final_lap = []
    who = seat_name(ender)
    said = {"who": who, "sum": sums[ender], "points": points[ender]}
    if doubled:
        tail = gettext_noop(
            "%(who)s ended round %(round)s. %(who)s's %(sum)s was not the lowest, so it was "
            "doubled to %(points)s."
        )
    elif sums[ender] == min(sums):
        tail = gettext_noop(
            "%(who)s ended round %(round)s. %(who)s had the lowest sum (%(sum)s), so nothing "
            "was doubled."
        )
    else:
        tail = gettext_noop(
            "%(who)s ended round %(round)s. %(who)s's sum of %(sum)s was not above 0, so it "
            "was not doubled."
        )
    s.message = Sentence(tail, round=s.round, **said)
    ev.append(
        {
            "type": "round_ended",
            "round": s.round,
            "ender": ender,
            "sums": sums,
            "points": points,
            "doubled": ender if doubled else None,
            "message": s.message,
        }
    )


def _reshuffle_if_empty(s: State, ev: list[dict[str, Any]]) -> None:
    if s.status != "playing" or s.deck or len(s.discard) < 2:
        return
    s.reshuffles += 1
    cards = s.discard[:-1]
    s.discard = s.discard[-1:]
    random.Random(f"{s.round_seed}:{s.reshuffles}").shuffle(cards)
    s.deck = cards
    ev.append({"type": "deck_reshuffled", "deck_count": len(cards)})


def match_totals(s: State) -> list[int]:
    """Return each seat's total over the finished rounds."""
    totals = [0] * s.seats
    for entry in s.scores:
        for i, p in enumerate(entry["points"]):
            totals[i] += p
    return totals


# ---------------------------------------------------------------------------------------------
# Views


def _card(v: int | None) -> dict[str, int] | None:
    return None if v is None else {"value": v}


def _view_cell(c: Cell) -> dict[str, Any] | None:
    if c is None:
        return None
    return {"value": c[0]} if c[1] else {"hidden": True}


def player_view(state: State, seat: int | None) -> dict[str, Any]:
    """Return everything `seat` (None: a spectator) may see: no face-down value, no deck order."""
    s = state
    n = s.seats
    mine = type(seat) is int and 0 <= seat < n
    totals = match_totals(s)
    view: dict[str, Any] = {
        "status": s.status,
        "round": s.round,
        "rounds": s.rounds,
        "seats": n,
        "turn": s.turn,
        "phase": s.phase,
        "deck_count": len(s.deck),
        "discard_top": _card(s.discard[-1]) if s.discard else None,
        "discard_count": len(s.discard),
        "drawn": _card(s.drawn),
        "drawn_from": s.drawn_from,
        "knocks": s.knocks[:],
        "knocker": s.knocker,
        "hand": _card(s.hand),
        "ender": s.ender,
        "final_lap": s.final_lap[:],
        "grids": [
            {"seat": i, "cells": [[_view_cell(c) for c in row] for row in s.grids[i]]}
            for i in range(n)
        ],
        "areas": [
            {"seat": i, "places": [[place_dict(p) for p in row] for row in area_rows(n, i)]}
            for i in range(n)
        ],
        "area_sums": [
            sum(c[0] for p in area_places(n, i) if (c := _cell(s, p)) is not None and c[1])
            for i in range(n)
        ],
        "legal": legal_actions(s, seat) if mine and seat is not None else [],
        "scores": [{"round": e["round"], "points": e["points"][:]} for e in s.scores],
        # Each finished round's area sums and ender (A9): the points differ only by a doubling.
        "score_sheet": [
            {
                "round": e["round"],
                "points": e["points"][:],
                "sums": x["sums"][:],
                "ender": x["ender"],
                "doubled": x["ender"] if e["points"][x["ender"]] != x["sums"][x["ender"]] else None,
            }
            for e, x in zip(s.scores, s.sheet, strict=False)
        ],
        "totals": totals,
        "seat": seat,
        "message": s.message,
    }
    if s.phase == "opening" and s.status == "playing":
        view["revealed_count"] = s.revealed[:]
    if s.status == "round_over":
        view["ready"] = s.ready[:]
    if s.status == "finished" or s.status == "round_over" and s.round >= s.rounds:
        # A1: once the last round is over the lowest total has won; a view says so at once.
        best = min(totals)
        key = "winners" if s.status == "finished" else "match_winners"
        view[key] = [i for i, t in enumerate(totals) if t == best]
    return view


# ---------------------------------------------------------------------------------------------
# Persistence (G0)


def dump(state: State) -> dict[str, Any]:
    """Return the state as JSON-native data that survives a JSON round trip unchanged."""
    s = state
    return {
        "game": "allegra",
        "seats": s.seats,
        "rounds": s.rounds,
        "seed": s.seed,
        "round": s.round,
        "round_seed": s.round_seed,
        "first": s.first,
        "grids": [
            [[None if c is None else [c[0], c[1]] for c in row] for row in g] for g in s.grids
        ],
        "deck": s.deck[:],
        "discard": s.discard[:],
        "status": s.status,
        "phase": s.phase,
        "turn": s.turn,
        "revealed": s.revealed[:],
        "drawn": s.drawn,
        "drawn_from": s.drawn_from,
        "knocks": s.knocks[:],
        "knocker": s.knocker,
        "hand": s.hand,
        "ender": s.ender,
        "final_lap": s.final_lap[:],
        "reshuffles": s.reshuffles,
        "removed": s.removed[:],
        "scores": [{"round": e["round"], "points": list(e["points"])} for e in s.scores],
        "sheet": [
            {"round": x["round"], "sums": list(x["sums"]), "ender": x["ender"]} for x in s.sheet
        ],
        "ready": s.ready[:],
        "message": None if s.message is None else str(s.message),
        # Its template and parameters: a reloaded table still says it in every language.
        "message_words": to_data(s.message),
        **_dump_fairness(s),
    }


def _dump_fairness(s: State) -> dict[str, Any]:
    # Only when set: a match without a checkable shuffle dumps as it always did.
    data: dict[str, Any] = {}
    if s.server_seed is not None:
        data["server_seed"] = s.server_seed
    if s.client_seeds:
        data["client_seeds"] = [list(c) for c in s.client_seeds]
    if s.clients:
        data["clients"] = s.clients[:]
    return data


def dealt(state: State) -> dict[str, Any]:
    """Every card where it lies (grids row by row, deck and discard top last): a deal as the
    verifier shows it (docs/fairness.md); who begins is not part of the shuffle."""
    return {
        "grids": [[[None if c is None else c[0] for c in row] for row in g] for g in state.grids],
        "deck": state.deck[:],
        "discard": state.discard[:],
    }


def reseed(state: State, server_seed: str) -> State:
    """`state`, whose next round is dealt from `server_seed` mixed with the client seeds."""
    return replace(state, server_seed=server_seed)


def load(data: dict[str, Any]) -> State:
    """Rebuild a state from `dump`'s output."""
    d = data
    return State(
        seats=d["seats"],
        rounds=d["rounds"],
        seed=d["seed"],
        round=d["round"],
        round_seed=d["round_seed"],
        first=d["first"],
        grids=[
            [[None if c is None else (int(c[0]), bool(c[1])) for c in row] for row in g]
            for g in d["grids"]
        ],
        deck=list(d["deck"]),
        discard=list(d["discard"]),
        status=d.get("status", "playing"),
        phase=d.get("phase", "opening"),
        turn=d.get("turn"),
        revealed=list(d.get("revealed") or [0] * d["seats"]),
        drawn=d.get("drawn"),
        drawn_from=d.get("drawn_from"),
        knocks=list(d.get("knocks", [])),
        knocker=d.get("knocker"),
        hand=d.get("hand"),
        ender=d.get("ender"),
        final_lap=list(d.get("final_lap", [])),
        reshuffles=d.get("reshuffles", 0),
        removed=list(d.get("removed", [])),
        scores=[{"round": e["round"], "points": list(e["points"])} for e in d.get("scores", [])],
        sheet=[
            {"round": x["round"], "sums": list(x["sums"]), "ender": x["ender"]}
            for x in d.get("sheet", [])
        ],
        ready=list(d.get("ready", [])),
        message=message_of(d, d.get("message")),
        server_seed=d.get("server_seed"),
        client_seeds=[[int(c[0]), str(c[1])] for c in d.get("client_seeds", [])],
        clients=[str(c) for c in d.get("clients", [])],
    )


# ---------------------------------------------------------------------------------------------
# What nobody sees


def cards(state: State) -> list[int]:
    """Every card of the match wherever it is (A2: always the same 120)."""
    on_table = [c[0] for g in state.grids for row in g for c in row if c is not None]
    held = [v for v in (state.drawn, state.hand) if v is not None]
    return sorted(state.deck + state.discard + on_table + held + state.removed)


def redeal_hidden(state: State, seat: int | None, rng: random.Random) -> State:
    """Return `state` with what `seat` (None: a spectator) cannot see dealt anew from `rng`.

    In Allegra that is the same for everyone: the face-down values of every grid, the deck's
    order and the discard pile under its top. The views of `seat` must not change.
    """
    t = _clone(state)
    down = [
        (i, r, c)
        for i, g in enumerate(t.grids)
        for r, row in enumerate(g)
        for c, cell in enumerate(row)
        if cell is not None and not cell[1]
    ]
    pool = [t.grids[i][r][c][0] for i, r, c in down] + t.deck + t.discard[:-1]  # type: ignore[index]
    rng.shuffle(pool)
    for i, r, c in down:
        t.grids[i][r][c] = (pool.pop(), False)
    t.deck, t.discard = pool[: len(t.deck)], pool[len(t.deck) :] + t.discard[-1:]
    return t


def progress(state: State) -> Progress:
    """The round being played, the rounds scored, the deal's seed and the status (the site's)."""
    return Progress(
        round=state.round,
        rounds_scored=len(state.scores),
        seed=state.seed,
        status=state.status,
        clients=tuple(state.clients),
    )


def player_views(state: State, seats: list[int | None]) -> dict[int | None, View]:
    """`player_view` of each of `seats` (every Allegra seat sees its own face-down cards)."""
    return {seat: player_view(state, seat) for seat in seats}
