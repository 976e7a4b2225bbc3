"""The Board API's request and answer schemas, of which the OpenAPI document is made.

Requests check the *shape* of a body (types, ranges, which fields), each field answering its own
code and sentence when it is wrong (`Refuse`); what a value means now (is that seat free, may
this room's bots play "fast") stays with lobby.services and the rules, the one judge for the
browser and the API alike. What a game takes (its seats, options, actions, bot levels) comes
from the registry (`Game.api`, games/shapes.py), so that no name of a game is written here.
Answers allow extra fields everywhere (docs/api.md), so they list only what they promise.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import reduce
from operator import or_
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from django.utils.translation import gettext_noop
from ninja import Schema
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    TypeAdapter,
    ValidationError,
    create_model,
    model_validator,
)
from pydantic_core import PydanticCustomError

from games.engine import IllegalAction
from games.registry import (
    BOT_SPEEDS,
    GAMES,
    PACES,
    Game,
    bot_speed_refused,
    clock_kinds,
    slow_bots_refused,
)
from games.shapes import Options, Shape, WholeNumber
from tables.words import refusal_text

DESCRIPTION = (
    "Play {games} through JSON, as people do in the browser. Live stream: "
    "ws(s)://HOST/ws/api/v1/rooms/{{id}}/?token=TOKEN (see docs/api.md)."
)


def _either(words: list[str], word: str = "or") -> str:
    return f"{', '.join(words[:-1])} {word} {words[-1]}" if len(words) > 1 else "".join(words)


SLUGS = list(GAMES)
# Every level some game's bots play, in the registry's order (which game allows which is the
# lobby's check, with the room in hand).
LEVELS = list(dict.fromkeys(level for game in GAMES.values() for level in game.bot_levels))
# Every kind of decision some game's clock speaks of (the registry's: each game says its own).
CLOCK_KINDS = list(clock_kinds())
DESCRIPTION = DESCRIPTION.format(games=_either([g.name for g in GAMES.values()], "and"))
# Seats are numbered from 0; the largest table any game has bounds a seat's number.
MOST_SEATS = max(game.max_seats for game in GAMES.values())
# The strict decoder (tables.live.stream) refuses a NUL anywhere in a body, and the NUL
# middleware one anywhere in a query: every string of a request says so.
NO_NUL = r"^[^\x00]*$"
REF = "#/components/schemas/{model}"


class Refuse:
    """Field metadata: the code and sentence the API answers when this field is missing or wrong.

    `out_of_bounds`: another (code, sentence) for a value of the right type but out of its
    bounds (too short, too long), where the site has a code of its own for that; `unfit` for
    one that does not match its pattern or fails a check of its own. `rules`: a
    check of the rules that words the refusal of the body `data` in the caller's language
    (the rules' own sentence, as the browser shows it), or None to keep `message`.
    """

    def __init__(
        self,
        code: str,
        message: str,
        out_of_bounds: tuple[str, str] | None = None,
        rules: Callable[[Any], str | None] | None = None,
        unfit: tuple[str, str] | None = None,
    ) -> None:
        self.code, self.message, self.out_of_bounds = code, message, out_of_bounds
        self.rules, self.unfit = rules, unfit

    def sentence(self, data: Any) -> str:
        said = self.rules(data) if self.rules is not None and isinstance(data, dict) else None
        return said or self.message


BOUNDS = {"string_too_short", "string_too_long"}
# What a value of the right type may still be: not matching its pattern, or a check of its own.
UNFIT = {"string_pattern_mismatch", "value_error"}


def _not_matching(pattern: str) -> Callable[[str], str]:
    """A check that refuses a text matching `pattern` (what the schema's `not` says)."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if compiled.search(value):
            raise ValueError("matches what the schema's `not` excludes")
        return value

    return check


NO_GAME = Refuse("bad_request", f'"game" is required: {_either(SLUGS)}.')
NO_LEVEL = Refuse("invalid_level", '"level" must be ' + _either([f'"{x}"' for x in LEVELS]) + ".")
Text = Annotated[StrictStr, Field(pattern=NO_NUL)]


def _string(name: str) -> Refuse:
    return Refuse("bad_request", f'"{name}" is required and must be a string.')


class Body(Schema):
    """A request body: only its own fields (a typo is told, not ignored); the first wrong one
    answers its own code."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="wrap")
    @classmethod
    def _refuse(cls, data: Any, handler: Any) -> Any:
        try:
            return handler(data)
        except ValidationError as problems:
            first = problems.errors()[0]
            name = str(first["loc"][0]) if first["loc"] else ""
            field = cls.model_fields.get(name)
            said = [m for m in (field.metadata if field else ()) if isinstance(m, Refuse)]
            refusal = said[0] if said else Refuse("bad_request", _no_field(name, first["type"]))
            code, message = refusal.code, refusal.sentence(data)
            if refusal.out_of_bounds and first["type"] in BOUNDS:
                code, message = refusal.out_of_bounds
            elif refusal.unfit and first["type"] in UNFIT:
                code, message = refusal.unfit
            raise PydanticCustomError(code, message, {"refused": True}) from None


def _no_field(name: str, problem: str) -> str:
    # A field name is the client's text: echo only a short, printable one.
    shown = name if name.isascii() and name.isprintable() and len(name) <= 20 else "That field"
    if problem == "extra_forbidden":
        return f'"{shown}" is not a field of this call (see /api/v1/schema).'
    return f'"{shown}" is not valid here.'


def refusal_from(problem: Any) -> tuple[str, str] | None:
    """The (code, message) of a validation problem a Body raised, or None for any other."""
    if (problem.get("ctx") or {}).get("refused"):
        return problem["type"], problem["msg"]
    if problem["type"] in ("union_tag_invalid", "union_tag_not_found"):
        # A body whose kind is told by its "game": the game is missing or no game at all.
        game = problem["input"].get("game") if isinstance(problem["input"], dict) else None
        if isinstance(game, str):
            return "invalid_game", f"There is no game called {game!r}."
        return NO_GAME.code, NO_GAME.message
    return None


def refusal_of(schema: Any, data: dict[str, Any]) -> tuple[str, str] | None:
    """The (code, message) `schema` answers for `data`, or None if it takes it."""
    try:
        TypeAdapter(schema).validate_python(data)
    except ValidationError as problems:
        return refusal_from(problems.errors()[0])
    return None


def _literal(*values: str) -> Any:
    return cast(Any, Literal)[values]


def _by_game(name: str, base: type[Body], fields: Any) -> Any:
    """One `base` per registered game, told apart by "game": each with that game's `fields`."""
    branches = [
        create_model(
            name + "".join(part.title() for part in game.slug.split("-")),
            __base__=base,
            game=(_literal(game.slug), ...),
            **fields(game),
        )
        for game in GAMES.values()
    ]
    return Annotated[reduce(or_, branches), Field(discriminator="game")]


# --------------------------------------------------------------------------- requests


# --------------------------------------------------------------------------- sign-up
#
# A sign-up the document calls valid is never refused for what it says (Schemathesis's
# positive_data_acceptance, ST202): the schema states every rule of the site's sign-up form that
# a JSON Schema can, exactly, and the API holds a body to the schema. A name taken already is a
# conflict with the site's state (409), not a bad request. The one rule no JSON Schema can state,
# a password not like the name (a comparison of two fields), is said in words.

# Whitespace as Python's str.strip() sees it (Django's common-password check strips), spelt
# out, so that every regular-expression engine reads the class alike.
_SPACE = "\t-\r\x1c- \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# A pass phrase: two words or more, a space between two characters that are neither
# whitespace nor NUL. Django's list of common passwords holds no entry with a space in it but
# three, so such a password is never all digits and never common, but for those three.
PASS_PHRASE = f"^[^\\x00]*[^{_SPACE}\\x00] +[^{_SPACE}\\x00][^\\x00]*$"
# The three common passwords a pass phrase can be, in any case, with any whitespace around
# (the check lowers and strips): a password must not be one of them.
COMMON_PHRASES = (
    f"^[{_SPACE}]*[Ff][Rr][Ii][Ee][Nn][Dd] [Oo][Ff]"
    " (?:[Ee][Mm][Ii][Ll][Yy]|[Jj][Oo][Aa][Nn]|[Gg][Ee][Rr][Ll][Yy])"
    f"[{_SPACE}]*$"
)
# A username of one alphabet (lobby.usernames): letters of Latin (ASCII and Latin-1),
# Cyrillic (Russian) or Hangul, ASCII digits, _ and -, with a letter or digit among them;
# every one of these is its own NFKC form and none is a look-alike of another alphabet's.
_LATIN = "A-Za-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff"
_CYRILLIC = "0-9\u0410-\u044f\u0401\u0451"
_HANGUL = "0-9\uac00-\ud7a3"
USERNAME = "^(?:" + "|".join(f"[_-]*[{a}][{a}_-]*" for a in (_LATIN, _CYRILLIC, _HANGUL)) + ")$"
GUEST_NAME = "^[Gg][Uu][Ee][Ss][Tt]-"  # kept for guests (lobby.guests)


def password_min_length() -> int:
    """The shortest password the site takes (AUTH_PASSWORD_VALIDATORS' MinimumLengthValidator)."""
    from django.contrib.auth import password_validation

    lengths = [
        v.min_length
        for v in password_validation.get_default_password_validators()
        if isinstance(v, password_validation.MinimumLengthValidator)
    ]
    return max(lengths, default=1)


PASSWORD_MIN = password_min_length()
PASSWORD_RULES = (
    f"At least {PASSWORD_MIN} characters (the site's minimum); a pass phrase of two words or"
    " more (a space between two other characters), so never all digits; not a common password"
    " (the three common ones a pass phrase can be are named in `not`); and not like the"
    " username (the site's similarity check of the two: the one rule a schema cannot state)."
)


class NewUser(Body):
    """A new account: its name and password, as the site's own sign-up form takes them."""

    username: Annotated[
        StrictStr,
        Refuse(
            "bad_request",
            '"username" is required and must be a string.',
            out_of_bounds=("invalid_username", "A username has 1 to 150 characters."),
            unfit=(
                "invalid_username",
                "A username has letters of one alphabet (Latin, Cyrillic or Hangul), digits, _"
                " and -, and does not begin with guest-.",
            ),
        ),
        Field(
            min_length=1,
            max_length=150,
            pattern=USERNAME,
            examples=["ann"],
            description="Letters of one alphabet (Latin, Cyrillic or Hangul), digits, _ and -;"
            " not beginning with guest- (kept for guests); not taken (409 username_taken).",
            json_schema_extra={"not": {"pattern": GUEST_NAME}},
        ),
        AfterValidator(_not_matching(GUEST_NAME)),
    ]
    password: Annotated[
        StrictStr,
        Refuse(
            "bad_request",
            '"password" is required and must be a string.',
            out_of_bounds=(
                "weak_password",
                f"This password is too short: it needs at least {PASSWORD_MIN} characters.",
            ),
            unfit=(
                "weak_password",
                f"Choose a pass phrase: two words or more, at least {PASSWORD_MIN} characters,"
                " not a common one.",
            ),
        ),
        Field(
            min_length=PASSWORD_MIN,
            pattern=PASS_PHRASE,
            examples=["a long pass phrase"],
            description=PASSWORD_RULES,
            json_schema_extra={"not": {"pattern": COMMON_PHRASES}},
        ),
        AfterValidator(_not_matching(COMMON_PHRASES)),
    ]


class Credentials(Body):
    username: Annotated[Text, _string("username"), Field(examples=["ann"])]
    password: Annotated[Text, _string("password"), Field(examples=["a long pass phrase"])]


class TokenRequest(Credentials):
    name: Annotated[
        Text | None,
        Refuse("bad_request", '"name" must be a string.'),
        Field(description='The token\'s name (its first 60 characters); "api" if none.'),
    ] = None


class NewRoomBase(Body):
    game: str
    seats: int
    options: Options | None = None
    private: Annotated[
        StrictBool, Refuse("invalid_private", '"private" must be true or false.')
    ] = False
    rated: Annotated[
        StrictBool,
        Refuse("invalid_rated", '"rated" must be true or false.'),
        Field(description="An unrated room's match moves nobody's rating."),
    ] = True


def _rules_say(game: Game, seats: Any, options: Any) -> str | None:
    """The rules' own sentence (in the caller's language) refusing these seats and options."""
    if isinstance(options, dict) and "pace" in options:
        # The API's pace first: a number of the schema's, never the form's "1.5" or 0.
        pace = options["pace"]
        if not _is_number(pace) or pace not in PACES:
            return _pace_says()
    try:
        game.check_options(seats, options if isinstance(options, dict) else None)
    except IllegalAction as refusal:
        return refusal_text(refusal)
    if isinstance(options, dict) and "bot_speed" in options:
        if not _is_number(options["bot_speed"]):
            return refusal_text(bot_speed_refused())
        if "pace" not in options:  # even at full speed: the schema's dependentRequired
            return refusal_text(slow_bots_refused())
    return None


def _pace_says(data: Any = None) -> str:
    """The API's sentence for a pace it does not take (the form's "0" is left out here)."""
    return refusal_text(
        IllegalAction(
            "invalid_pace",
            gettext_noop(
                "pace must be one of 0.5, 1, 1.5, 2, 2.5 or 3 seconds; leave it out for a "
                "table that is not paced."
            ),
        )
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _one_of(allowed: tuple[float, ...]) -> Callable[[Any], float]:
    """A number as JSON writes it (never true or "1.5"), one of `allowed`."""

    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or value not in allowed:
            raise PydanticCustomError("enum", "must be one of the numbers the schema lists")
        return float(value)

    return check


def _listed(values: tuple[float, ...]) -> Callable[[dict[str, Any]], None]:
    """A field's schema: one of `values`, and no default (it may be left out, never null)."""

    def extra(schema: dict[str, Any]) -> None:
        schema.pop("default", None)
        schema["enum"] = list(values)

    return extra


# A paced table (issue 41): the site's options, the same for every game and the same as the
# room form's; `Game.check_options` is the judge (its sentence is the refusal's, in the
# caller's language), these say what the schema lists.
Pace = Annotated[
    float,
    BeforeValidator(_one_of(PACES)),
    Field(
        description="A paced table: each player's plays at least this many seconds apart (a "
        "play made sooner waits for its turn); left out: not paced. Paced tables are rated "
        "apart, one pool per pace.",
        json_schema_extra=_listed(PACES),
    ),
]
BotSpeed = Annotated[
    float,
    BeforeValidator(_one_of(BOT_SPEEDS)),
    Field(
        description="With a pace only: the bots play at this fraction of their speed (default 1).",
        json_schema_extra=_listed(BOT_SPEEDS),
    ),
]


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)  # it may be left out, never null


class Paced(Options):
    """The site's room options, beside every game's own (a paced table)."""

    # The bots' speed is a paced table's: the schema says so (JSON Schema's dependentRequired).
    model_config = ConfigDict(json_schema_extra={"dependentRequired": {"bot_speed": ["pace"]}})
    pace: Pace = None  # type: ignore[assignment]
    bot_speed: BotSpeed = None  # type: ignore[assignment]
    equalise: Annotated[
        StrictBool,
        Refuse("invalid_options", "equalise must be true or false."),
        Field(
            description="Latency equalisation: plays that reach the server within 40 ms of "
            "each other are ordered by their estimated sending time (docs/fairness.md); "
            "left out: off.",
            json_schema_extra=_no_default,
        ),
    ] = None  # type: ignore[assignment]

    @model_validator(mode="after")
    def _speed_with_a_pace(self) -> Paced:
        if self.bot_speed is not None and self.pace is None:
            raise PydanticCustomError("dependent_required", "bot_speed needs a pace")
        return self


def _paced(options: type[Options]) -> type[Options]:
    """A game's room options with the site's own beside them (`pace`, `bot_speed`)."""
    return cast(
        type[Options],
        create_model(options.__name__, __base__=(options, Paced), __doc__=options.__doc__),
    )


def _room_fields(game: Game) -> dict[str, Any]:
    seats = f'"seats": {game.name} takes {game.seats_in_words} players.'
    shape = _paced(game.api.options[game.slug])
    names = ", ".join(f'"{n}"' for n in shape.model_fields) or "none"
    return {
        "seats": (
            Annotated[
                WholeNumber,
                Refuse(
                    "invalid_seats", seats, rules=lambda d: _rules_say(game, d.get("seats"), None)
                ),
                Field(ge=game.min_seats, le=game.max_seats, examples=[game.min_seats]),
            ],
            ...,
        ),
        "options": (
            Annotated[
                shape | None,
                Refuse(
                    "invalid_options",
                    f'"options": {game.name} takes {names} (see the schema).',
                    rules=lambda d: _rules_say(game, game.min_seats, d.get("options")),
                ),
            ],
            None,
        ),
    }


def _practice_fields(game: Game) -> dict[str, Any]:
    levels = game.bot_levels
    refuse = Refuse("invalid_level", f"{game.name} bots come in these levels: {', '.join(levels)}.")
    default = "normal" if "normal" in levels else levels[0]
    return {
        "level": (
            Annotated[StrictStr, refuse, Field(json_schema_extra={"enum": list(levels)})],
            default,
        )
    }


NO_PACE = Refuse(
    "invalid_pace",
    "pace must be one of 0.5, 1, 1.5, 2, 2.5 or 3 seconds; leave it out for a table that is "
    "not paced.",
    rules=_pace_says,  # the same, in the caller's language
)


class QuickPlay(Body):
    game: Annotated[StrictStr, NO_GAME, Field(json_schema_extra={"enum": SLUGS})]
    # A paced table of that pace only, its bots at half their speed (lobby.quickplay).
    pace: Annotated[Pace, NO_PACE] = None  # type: ignore[assignment]


class PracticeBase(Body):
    game: str
    level: str = "normal"
    pace: Annotated[Pace, NO_PACE] = None  # type: ignore[assignment]


if TYPE_CHECKING:  # what the views read of these bodies, one model per game at run time
    NewRoom = NewRoomBase
    Practice = PracticeBase
else:
    NewRoom = _by_game("NewRoom", NewRoomBase, _room_fields)
    Practice = _by_game("Practice", PracticeBase, _practice_fields)


class Empty(Body):
    """No fields: still a JSON object, read strictly, like every body."""


class Invite(Body):
    invite: Annotated[Text | None, Refuse("bad_request", '"invite" must be a string.')] = None


class Remove(Body):
    seat: Annotated[
        WholeNumber,
        Refuse("invalid_seat", "Name the seat to free by its number."),
        Field(ge=0, lt=MOST_SEATS, examples=[1]),
    ]


class Close(Body):
    reason: Annotated[
        Text,
        Refuse("bad_request", '"reason" must be a string.'),
        Field(
            description="Shown to the players; kept to its first 200 characters.",
            examples=["Time for dinner."],
        ),
    ] = ""


class Bots(Body):
    count: Annotated[
        WholeNumber,
        Refuse("invalid_count", "The number of bots must be a whole number from 1."),
        Field(ge=1, examples=[1]),
    ] = 1
    # One of every level some game's bots play; whether this room's do is the view's check.
    level: Annotated[_literal(*LEVELS), NO_LEVEL] = "normal"  # type: ignore[valid-type]


# Every action some game takes (its package's shapes, once per package): which of them this
# room's game takes is the rules' word, with the table in hand.
ACTIONS: tuple[type[Shape], ...] = tuple(
    dict.fromkeys(shape for game in GAMES.values() for shape in game.api.actions)
)


class ActionRequest(Body):
    action: Annotated[
        Shape,
        Refuse("bad_action", 'Send {"action": {"type": ..., ...}}, an action of `legal`.'),
        Field(examples=[{"type": "ready"}]),
    ]


if not TYPE_CHECKING:  # one shape per action of every game (Shape itself says what they share)
    ActionRequest = create_model(
        "ActionRequest",
        __base__=Body,
        action=(
            Annotated[reduce(or_, ACTIONS), *ActionRequest.model_fields["action"].metadata],
            ...,
        ),
    )


class Action(BaseModel):
    """An action as `legal` spells it: its `type` and whatever else that type takes."""

    model_config = ConfigDict(extra="allow")
    type: StrictStr


# --------------------------------------------------------------------------- answers


class Answer(BaseModel):
    # Plain pydantic, not ninja's Schema: that one reads attributes and would drop the extras.
    model_config = ConfigDict(extra="allow")


class ErrorDetail(Answer):
    code: str
    message: str
    # A play that lost its race (too_slow, docs/fairness.md) says who won it and by how much.
    taken_by: Annotated[
        str | None,
        Field(description="A lost race: the winner's name, as the caller sees it."),
    ] = None
    earlier_ms: Annotated[
        int | None,
        Field(ge=0, description="A lost race: how many ms earlier the winning play came in."),
    ] = None


class SignedUp(Answer):
    username: str
    token: str


class Token(Answer):
    token: str


class Player(Answer):
    seat: int
    name: str
    bot: bool


RoomStatus = Literal["open", "playing", "finished"]


class Room(Answer):
    id: int
    game: Annotated[str, Field(json_schema_extra={"enum": SLUGS})]
    status: RoomStatus
    closed: bool
    seats: int
    options: dict[str, Any]
    host: str
    players: list[Player]
    url: Annotated[str, Field(json_schema_extra={"format": "uri"})]
    private: bool
    rated: bool
    pace: Annotated[
        float | None,
        Field(description="A paced table's seconds between one player's plays; null: not paced."),
    ]
    bot_speed: Annotated[
        float | None,
        Field(description="A paced table's bots' fraction of their speed; null: not paced."),
    ]
    equalise: Annotated[
        bool, Field(description="Latency equalisation is on (docs/fairness.md).")
    ] = False
    invite: Annotated[str, Field(description="Only to the room's players.")] = None  # type: ignore[assignment]


class RoomList(Answer):
    rooms: list[Room]


class TablePlayer(Player):
    connected: bool
    total: int


class RoundPoints(Answer):
    round: int
    points: list[int]


KIND = Field(description="What is decided (the kinds the games' clocks speak of).")


class Clock(Answer):
    """A timed table's running decision (docs/api.md, "Clocks")."""

    seats: Annotated[list[int], Field(description="The seats whose decision it is.")]
    kind: Annotated[_literal(*CLOCK_KINDS), KIND]  # type: ignore[valid-type]
    deadline: Annotated[str, Field(description="ISO 8601: when a bot decides for them.")]
    seconds: Annotated[int, Field(ge=1, description="The seconds the decision allows.")]


class TimedOut(Answer):
    """The seats a bot last decided for because their time ran out (news for one decision)."""

    seats: list[int]
    at: str
    stand_in: Annotated[
        list[int], Field(description="Of those, the seats a stand-in now plays (3 in a row).")
    ]


class Fairness(Answer):
    """A shuffle anyone can check (docs/fairness.md): the round's commitment, its seeds once
    it is over."""

    round: int
    commitment: Annotated[str, Field(description="SHA-256 (hex) of the round's server seed.")]
    server_seed: Annotated[str | None, Field(description="Revealed once the round is over.")]
    client_seeds: Annotated[
        list[str] | None, Field(description="The client seeds mixed in (sorted), once it is over.")
    ]
    seed: Annotated[int | None, Field(description="The round's deal seed, once it is over.")]
    next_commitment: Annotated[
        str | None, Field(description="Between rounds: the next round's commitment.")
    ]


class View(Answer):
    """What one seat may see; the game's own fields are in the oneOf (finish_document)."""

    room: int
    game: Annotated[str, Field(json_schema_extra={"enum": SLUGS})]
    status: Literal["starting", "playing", "round_over", "finished", "closed"]
    round: Annotated[int, Field(ge=1)]
    version: int
    seat: Annotated[int | None, Field(ge=0)]
    players: list[TablePlayer]
    legal: list[Action]
    scores: list[RoundPoints]
    message: str | None
    clock: Annotated[Clock | None, Field(description="null: no clock runs.")] = None
    timed_out: TimedOut | None = None
    fairness: Annotated[
        Fairness | None, Field(description="null: a fixed deal, or a match older than it.")
    ] = None


class ViewAnswer(Answer):
    view: View


class Error(Answer):
    error: ErrorDetail
    view: Annotated[View | None, Field(description="A refused action: the caller's view.")] = None


class SheetRow(RoundPoints):
    reason: str | None


class ScoreSheet(Answer):
    room: int
    game: str
    status: RoomStatus
    players: list[Player]
    rounds: list[SheetRow]
    totals: list[int]
    winners: list[int] | None


class Move(Answer):
    """One logged action of a round, as the server took it (a refused one marked)."""

    step: Annotated[int, Field(ge=1)]
    seat: int
    name: str
    bot: Annotated[bool, Field(description="A bot made this move (perhaps for an absent human).")]
    action: Action
    version: int
    at: Annotated[str, Field(json_schema_extra={"format": "date-time"})]
    offset: Annotated[float, Field(description="Seconds since the round started.")]
    refused: Annotated[
        str | None, Field(description='The refusal\'s code (e.g. "too_slow"), null if applied.')
    ]
    text: str


class RaceLoss(Answer):
    step: int
    seat: int
    name: str
    later_ms: Annotated[
        int | None,
        Field(ge=0, description="How many ms after the winner's this play reached the server."),
    ]


class RaceMoment(Answer):
    """A contested moment of a round: the play that took a card, and the plays that lost it."""

    step: Annotated[int, Field(ge=1, description="The winning play's step (as in `moves`).")]
    seat: int
    name: str
    card: dict[str, Any]
    pile: int | None
    rule: Annotated[
        str,
        Field(
            description='What settled it: "arrival" (first to reach the server) or "equalised"'
            " (latency equalisation, docs/fairness.md)."
        ),
    ]
    lost: list[RaceLoss]


class RaceSummary(Answer):
    seat: int
    name: str
    won: Annotated[int, Field(ge=0)]
    lost: Annotated[int, Field(ge=0)]
    median_ms: Annotated[
        float | None, Field(description="The median margin of the player's races (ms).")
    ]


class Replay(Answer):
    room: int
    game: Annotated[str, Field(json_schema_extra={"enum": SLUGS})]
    round: int
    rounds: Annotated[list[int], Field(description="The rounds that may be replayed.")]
    moves: list[Move]
    fairness: Annotated[
        Fairness | None,
        Field(description="The round's revealed seeds (docs/fairness.md); null: a fixed deal."),
    ] = None
    dealt: Annotated[
        dict[str, Any] | None,
        Field(description="Every card the round's deal gave, where it lay (as GET /verify shows)."),
    ] = None
    races: Annotated[
        list[RaceMoment], Field(description="The round's fairness log (docs/fairness.md).")
    ] = []
    race_summary: Annotated[
        list[RaceSummary], Field(description="Each player's races won and lost this round.")
    ] = []


def finish_document(document: dict[str, Any]) -> dict[str, Any]:
    """Name the room (and the tournament) `{id}` in paths (as docs/api.md does) and add each
    game's view fields."""
    paths = {}
    for path, operations in document["paths"].items():
        for operation in operations.values():
            # A view's docstring is its one-line summary, not a description under a made-up one.
            if operation.get("description"):
                operation["summary"] = operation.pop("description").rstrip(".")
            for parameter in operation.get("parameters", ()):
                if parameter["name"] in ("room_id", "tournament_id"):
                    parameter["name"] = "id"
        paths[path.replace("{room_id}", "{id}").replace("{tournament_id}", "{id}")] = operations
    document["paths"] = paths
    schemas = document["components"]["schemas"]
    document = _bounds(document)
    schemas = document["components"]["schemas"]
    families: dict[str, list[str]] = {}
    for game in GAMES.values():
        families.setdefault(game.package, []).append(game.slug)
    one_of = []
    for slugs in families.values():
        fields = GAMES[slugs[0]].api.view
        enum = {"game": {"enum": slugs}}
        if fields is None:  # a game that does not describe its view: its fields are free
            one_of.append({"type": "object", "properties": enum})
            continue
        shape = _bounds(fields.model_json_schema(ref_template=REF))
        schemas.update(shape.pop("$defs", {}))
        shape["properties"] = {**enum, **shape["properties"]}
        shape["required"] = ["game", *shape.get("required", [])]
        schemas[fields.__name__] = shape
        one_of.append({"$ref": REF.format(model=fields.__name__)})
    schemas["View"]["oneOf"] = one_of
    return document


# pydantic names a bound it could not fold into the type (a whole number's, which goes through
# a validator first) by its own keyword: JSON Schema's is this.
BOUND_NAMES = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}


def _bounds(node: Any) -> Any:
    """`node` with JSON Schema's names for the bounds of numbers."""
    if isinstance(node, list):
        return [_bounds(item) for item in node]
    if not isinstance(node, dict):
        return node
    if node.get("type") in ("integer", "number"):
        node = {BOUND_NAMES.get(k, k): v for k, v in node.items()}
    return {key: _bounds(value) for key, value in node.items()}


# --------------------------------------------------------------------------- friends (social)

# The largest row number a body may name: what every database here stores (and JSON keeps exact).
MOST_ID = 2**53


class FriendName(Body):
    username: Annotated[
        Text,
        Refuse(
            "bad_request",
            '"username" is required and must be a string.',
            out_of_bounds=("no_such_player", "There is no player of that name."),
        ),
        Field(min_length=1, max_length=150, examples=["bob"]),
    ]


class NewInvitation(FriendName):
    room: Annotated[
        WholeNumber,
        Refuse("bad_request", '"room" is required: the number of a room where you sit.'),
        Field(ge=1, le=MOST_ID, examples=[12]),
    ]


class InvitationId(Body):
    id: Annotated[
        WholeNumber,
        Refuse("bad_request", '"id" is required: the number of an invitation of yours.'),
        Field(ge=1, le=MOST_ID, examples=[7]),
    ]


class ReadNotifications(Body):
    id: Annotated[
        WholeNumber | None,
        Refuse("bad_request", '"id" is a notification\'s number; leave it out for all.'),
        Field(ge=1, le=MOST_ID, examples=[3]),
    ] = None


class Friend(Answer):
    username: str
    state: Annotated[str, Field(json_schema_extra={"enum": ["table", "online", "offline"]})]
    room: Annotated[int | None, Field(description="The table he is at, unless it is private.")]
    last_seen: str | None


class Friends(Answer):
    friends: list[Friend]
    requests: Annotated[list[str], Field(description="People asking you to be friends.")]
    asked: Annotated[list[str], Field(description="People you asked, not answered yet.")]
    blocked: list[str]


class InvitationAnswer(Answer):
    id: int
    room: int
    game: Annotated[str, Field(json_schema_extra={"enum": SLUGS})]
    sender: str
    recipient: str
    status: Annotated[
        str, Field(json_schema_extra={"enum": ["pending", "accepted", "declined", "withdrawn"]})
    ]


class Invitations(Answer):
    invitations: list[InvitationAnswer]


class NotificationAnswer(Answer):
    id: int
    kind: str
    text: Annotated[str, Field(description="In the caller's language.")]
    params: dict[str, Any]
    created_at: str
    read: bool


class Notifications(Answer):
    unread: int
    notifications: list[NotificationAnswer]
