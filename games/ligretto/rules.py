"""Ligretto and Ligretto Mini rules engine: rules L1-L16 (with L6+, L14+) and G0-G2, both presets.

Pure: no Django, no clock, no global random; each deal uses random.Random(match seed, round).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, TypeGuard

from games.engine import (
    Action,
    Event,
    IllegalAction,
    Progress,
    Sentence,
    View,
    client_seed,
    gettext_noop,
    mixed_seed,
    ngettext,
    term,
)
from games.sentences import message_of, to_data

SEAT_LIMITS = {"ligretto-mini": (2, 2), "ligretto": (2, 12)}
COLORS = {"ligretto-mini": ("red", "green", "blue"), "ligretto": ("red", "yellow", "green", "blue")}
TOP_VALUE = {"ligretto-mini": 9, "ligretto": 10}
STACK_SIZE = {"ligretto-mini": 7, "ligretto": 10}
MAX_ROUNDS = 50
MAX_TARGET = 10_000
DEFAULT_TARGET = 99
# L6: Mini plays one round; Ligretto stops after round 10 even if nobody reached the target.
DEFAULT_ROUNDS = {"ligretto-mini": 1, "ligretto": 10}
# L6 (Mini, issue 45): a Mini match to a target stops, like Ligretto's, after round 10 at most.
MINI_TARGET_ROUNDS = 10
# L6 (Mini): "best of N" for an odd N up to this; the first to win N // 2 + 1 rounds wins.
MAX_BEST_OF = 9
# What the site asks for per preset (L6, L6+, L16): the room form's fields and its words.
OPTION_FIELDS = {
    "ligretto-mini": ("rounds", "target", "best_of", "row_variant"),
    "ligretto": ("target", "no_target", "rounds", "row_variant"),
}
# Marked for the site's catalogues (games.engine.gettext_noop is a no-op; the site translates).
ROUNDS_HELP = {
    "ligretto-mini": gettext_noop("How many rounds (default 1)."),
    "ligretto": gettext_noop(
        "The most rounds (default 10); the match may end sooner at the target."
    ),
}
TARGET_HELP = {
    "ligretto-mini": gettext_noop(
        "Points that end the match (default: none; with a target, at most 10 rounds)."
    ),
    "ligretto": gettext_noop("Points that end the match (default 99)."),
}
# What the room form says under the other fields of a preset (L6's best of N, L16's variant).
_ROW_VARIANT_HELP = gettext_noop(
    "A card may also go onto one of your own row cards that is exactly one higher and of "
    "another colour."
)
FIELD_HELP = {
    "ligretto-mini": {
        "best_of": gettext_noop(
            "Rounds (an odd number): the first to win more than half of them wins the match; "
            "a round goes to whoever scored most in it. Empty: off."
        ),
        "row_variant": _ROW_VARIANT_HELP,
    },
    "ligretto": {"row_variant": _ROW_VARIANT_HELP},
}
LOWEST_WINS = False  # L15: the highest total wins
FLIP_COUNT = 3
# 2: options always hold `rounds` (and Ligretto `target`, maybe null), `message` and
# `standstills` were added, `end_message` dropped. load() still reads version 1.
DUMP_VERSION = 2
# The presets' names as the site says them (its catalogue words them; the engine keeps English).
NAMES = {
    "ligretto-mini": Sentence(gettext_noop("Ligretto Mini")),
    "ligretto": Sentence(gettext_noop("Ligretto")),
}
# The refusals a replay shows (a move the server refused is logged with its code, L12).
REFUSALS = {"too_slow": Sentence(gettext_noop("too slow: someone else got there first"))}
UNBLOCKED = Sentence(
    gettext_noop("Nobody could play: everyone's top hand card went to the bottom.")
)


class Card(NamedTuple):
    """One card; `owner` is the seat whose back it carries (L15 scores by it)."""

    color: str
    value: int
    owner: int


# Tuples everywhere: a State is never mutated after it is built, so `apply` can share every
# part it does not touch with the previous state (cheap structural copies, G2).
@dataclass(slots=True)
class Player:
    """One seat's cards: row slots (bottom..top), stack (top last), hand (next first), waste."""

    row: tuple[tuple[Card, ...], ...]
    stack: tuple[Card, ...]
    hand: tuple[Card, ...]
    waste: tuple[Card, ...]
    # Derived: the tableau a view shows of this player, with what it was built for (seat, own
    # cards in the centre). A move builds new Players only for what it changes, so the others'
    # are built once, not once per view. Never dumped or compared; `replace` starts without.
    _view: tuple[int, int, dict[str, Any]] | None = field(
        default=None, init=False, compare=False, repr=False
    )
    # Derived too: its legal plays, with the seat and the centre's wanted cards they were
    # listed for (a flip of someone else's keeps both, so his list is not made again).
    _legal: tuple[int, dict[tuple[str, int], int], bool, list[Action]] | None = field(
        default=None, init=False, compare=False, repr=False
    )


@dataclass(slots=True)
class Pile:
    """A centre pile; its id is its index in `State.center`."""

    color: str
    cards: tuple[Card, ...]
    closed: bool = False
    # Derived, as Player._view: the pile as a view shows it, and its cards per owner seat.
    _view: tuple[int, bool, dict[str, Any]] | None = field(
        default=None, init=False, compare=False, repr=False
    )
    _owners: tuple[int, ...] | None = field(default=None, init=False, compare=False, repr=False)


@dataclass(slots=True)
class State:
    """A whole match: the current round's cards plus the finished rounds' points."""

    preset: str
    options: dict[str, Any]
    seed: int
    round: int
    status: str  # "playing" | "round_over" | "finished"
    players: tuple[Player, ...]
    center: tuple[Pile, ...] = ()
    scores: tuple[tuple[int, ...], ...] = ()
    ready: tuple[int, ...] = ()
    end_reason: str | None = None
    # What every view says just happened (api.md `message`): an unblock until the next card is
    # played, a round's end through round_over, the match result once finished; else None.
    message: Sentence | str | None = None
    # L14+: the standstills met since the last card was played, as `_standstill_key`s. Older
    # ones cannot come back, because the centre (and the rows) only ever grow.
    standstills: tuple[tuple[Any, ...], ...] = ()
    # A checkable shuffle (docs/fairness.md): the next round's server seed (the site's, set by
    # `reseed` when a round ends; never in a view) and the client seeds "ready" brought since.
    server_seed: str | None = None
    client_seeds: tuple[tuple[int, str], ...] = ()
    # The client seeds the current round's seed was mixed from (sorted).
    clients: tuple[str, ...] = ()
    # Derived from `center`; rebuilt lazily, never dumped.
    _wanted: dict[tuple[str, int], int] | None = field(default=None, compare=False, repr=False)

    @property
    def seats(self) -> int:
        return len(self.players)


# --------------------------------------------------------------------------- options and deal


def _preset(preset: str) -> str:
    if preset not in SEAT_LIMITS:
        raise IllegalAction("invalid_options", f"Unknown game {preset!r}.")
    return preset


def _is_int(x: Any) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def check_options(
    seats: int, options: dict[str, Any] | None, preset: str = "ligretto"
) -> dict[str, Any]:
    """Return the options with defaults filled, or raise invalid_seats / invalid_options."""
    preset = _preset(preset)
    low, high = SEAT_LIMITS[preset]
    if not _is_int(seats) or not low <= seats <= high:
        if low == high:
            raise IllegalAction(
                "invalid_seats", gettext_noop("This game needs %(low)d players."), low=low
            )
        raise IllegalAction(
            "invalid_seats",
            gettext_noop("This game needs %(low)d to %(high)d players."),
            low=low,
            high=high,
        )
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise IllegalAction("invalid_options", gettext_noop("Options must be an object."))
    allowed = {"rounds", "row_variant", "target"} | (
        {"best_of"} if preset == "ligretto-mini" else set()
    )
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise IllegalAction("invalid_options", f"Unknown option {unknown[0]!r}.")
    row_variant = options.get("row_variant", False)
    if not isinstance(row_variant, bool):
        raise IllegalAction("invalid_options", gettext_noop("row_variant must be true or false."))
    if preset == "ligretto-mini":
        return _check_mini(options, row_variant)
    rounds = _check_rounds(options.get("rounds", DEFAULT_ROUNDS[preset]))
    # L6+: a target and a round limit combine; a null target plays the rounds out.
    target = _check_target(options.get("target", DEFAULT_TARGET))
    return {"target": target, "rounds": rounds, "row_variant": row_variant}


def _check_rounds(rounds: Any) -> int:
    if not _is_int(rounds) or not 1 <= rounds <= MAX_ROUNDS:
        raise IllegalAction(
            "invalid_options",
            gettext_noop("rounds must be a whole number from 1 to %(most)d."),
            most=MAX_ROUNDS,
        )
    return rounds


def _check_target(target: Any) -> int | None:
    if target is not None and (not _is_int(target) or not 1 <= target <= MAX_TARGET):
        raise IllegalAction(
            "invalid_options",
            gettext_noop(
                "target must be a whole number from 1 to %(most)d, "
                "or null for a fixed number of rounds."
            ),
            most=MAX_TARGET,
        )
    return target


def _check_mini(options: dict[str, Any], row_variant: bool) -> dict[str, Any]:
    """Mini's match end (L6): a number of rounds, and maybe a target and best of N.

    Only the options in use are kept (`target`, `best_of` absent when off), so a match made
    before they existed reads the same.
    """
    target = _check_target(options.get("target"))
    best_of = options.get("best_of")
    if best_of is not None and (
        not _is_int(best_of) or best_of % 2 == 0 or not 3 <= best_of <= MAX_BEST_OF
    ):
        raise IllegalAction(
            "invalid_options",
            gettext_noop("best_of must be an odd whole number from 3 to %(most)d."),
            most=MAX_BEST_OF,
        )
    # The most rounds: best of N plays at most N (unless told more, to replay drawn rounds);
    # a target alone, at most 10; otherwise one.
    default = best_of or (DEFAULT_ROUNDS["ligretto-mini"] if target is None else MINI_TARGET_ROUNDS)
    checked: dict[str, Any] = {"rounds": _check_rounds(options.get("rounds", default))}
    if target is not None:
        checked["target"] = target
    if best_of is not None:
        checked["best_of"] = best_of
    return checked | {"row_variant": row_variant}


def describe_end(options: dict[str, Any]) -> Sentence:
    """Say in words how a match with these (checked) options ends (L6, L6+)."""
    rounds, target = options["rounds"], options.get("target")
    best_of = options.get("best_of")
    if best_of:
        best = ngettext(
            "Best of %(rounds)d: the first to win %(wins)d round wins the match.",
            "Best of %(rounds)d: the first to win %(wins)d rounds wins the match.",
            best_of // 2 + 1,
            rounds=best_of,
            wins=best_of // 2 + 1,
        )
        if rounds == best_of and target is None:
            return best
        # Another round limit or a target too: each says its own end, whichever comes first.
        rest = describe_end({"rounds": rounds, "target": target})
        return Sentence(gettext_noop("%(best)s Also: %(rest)s"), best=best, rest=rest)
    if rounds == 1:
        return Sentence(gettext_noop("One round; the highest score wins."))
    if target is None:
        return ngettext(
            "A fixed %(rounds)d round; the highest total wins.",
            "A fixed %(rounds)d rounds; the highest total wins.",
            rounds,
            rounds=rounds,
        )
    return ngettext(
        "First to %(target)d point, or after round %(rounds)d, whichever comes first.",
        "First to %(target)d points, or after round %(rounds)d, whichever comes first.",
        target,
        target=target,
        rounds=rounds,
    )


def row_size(preset: str, seats: int) -> int:
    """Return the number of row cards per player (L3)."""
    if preset == "ligretto-mini":
        return 3
    return 5 if seats == 2 else 4 if seats == 3 else 3


def deck(preset: str, owner: int) -> list[Card]:
    """Return one player's full deck in a fixed order (L2)."""
    return [Card(c, v, owner) for c in COLORS[preset] for v in range(1, TOP_VALUE[preset] + 1)]


def _deal(preset: str, seats: int, seed: int, round_no: int) -> tuple[Player, ...]:
    # G1: the deal depends on the match seed and the round number only (str seeds hash stably).
    rng = random.Random(f"ligretto:{seed}:{round_no}")
    n_row, n_stack = row_size(preset, seats), STACK_SIZE[preset]
    players = []
    for seat in range(seats):
        cards = deck(preset, seat)
        rng.shuffle(cards)
        row = tuple((c,) for c in cards[:n_row])
        stack = tuple(cards[n_row : n_row + n_stack])
        hand = tuple(cards[n_row + n_stack :])
        players.append(Player(row=row, stack=stack, hand=hand, waste=()))
    return tuple(players)


def _start_round(state: State, round_no: int) -> tuple[State, list[Event]]:
    seed = state.seed
    clients: tuple[str, ...] = ()
    if state.server_seed is not None:
        # A reseeded round is dealt from its own seed as round 1 of a match seeded with it.
        clients = tuple(sorted(c for _, c in state.client_seeds))
        seed = mixed_seed(state.server_seed, clients)
        players = _deal(state.preset, state.seats, seed, 1)
    else:
        players = _deal(state.preset, state.seats, state.seed, round_no)
    new = replace(
        state,
        seed=seed,
        server_seed=None,
        client_seeds=(),
        clients=clients,
        round=round_no,
        status="playing",
        players=players,
        center=(),
        ready=(),
        end_reason=None,
        message=None,
        standstills=(),
        _wanted=None,
    )
    # L14+: a deal at a standstill is unblocked at once (one already deadlocked ends at once).
    return _settle(new, [{"type": "round_dealt", "round": round_no}])


def new_match(
    seats: int, options: dict[str, Any] | None, seed: int, preset: str = "ligretto"
) -> State:
    """Validate the options and deal round 1 from `seed`."""
    opts = check_options(seats, options, preset)
    if not _is_int(seed):
        raise IllegalAction("invalid_options", gettext_noop("The seed must be an integer."))
    empty = State(preset=preset, options=opts, seed=seed, round=0, status="playing", players=())
    empty.players = tuple(Player((), (), (), ()) for _ in range(seats))
    state, _ = _start_round(empty, 1)
    return state


# --------------------------------------------------------------------------- centre and fitting


def _wanted(state: State) -> dict[tuple[str, int], int]:
    """Map (colour, value) a centre pile accepts next -> the lowest such pile id."""
    wanted = state._wanted
    if wanted is None:
        wanted = {}
        for pid, pile in enumerate(state.center):
            if not pile.closed:
                wanted.setdefault((pile.color, pile.cards[-1].value + 1), pid)
        state._wanted = wanted
    return wanted


def _fits(card: Card, wanted: dict[tuple[str, int], int]) -> bool:
    return card.value == 1 or (card.color, card.value) in wanted


def _fits_row(card: Card, row: tuple[tuple[Card, ...], ...]) -> bool:
    # L16: onto an own row top exactly one higher and of a different colour.
    for slot in row:
        if slot and slot[-1].value == card.value + 1 and slot[-1].color != card.color:
            return True
    return False


def _flip_reachable(hand: tuple[Card, ...], waste: tuple[Card, ...]) -> list[Card]:
    """Return every waste top that flipping from here would show (L14+), the current top aside.

    A flip moves the next three cards in order onto the waste, so waste + hand is the same
    sequence before and after any flip: the first pass shows every third card of the hand (and
    its last), every later pass every third card of waste + hand (and its last), forever alike.
    """
    out = list(hand[2::3])
    if len(hand) % 3:
        out.append(hand[-1])
    cycle = waste + hand
    out += cycle[2::3]
    if len(cycle) % 3:
        out.append(cycle[-1])
    return out


def _player_can_play(state: State, p: Player, wanted: dict[tuple[str, int], int]) -> bool:
    variant = state.options["row_variant"]
    for slot in p.row:
        if slot and _fits(slot[-1], wanted):
            return True
    for top in (p.stack[-1:], p.waste[-1:]):
        if top and (_fits(top[0], wanted) or (variant and _fits_row(top[0], p.row))):
            return True
    for card in _flip_reachable(p.hand, p.waste):
        if _fits(card, wanted) or (variant and _fits_row(card, p.row)):
            return True
    return False


def _standstill(state: State) -> bool:
    """Return whether no seat can play anything now or after any number of flips (L14)."""
    wanted = _wanted(state)
    # Cheap pass over the visible tops first: almost always someone can play.
    for p in state.players:
        for slot in p.row:
            if slot and _fits(slot[-1], wanted):
                return False
        if p.stack and _fits(p.stack[-1], wanted):
            return False
        if p.waste and _fits(p.waste[-1], wanted):
            return False
    return not any(_player_can_play(state, p, wanted) for p in state.players)


def _deadlocked(state: State) -> bool:
    """Return whether no row top, stack top, hand or waste card of anyone fits anywhere (L14).

    Only then can no number of unblocks help: an unblock turns each cycle of hand + waste by
    one card, so within one lap of the longest cycle every hand and waste card is shown.
    """
    wanted = _wanted(state)
    variant = state.options["row_variant"]
    for p in state.players:
        for slot in p.row:
            if slot and _fits(slot[-1], wanted):
                return False
        for pile in (p.stack[-1:], p.hand, p.waste):
            for card in pile:
                if _fits(card, wanted) or (variant and _fits_row(card, p.row)):
                    return False
    return True


def _standstill_key(state: State) -> tuple[Any, ...]:
    """Return what tells this standstill from others met since the last card was played.

    Between plays only flips and unblocks happen, and both keep each player's cycle
    (waste + hand, read as a circle) as it is: so the cycle's first card and the waste's length
    pin down his hand and waste exactly, while the centre, rows and stacks stay put.
    """
    key: list[Any] = []
    for p in state.players:
        first = p.waste[0] if p.waste else p.hand[0] if p.hand else None
        key.append(None if first is None else (first.color, first.value, len(p.waste)))
    return tuple(key)


def _unblock(state: State) -> State:
    """Turn every waste back under its hand, then move each hand's top card to its bottom."""
    players = []
    for p in state.players:
        # The waste turned face down puts its first card on top (L11), under the hand.
        cycle = p.hand + p.waste
        players.append(Player(row=p.row, stack=p.stack, hand=cycle[1:] + cycle[:1], waste=()))
    return replace(state, players=tuple(players))


def _settle(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """Unblock a standstill until some play is possible, or end the round as a deadlock (L14)."""
    unblocks = 0
    while _standstill(state):
        if _deadlocked(state):
            return _end_round(state, "deadlock", None, events)
        key = _standstill_key(state)
        if key in state.standstills:
            # L14+: unblocking again would only go round in circles.
            return _end_round(state, "deadlock", None, events, repeated=True)
        state = _unblock(state)
        state.standstills = (*state.standstills, key)
        unblocks += 1
        events.append({"type": "table_unblocked", "message": UNBLOCKED})
    if unblocks > 1:
        state.message = ngettext(
            "Nobody could play: everyone's top hand card went to the bottom (%(times)d time).",
            "Nobody could play: everyone's top hand card went to the bottom (%(times)d times).",
            unblocks,
            times=unblocks,
        )
    elif unblocks:
        state.message = UNBLOCKED
    return state, events


# --------------------------------------------------------------------------- legal actions


def legal_actions(state: State, seat: int) -> list[Action]:
    """List every action `seat` may send now, plays without piles (L12+)."""
    return [dict(action) for action in _legal(state, seat)]


def _legal(state: State, seat: int) -> list[Action]:
    """`legal_actions`, kept on the seat's Player: a view shares the list (never changed)."""
    if not _is_int(seat) or not 0 <= seat < state.seats:
        return []
    if state.status == "round_over":
        return [] if seat in state.ready else [{"type": "ready"}]
    if state.status != "playing":
        return []
    p = state.players[seat]
    wanted = _wanted(state)
    variant = state.options["row_variant"]
    known = p._legal
    if known is not None and known[0] == seat and known[1] is wanted and known[2] == variant:
        return known[3]
    out: list[Action] = []
    for i, slot in enumerate(p.row):
        if slot and _fits(slot[-1], wanted):
            out.append({"type": "play", "from": "row", "index": i})
    if p.stack and _fits(p.stack[-1], wanted):
        out.append({"type": "play", "from": "stack"})
    if p.waste and _fits(p.waste[-1], wanted):
        out.append({"type": "play", "from": "waste"})
    if variant:
        for source, top in (("stack", p.stack[-1:]), ("waste", p.waste[-1:])):
            if not top:
                continue
            for i, slot in enumerate(p.row):
                if _row_accepts(slot, top[0]):
                    out.append({"type": "play", "from": source, "to": "row", "index": i})
    if p.hand or p.waste:
        out.append({"type": "flip"})
    p._legal = (seat, wanted, variant, out)
    return out


def _row_accepts(slot: tuple[Card, ...], card: Card) -> bool:
    return bool(slot) and slot[-1].value == card.value + 1 and slot[-1].color != card.color


# --------------------------------------------------------------------------- apply


def apply(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    """Apply one action of `seat` atomically; return the new state and its events (L7-L16)."""
    if not _is_int(seat) or not 0 <= seat < state.seats:
        raise IllegalAction("no_such_seat", gettext_noop("There is no such seat in this match."))
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction("bad_action", "An action is an object with a type.")
    kind = action["type"]
    if kind == "ready":
        return _ready(state, seat, client_seed(action))
    if kind == "play":
        return _play(state, seat, action)
    if kind == "flip":
        return _flip(state, seat)
    raise IllegalAction("bad_action", f"Unknown action type {kind!r}.")


def _require_playing(state: State) -> None:
    if state.status != "playing":
        raise IllegalAction(
            "round_over", gettext_noop("The round is over; no more cards can be played.")
        )


def _index(action: Action, p: Player) -> int:
    index = action.get("index")
    if not _is_int(index):
        raise IllegalAction("bad_action", "A row play needs an integer index.")
    if not 0 <= index < len(p.row):
        raise IllegalAction("no_such_slot", gettext_noop("There is no such row slot."))
    return index


def _play(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    source = action.get("from")
    if source not in ("row", "stack", "waste"):
        raise IllegalAction("bad_action", "A play comes from the row, the stack or the waste.")
    pile_id = action.get("pile")
    if pile_id is not None and not _is_int(pile_id):
        raise IllegalAction("bad_action", "A pile is named by its integer id.")
    to = action.get("to")
    if to is not None and to != "row":
        raise IllegalAction("bad_action", 'A play goes to the centre or "to": "row".')
    if to == "row" and (source == "row" or pile_id is not None):
        raise IllegalAction("bad_action", "Only a stack or waste top can go onto the row.")
    _require_playing(state)
    p = state.players[seat]
    if to == "row":
        return _play_to_row(state, seat, p, source, _index(action, p))

    index = None
    if source == "row":
        index = _index(action, p)
        slot = p.row[index]
        if not slot:
            raise IllegalAction("empty_slot", gettext_noop("That row slot is empty."))
        card = slot[-1]
    else:
        card = _pile_top(p, source)

    target = _target_pile(state, card, pile_id)
    center = list(state.center)
    if target is None:
        target = len(center)
        center.append(Pile(card.color, (card,)))
    else:
        old = center[target]
        center[target] = Pile(old.color, old.cards + (card,))
    closed = card.value == TOP_VALUE[state.preset]
    if closed:
        center[target].closed = True

    events: list[Event] = []
    ev: Event = {
        "type": "card_played",
        "seat": seat,
        "from": source,
        "pile": target,
        "card": _card(card),
    }
    if index is not None:
        ev["index"] = index
    if pile_id is not None and pile_id != target:
        ev["asked_pile"] = pile_id
    events.append(ev)
    if closed:
        events.append({"type": "pile_closed", "pile": target, "color": card.color})

    row, stack, waste = p.row, p.stack, p.waste
    if source == "row":
        assert index is not None  # a row play's slot, checked above
        rest = row[index][:-1]
        if not rest and stack:
            # L10: an emptied slot takes the stack top at once.
            rest = (stack[-1],)
            stack = stack[:-1]
            events.append(
                {"type": "row_refilled", "seat": seat, "index": index, "card": _card(rest[0])}
            )
        row = row[:index] + (rest,) + row[index + 1 :]
    elif source == "stack":
        stack = stack[:-1]
    else:
        waste = waste[:-1]
    players = list(state.players)
    players[seat] = Player(row=row, stack=stack, hand=p.hand, waste=waste)
    # A played card ends what the last message said and any chance of an older standstill.
    new = replace(
        state,
        players=tuple(players),
        center=tuple(center),
        message=None,
        standstills=(),
        _wanted=None,
    )
    return _after_move(new, seat, events)


def _target_pile(state: State, card: Card, pile_id: int | None) -> int | None:
    """Return the pile id `card` goes to (None: a new pile), or refuse it (L9, L12+)."""
    center = state.center
    if pile_id is not None and not 0 <= pile_id < len(center):
        raise IllegalAction("no_such_pile", gettext_noop("There is no such pile in the centre."))
    if card.value == 1:
        return None  # L9: a 1 always starts a new pile
    if pile_id is not None:
        named = center[pile_id]
        if (
            not named.closed
            and named.color == card.color
            and named.cards[-1].value == card.value - 1
        ):
            return pile_id
    found = _wanted(state).get((card.color, card.value))
    if found is not None:
        return found
    # Someone was quicker if a pile of this colour has already passed this card's value.
    piles = [center[pile_id]] if pile_id is not None else center
    if any(pl.color == card.color and pl.cards[-1].value >= card.value for pl in piles):
        raise race_lost(card)
    raise IllegalAction("does_not_fit", gettext_noop("That card fits on no pile in the centre."))


def card_words(card: Card) -> Sentence:
    """A card as a sentence says it, in the reader's words: "blue 4"."""
    return Sentence(
        gettext_noop("%(colour)s %(value)s"),
        colour=term("card colour", card.color),
        value=card.value,
    )


def race_lost(card: Card) -> IllegalAction:
    """The refusal of a play another player's card beat to its pile (L12): the card it was,
    as a parameter of its own, so that the sentence may say more of the race later."""
    lost = IllegalAction(
        "too_slow", gettext_noop("Too slow: %(card)s was taken."), card=card_words(card)
    )
    lost.contested = _card(card)  # as the winner's `card_played` names it
    return lost


def _pile_top(p: Player, source: str) -> Card:
    """Return the top of the player's stack or waste, refusing an empty one."""
    if source == "stack":
        if not p.stack:
            raise IllegalAction("empty_stack", gettext_noop("Your Ligretto stack is empty."))
        return p.stack[-1]
    if not p.waste:
        raise IllegalAction(
            "empty_waste", gettext_noop("Your waste is empty; flip cards off your hand first.")
        )
    return p.waste[-1]


def _play_to_row(
    state: State, seat: int, p: Player, source: str, index: int
) -> tuple[State, list[Event]]:
    if not state.options["row_variant"]:
        raise IllegalAction(
            "row_variant_off", gettext_noop("Cards go onto the row only with the row variant.")
        )
    card = _pile_top(p, source)
    slot = p.row[index]
    if not slot:
        raise IllegalAction("empty_slot", gettext_noop("That row slot is empty."))
    if not _row_accepts(slot, card):
        raise IllegalAction(
            "does_not_fit",
            gettext_noop("A row card takes only a card one lower of another colour."),
        )
    row = p.row[:index] + (slot + (card,),) + p.row[index + 1 :]
    stack = p.stack[:-1] if source == "stack" else p.stack
    waste = p.waste[:-1] if source == "waste" else p.waste
    players = list(state.players)
    players[seat] = Player(row=row, stack=stack, hand=p.hand, waste=waste)
    new = replace(state, players=tuple(players), message=None, standstills=())
    events: list[Event] = [
        {
            "type": "card_moved",
            "seat": seat,
            "from": source,
            "to": "row",
            "index": index,
            "card": _card(card),
        }
    ]
    return _after_move(new, seat, events)


def _flip(state: State, seat: int) -> tuple[State, list[Event]]:
    _require_playing(state)
    p = state.players[seat]
    hand, waste = p.hand, p.waste
    if not hand and not waste:
        raise IllegalAction("nothing_to_flip", gettext_noop("Your hand and waste are both empty."))
    events: list[Event] = []
    if not hand:
        # L11: one flip turns the whole waste over (no shuffle) as the new hand, then flips on.
        hand, waste = waste, ()
        events.append({"type": "waste_turned", "seat": seat, "count": len(hand)})
    k = min(FLIP_COUNT, len(hand))
    waste, hand = waste + hand[:k], hand[k:]
    events.append({"type": "hand_flipped", "seat": seat, "count": k, "waste_top": _card(waste[-1])})
    players = list(state.players)
    players[seat] = Player(row=p.row, stack=p.stack, hand=hand, waste=waste)
    new = replace(state, players=tuple(players))
    return _after_move(new, seat, events)


def _after_move(state: State, seat: int, events: list[Event]) -> tuple[State, list[Event]]:
    # L13: only the mover's stack can have just run out; L14: anyone's move can lock everyone.
    if not state.players[seat].stack:
        return _end_round(state, "stack_empty", seat, events)
    return _settle(state, events)


# --------------------------------------------------------------------------- round and match end


def in_center(state: State) -> list[int]:
    """Return how many of each seat's cards lie in the centre, closed piles included."""
    seats = state.seats
    if not state.center:
        return [0] * seats
    owners = [_owners(pile, seats) for pile in state.center]
    return [sum(column) for column in zip(*owners, strict=True)]


def _owners(pile: Pile, seats: int) -> tuple[int, ...]:
    """How many of `pile`'s cards each seat owns (kept on the pile: a move makes one new pile)."""
    known = pile._owners
    if known is None or len(known) != seats:
        counts = [0] * seats
        for card in pile.cards:
            counts[card.owner] += 1
        known = pile._owners = tuple(counts)
    return known


def round_points(state: State) -> list[int]:
    """Score the round as it lies (L15): +1 per own card in the centre, -2 per stack card."""
    return [c - 2 * len(p.stack) for c, p in zip(in_center(state), state.players, strict=True)]


def last_round_points(state: State) -> list[int]:
    """Return each seat's points in the last finished round (its row of the score sheet)."""
    return list(state.scores[-1])


def totals(state: State) -> list[int]:
    """Return each seat's total over the finished rounds."""
    sums = [0] * state.seats
    for points in state.scores:
        for s, v in enumerate(points):
            sums[s] += v
    return sums


def round_wins(state: State) -> list[int]:
    """Return each seat's rounds won (L6, best of N): a round goes to the one top scorer."""
    wins = [0] * state.seats
    for points in state.scores:
        best = max(points)
        top = [s for s, v in enumerate(points) if v == best]
        if len(top) == 1:  # a drawn round goes to nobody
            wins[top[0]] += 1
    return wins


def _match_over(state: State) -> bool:
    # L6+: after `rounds` rounds, or at the end of the first round some total reaches `target`;
    # L6 best of N: also once a seat has won more than half of the N rounds.
    if len(state.scores) >= state.options["rounds"]:
        return True
    best_of = state.options.get("best_of")
    if best_of and max(round_wins(state)) > best_of // 2:
        return True
    target = state.options.get("target")
    return target is not None and max(totals(state)) >= target


def _ranking(state: State) -> list[tuple[int, int]]:
    """Each seat's (rounds won, total) when the match is best of N, else (0, total)."""
    wins = round_wins(state) if state.options.get("best_of") else [0] * state.seats
    return list(zip(wins, totals(state), strict=True))


def winners(state: State) -> list[int]:
    """Return the winning seats: most rounds won in best of N, then the highest total.

    Equal on both shares the win.
    """
    ranks = _ranking(state)
    best = max(ranks)
    return [s for s, r in enumerate(ranks) if r == best]


# How a message names seats: the site's layout puts the players' names in their place.
SEAT_WORDS = gettext_noop("seat %(seat)s")
SEATS_WORDS = gettext_noop("seats %(listed)s")


def _seats(seats: list[int]) -> Sentence:
    """Seats named in a message (`seat` or `seats` among the Sentence's parameters)."""
    if len(seats) == 1:
        return Sentence(SEAT_WORDS, seat=seats[0])
    listed = ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}"
    return Sentence(SEATS_WORDS, listed=listed, seats=list(seats))


def _end_round(
    state: State, reason: str, seat: int | None, events: list[Event], repeated: bool = False
) -> tuple[State, list[Event]]:
    points = round_points(state)
    message: Sentence
    if reason == "stack_empty" and seat is not None:
        message = Sentence(
            gettext_noop("Round %(round)s is over: %(who)s emptied their Ligretto stack."),
            round=state.round,
            who=_seats([seat]),
        )
    elif repeated:
        message = Sentence(
            gettext_noop(
                "Round %(round)s is over: the table came back to a standstill it had already "
                "been unblocked from, so it is scored as it stands."
            ),
            round=state.round,
        )
    else:
        message = Sentence(
            gettext_noop(
                "Round %(round)s is over: no card of any player fits anywhere, so it is scored "
                "as it stands."
            ),
            round=state.round,
        )
    new = replace(
        state,
        status="round_over",
        scores=state.scores + (tuple(points),),
        ready=(),
        end_reason=reason,
        standstills=(),
    )
    match_over = _match_over(new)
    if match_over:
        message = Sentence(gettext_noop("%(end)s That was the last round."), end=message)
    new.message = message
    event: Event = {
        "type": "round_ended",
        "round": state.round,
        "reason": reason,
        "message": new.message,
        "points": points,
        "totals": totals(new),
        "match_over": match_over,
    }
    if seat is not None:
        event["seat"] = seat
    if repeated:
        event["repeated"] = True
    events.append(event)
    return new, events


def _ready(state: State, seat: int, seed: str | None = None) -> tuple[State, list[Event]]:
    if state.status == "playing":
        raise IllegalAction("not_round_over", gettext_noop("The round is still being played."))
    if state.status == "finished" or seat in state.ready:
        raise IllegalAction("already_ready", gettext_noop("You are already ready."))
    ready = tuple(sorted(state.ready + (seat,)))
    new = replace(state, ready=ready)
    if seed is not None:
        new.client_seeds = (*state.client_seeds, (seat, seed))
    events: list[Event] = [{"type": "player_ready", "seat": seat}]
    if len(ready) < state.seats:
        return new, events
    if _match_over(new):
        win = winners(new)
        best = totals(new)[win[0]]
        points = ngettext("%(points)s point", "%(points)s points", best, points=best)
        won = round_wins(new)[win[0]]
        if new.options.get("best_of") and len(win) == 1 and won > new.options["best_of"] // 2:
            points = ngettext("%(wins)s round won", "%(wins)s rounds won", won, wins=won)
        if len(win) == 1:
            template = gettext_noop("The match is over: %(who)s wins with %(points)s.")
        else:
            template = gettext_noop("The match is over: %(who)s share the win with %(points)s.")
        message = Sentence(template, who=_seats(win), points=points)
        new = replace(new, status="finished", message=message)
        events.append(
            {"type": "match_finished", "totals": totals(new), "winners": win, "message": message}
        )
        return new, events
    new, dealt = _start_round(new, new.round + 1)
    return new, events + dealt


# --------------------------------------------------------------------------- views


def _card(card: Card | None) -> dict[str, Any] | None:
    return None if card is None else {"color": card.color, "value": card.value}


def _pile_view(pid: int, pile: Pile, playing: bool) -> dict[str, Any]:
    """Pile `pid` as a view shows it, built once per pile (a caller copies before changing it)."""
    known = pile._view
    if known is not None and known[0] == pid and known[1] == playing:
        return known[2]
    view = {
        "pile": pid,
        "color": pile.color,
        "top": pile.cards[-1].value,
        "count": len(pile.cards),
        "closed": pile.closed,
        # Centre cards lie face up and each back shows its owner (L15 counts them per player):
        # whose card tops each pile is public, and so is, once the round is over, whose cards
        # each pile holds.
        "owner": pile.cards[-1].owner,
        **({} if playing else {"owners": [c.owner for c in pile.cards]}),
    }
    pile._view = (pid, playing, view)
    return view


def _tableau(seat: int, p: Player, in_centre: int) -> dict[str, Any]:
    """What everyone sees of seat `seat`'s cards, built once per Player (as `_pile_view`)."""
    known = p._view
    if known is not None and known[0] == seat and known[1] == in_centre:
        return known[2]
    view = {
        "seat": seat,
        "row": [_card(slot[-1]) if slot else None for slot in p.row],
        "row_depth": [len(slot) for slot in p.row],
        "stack_top": _card(p.stack[-1]) if p.stack else None,
        "stack_count": len(p.stack),
        "hand_count": len(p.hand),
        "waste_top": _card(p.waste[-1]) if p.waste else None,
        "waste_count": len(p.waste),
        "in_center": in_centre,
    }
    p._view = (seat, in_centre, view)
    return view


def player_view(state: State, seat: int | None) -> View:
    """Return everything `seat` (None: a spectator) may see; hidden cards never appear."""
    counts = in_center(state)
    playing = state.status == "playing"
    center = [_pile_view(pid, pile, playing) for pid, pile in enumerate(state.center)]
    tableaus = [_tableau(s, p, counts[s]) for s, p in enumerate(state.players)]
    view: View = {
        "game": state.preset,
        "options": dict(state.options),
        "status": state.status,
        "round": state.round,
        "center": center,
        "tableaus": tableaus,
        "legal": _legal(state, seat) if seat is not None else [],
        "scores": [{"round": i + 1, "points": list(p)} for i, p in enumerate(state.scores)],
        "totals": totals(state),
        "ready": list(state.ready),
        "end_reason": state.end_reason,
        "top_value": TOP_VALUE[state.preset],
        "seat": seat,
        "message": state.message,
    }
    if state.options.get("best_of"):
        view["round_wins"] = round_wins(state)
    if state.status == "finished":
        view["winners"] = winners(state)
    elif state.status == "round_over" and _match_over(state):
        # The last round is over: who won the match is known now, before anyone is ready.
        view["match_winners"] = winners(state)
    return view


def player_views(state: State, seats: list[int | None]) -> dict[int | None, View]:
    """`player_view` of each of `seats`, the public part built once: in Ligretto every card a
    view shows is public, and only `legal` and `seat` are the seat's own. The seats' views
    share their public values (a caller that changes one copies it first)."""
    public = player_view(state, None)
    views: dict[int | None, View] = {}
    for seat in seats:
        if seat is None:
            views[seat] = public
        else:
            views[seat] = {**public, "legal": _legal(state, seat), "seat": seat}
    return views


# --------------------------------------------------------------------------- what nobody sees


def cards(state: State) -> list[Card]:
    """Every card the state holds, wherever it lies (L2: the same cards all match long)."""
    held = [c for p in state.players for part in (*p.row, p.stack, p.hand, p.waste) for c in part]
    return sorted(held + [c for pile in state.center for c in pile.cards])


def redeal_hidden(state: State, seat: int | None, rng: random.Random) -> State:
    """Return `state` with what `seat` (None: a spectator) cannot see dealt anew from `rng`.

    In Ligretto that is the same for everyone: each hand, and what lies under the top card of
    a stack, a waste pile or a row slot, in another order among that player's own cards. The
    views of `seat` must not change (the conformance suite checks it).
    """

    def mixed(cards_: tuple[Card, ...]) -> tuple[Card, ...]:
        out = list(cards_)
        rng.shuffle(out)
        return tuple(out)

    def under(cards_: tuple[Card, ...]) -> tuple[Card, ...]:
        return mixed(cards_[:-1]) + cards_[-1:]

    players = tuple(
        Player(
            row=tuple(under(slot) for slot in p.row),
            stack=under(p.stack),
            hand=mixed(p.hand),
            waste=under(p.waste),
        )
        for p in state.players
    )
    return replace(state, players=players, _wanted=None)


# --------------------------------------------------------------------------- dump / load (G0)


def _dc(card: Card) -> list[Any]:
    return [card.color, card.value, card.owner]


def _lc(data: list[Any]) -> Card:
    color, value, owner = data
    return Card(color, value, owner)


def dump(state: State) -> dict[str, Any]:
    """Return the state as JSON-native data; cards are [colour, value, owner] (G0)."""
    return {
        "version": DUMP_VERSION,
        "preset": state.preset,
        "options": dict(state.options),
        "seed": state.seed,
        "round": state.round,
        "status": state.status,
        "players": [
            {
                "row": [[_dc(c) for c in slot] for slot in p.row],
                "stack": [_dc(c) for c in p.stack],
                "hand": [_dc(c) for c in p.hand],
                "waste": [_dc(c) for c in p.waste],
            }
            for p in state.players
        ],
        "center": [
            {"color": pl.color, "cards": [_dc(c) for c in pl.cards], "closed": pl.closed}
            for pl in state.center
        ],
        "scores": [list(p) for p in state.scores],
        "ready": list(state.ready),
        "end_reason": state.end_reason,
        "message": None if state.message is None else str(state.message),
        # The message's template and parameters, so that a reloaded table still says it in
        # every reader's language (a plain string: the English alone).
        "message_words": to_data(state.message),
        "standstills": [[None if k is None else list(k) for k in key] for key in state.standstills],
        **_dump_fairness(state),
    }


def _dump_fairness(state: State) -> dict[str, Any]:
    # Only when set: a match without a checkable shuffle dumps as it always did.
    data: dict[str, Any] = {}
    if state.server_seed is not None:
        data["server_seed"] = state.server_seed
    if state.client_seeds:
        data["client_seeds"] = [list(c) for c in state.client_seeds]
    if state.clients:
        data["clients"] = list(state.clients)
    return data


def _load_options(data: dict[str, Any]) -> dict[str, Any]:
    options = dict(data["options"])
    if data.get("version", 1) < 2 and data["preset"] == "ligretto":
        # Version 1 had either a fixed number of rounds or a target without a round limit.
        if "target" in options:
            options.setdefault("rounds", MAX_ROUNDS)
        else:
            options["target"] = None
    return options


def load(data: dict[str, Any]) -> State:
    """Rebuild a state from `dump` data (stack and waste top last, hand next card first)."""
    players = tuple(
        Player(
            row=tuple(tuple(_lc(c) for c in slot) for slot in p["row"]),
            stack=tuple(_lc(c) for c in p["stack"]),
            hand=tuple(_lc(c) for c in p["hand"]),
            waste=tuple(_lc(c) for c in p.get("waste", ())),
        )
        for p in data["players"]
    )
    center = tuple(
        Pile(pl["color"], tuple(_lc(c) for c in pl["cards"]), bool(pl.get("closed", False)))
        for pl in data.get("center", ())
    )
    return State(
        preset=data["preset"],
        options=_load_options(data),
        seed=data.get("seed", 0),
        round=data.get("round", 1),
        status=data.get("status", "playing"),
        players=players,
        center=center,
        scores=tuple(tuple(p) for p in data.get("scores", ())),
        ready=tuple(data.get("ready", ())),
        end_reason=data.get("end_reason"),
        # Version 1 kept the round's end in `end_message`, the only message it had.
        message=message_of(data, data.get("message", data.get("end_message"))),
        standstills=tuple(
            tuple(None if k is None else tuple(k) for k in key)
            for key in data.get("standstills", ())
        ),
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
    """Every seat's cards where they lie (row slots bottom..top, stack and waste top last,
    hand next first): a deal as the verifier shows it (docs/fairness.md)."""
    return {
        "seats": [
            {
                "row": [[_dc(c) for c in slot] for slot in p.row],
                "stack": [_dc(c) for c in p.stack],
                "hand": [_dc(c) for c in p.hand],
                "waste": [_dc(c) for c in p.waste],
            }
            for p in state.players
        ]
    }


def reseed(state: State, server_seed: str) -> State:
    """`state`, whose next round is dealt from `server_seed` mixed with the client seeds."""
    return replace(state, server_seed=server_seed)
