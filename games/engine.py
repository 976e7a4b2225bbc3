"""The small protocol every game's rules module implements, and IllegalAction.

Rules modules are pure: no Django, no clock, no global random. State is plain data that
`dump`s to JSON-native dicts and `load`s back (G0); deals come from a seed (G1).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

# A game's state is its own (a dataclass of its rules module); shared code holds it without
# looking inside and hands it back to the same game's rules. `Progress` is what it may know.
State = Any
S = TypeVar("S")
Action = dict[str, Any]
Event = dict[str, Any]
View = dict[str, Any]


def away(player: View) -> bool:
    """Whether a player of a view's `players` (the site adds them) is away: no socket, or
    marked away while his page is open (a round he sat out); `away_until` is when a bot
    takes his seat."""
    return not player["connected"] or "away_until" in player


def stood_in(view: View, seat: int | None) -> bool:
    """Whether a bot plays `seat` for its person now (a stand-in: his clock ran out too often,
    or he was away): his own part says so, offers his seat back and no move."""
    if seat is None:
        return False
    return any(p["seat"] == seat and p["bot"] for p in view.get("players", ()))


def gettext_noop(message: str) -> str:
    """Mark an English sentence for the site's translations; the engine itself stays English.

    The site's catalogue extracts every `_("...")` call; imported as `_` in the rules modules.
    """
    return message


class Sentence(str):
    """An English sentence that keeps its template and parameters, so that the site can word
    it in the reader's language. As a str it is the English sentence itself, so every caller
    that takes a str (a template, JSON, a comparison) sees exactly the English it saw before.

    A parameter may be a Sentence too ("an 8"): the site words it first.
    """

    template: str
    params: dict[str, Any]
    plural: str | None = None  # with `amount`: the template's plural (see `ngettext`)
    amount: int = 1  # the count that picks the plural (not `count`: str has a count method)
    context: str | None = None  # a word the catalogue keeps by context (see `term`)

    def __new__(cls, template: str, **params: Any) -> Sentence:
        sentence = super().__new__(cls, template % params if params else template)
        sentence.template = template
        sentence.params = params
        return sentence


def ngettext(singular: str, plural: str, count: int, **params: Any) -> Sentence:
    """A Sentence with a plural: English picks by `count`, the site by its language's rules."""
    sentence = Sentence(singular if count == 1 else plural, **params)
    sentence.template, sentence.plural, sentence.amount = singular, plural, count
    return sentence


def term(context: str, word: str) -> Sentence:
    """A word the site says by its catalogue's `context` (pgettext's), such as a card colour:
    "blue" in "card colour" is "blau", and "синяя" for a card."""
    sentence = Sentence(word)
    sentence.context = context
    return sentence


# A shuffle anyone can check (docs/fairness.md): the server commits to a round's server seed
# (SHA-256 of it) before anyone can add entropy; players add theirs with "ready"; the round
# is dealt from the seed both make, and the server seed is revealed when the round ends.
CLIENT_SEED = re.compile(r"[A-Za-z0-9_-]{1,64}")
SEED_BITS = 53  # exact in any JSON client


def commitment(server_seed: str) -> str:
    """The SHA-256 (hex) of a server seed: what the table shows before the seed is used."""
    return hashlib.sha256(server_seed.encode("ascii")).hexdigest()


def mixed_seed(server_seed: str, client_seeds: Iterable[str]) -> int:
    """The round's deal seed: the first 53 bits of SHA-256("deal|<server>|<clients sorted>")."""
    # "deal|" keeps the seed apart from the commitment (SHA-256 of the server seed alone), and
    # sorting makes the seed independent of who was ready first.
    text = "|".join(["deal", server_seed, *sorted(client_seeds)])
    digest = hashlib.sha256(text.encode("ascii")).digest()
    return int.from_bytes(digest, "big") >> (256 - SEED_BITS)


def client_seed(action: Action) -> str | None:
    """The client seed a "ready" action carries (its `seed`), None if it has none or a bad one."""
    seed = action.get("seed")
    if isinstance(seed, str) and CLIENT_SEED.fullmatch(seed):
        return seed
    return None


class IllegalAction(Exception):  # noqa: N818 - the name is part of the public interface
    """An action the rules refuse (G2): `.code` is machine-readable, `.message` one sentence.

    `.template` is the sentence with `%(name)s` holes and `.params` what fills them, so that
    the site can word the refusal in the reader's language; `.message` is the English.
    `.contested` names, for a play that lost a race (L12), what it raced for as the winning
    play's event names it (its `card`): the site finds who took it (docs/fairness.md).
    """

    contested: Any = None

    def __init__(self, code: str, message: str = "", **params: Any) -> None:
        self.code = code
        self.params = params
        self.template = message
        text = message % params if params else message
        self.message = text or code.replace("_", " ").capitalize() + "."
        super().__init__(text or code)


@dataclass(frozen=True)
class Progress:
    """What the site needs to know of a state, asked of its rules (`progress(state)`), never
    read off the state by shape: the round being played, how many rounds have been scored,
    the seed its round was dealt from, and whether the match is over."""

    round: int
    rounds_scored: int
    seed: int
    status: str  # "playing" | "round_over" | "finished"
    # The client seeds mixed into this round's seed (`mixed_seed`), sorted; () when none.
    clients: tuple[str, ...] = ()

    @property
    def finished(self) -> bool:
        return self.status == "finished"


class RulesModule(Protocol[S]):
    """A game's `rules` module: pure (no Django, no clock, no global random), deterministic.

    - `check_options(seats, options, preset)` returns the checked options (or raises
      ValueError with a sentence); `new_match(seats, options, seed, preset)` deals round 1.
    - `legal_actions(state, seat)` lists every action `seat` may send now, fully spelled out.
    - `apply(state, seat, action)` returns `(new_state, events)` or raises `IllegalAction`,
      leaving `state` unchanged. Events are dicts with a past-tense `"type"`; an event that
      ends a round carries a `"message"` (a `Sentence`) saying why.
    - `player_view(state, seat | None)` is everything `seat` (None: a spectator) may see:
      the game's view fields of the Board API plus `status`, `round`, `legal`, `scores`;
      `player_views(state, seats)` the same for several seats, what they share built once.
    - `progress(state)`: round, rounds scored, seed and status (see `Progress`).
    - `reseed(state, server_seed)`: the next round is dealt from `mixed_seed(server_seed, the
      client seeds of the "ready" actions until it)`, exactly as `new_match` deals round 1
      from that seed (so the deal of a round is a function of its seed, game and seats);
      `dealt(state)` every card where it lies, as JSON (what the verifier shows).
    - `dump(state)` / `load(data)` convert to and from JSON-native data (G0).

    Each game's package checks its rules against this protocol (mypy, games/registry.py).
    """

    # Read-only members (properties), so that a module's narrower constant still conforms.
    @property
    def SEAT_LIMITS(self) -> Mapping[str, tuple[int, int]]: ...  # noqa: N802 - module constants
    @property
    def OPTION_FIELDS(self) -> Mapping[str, tuple[str, ...]]: ...  # noqa: N802
    @property
    def ROUNDS_HELP(self) -> Mapping[str, str]: ...  # noqa: N802
    @property
    def LOWEST_WINS(self) -> bool: ...  # noqa: N802
    @property
    def NAMES(self) -> Mapping[str, str]: ...  # noqa: N802 - preset -> its name (a Sentence)
    @property
    def REFUSALS(self) -> Mapping[str, str]: ...  # noqa: N802 - code -> its words (Sentences)

    def check_options(
        self, seats: int, options: dict[str, Any] | None, preset: str = ...
    ) -> dict[str, Any]: ...
    def new_match(
        self, seats: int, options: dict[str, Any] | None, seed: int, preset: str = ...
    ) -> S: ...
    def legal_actions(self, state: S, seat: int) -> list[Action]: ...
    def apply(self, state: S, seat: int, action: Action) -> tuple[S, list[Event]]: ...
    def player_view(self, state: S, seat: int | None) -> View: ...
    def player_views(self, state: S, seats: list[int | None]) -> dict[int | None, View]: ...
    def progress(self, state: S) -> Progress: ...
    def reseed(self, state: S, server_seed: str) -> S: ...
    def dealt(self, state: S) -> dict[str, Any]: ...
    def last_round_points(self, state: S) -> list[int]: ...
    def describe_end(self, options: dict[str, Any]) -> str: ...
    def dump(self, state: S) -> dict[str, Any]: ...
    def load(self, data: dict[str, Any]) -> S: ...


class BotsModule(Protocol):
    """A game's `bots` module: `choose(view, level, rng)` -> (action or None, delay in s)."""

    @property
    def LEVELS(self) -> tuple[str, ...]: ...  # noqa: N802 - a module constant

    def choose(self, view: View, level: str, rng: Any) -> tuple[Action | None, float]: ...


class Words(Protocol):
    """The words of one reader's language, for a layout that draws a part itself (`draw_part`):
    what the site's catalogue says for each, as Django's `translate` and `blocktranslate`
    tags would (not escaped; every run of whitespace one space, as a pushed part is). The
    site keeps them per language, each asked of its catalogue once. The methods are named as
    gettext's, so that the site's extraction finds the messages a layout says.
    """

    def gettext(self, message: str) -> str: ...
    def pgettext(self, context: str, message: str) -> str: ...
    def ngettext(self, singular: str, plural: str, count: int) -> str: ...


# What Django's autoescape makes of a text (django.utils.html.escape), for a layout that draws.
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def escape(text: str) -> str:
    """`text` with & < > " ' written as HTML entities, exactly as Django's autoescape does."""
    return text.translate(_ESCAPES)


def squeeze(html: str) -> str:
    r"""`html` with every run of whitespace made one space (what `re.sub(r"\s+", " ", html)`
    gives, in a fifth of its time: split and join run in C): how every pushed part is sent."""
    inner = " ".join(html.split())
    if not inner:
        return " " if html else ""
    if html[0].isspace():
        inner = " " + inner
    if html[-1].isspace():
        inner += " "
    return inner


class LayoutModule(Protocol):
    """A game's `layout` module: how the site draws its table from views (pure, no Django).

    - `TEMPLATE`: the template whose partials are the page's pieces and the pushed parts.
    - `public_parts(view)`: part name -> the data it is drawn from (the spectator's view);
      a part is drawn again only when its data changed.
    - `private_pieces(view, legal, seat)`: the seat's own part, {"me": data} or, for a part
      redrawn in pieces, each piece's data (and under "me" what lies around them).
    - `container(part)`: the part a piece lies inside (None: a part of its own).
    - `context(view, seat, legal, events, words)`: the template context the layout adds
      (`words`: the reader's language's, for what the layout draws itself).
    - `draw_part(context, part)`: the HTML of `part` if the layout draws it itself, in Python,
      exactly as a pushed part is sent (its whitespace squeezed); None: its template's
      partial draws it. A part the layout draws is drawn by the same function inside the
      whole page (the template shows the context's value that calls it), never twice over.
    - `partial(context, part)`: the partial that draws `part` (it may set what it draws).
    - `BOARD_CLASS`: the class a board of this game wears wherever the site shows one (the
      table, a replay); `STYLESHEETS`: the game's own static stylesheets beyond the table's.
    """

    @property
    def TEMPLATE(self) -> str: ...  # noqa: N802 - a module constant
    @property
    def HOW_TO_PLAY(self) -> str: ...  # noqa: N802 - the how-to-play page's template
    @property
    def BOARD_CLASS(self) -> str: ...  # noqa: N802 - a module constant
    @property
    def STYLESHEETS(self) -> tuple[str, ...]: ...  # noqa: N802 - a module constant

    def public_parts(self, view: View) -> dict[str, Any]: ...
    def private_pieces(self, view: View, legal: list[Action], seat: int) -> dict[str, Any]: ...
    def container(self, part: str) -> str | None: ...
    def context(
        self, view: View, seat: int | None, legal: list[Action], events: list[Event], words: Words
    ) -> dict[str, Any]: ...
    def draw_part(self, context: dict[str, Any], part: str) -> str | None: ...
    def partial(self, context: dict[str, Any], part: str) -> str: ...
