"""The Board API's request and answer schemas, of which the OpenAPI document is made.

Requests check the *shape* of a body (types, presence), each field answering its own code and
sentence when it is wrong (`Refuse`); what a value means (is there such a game, may this game's
bots play "fast") stays with lobby.services and the rules, the one judge for the browser and the
API alike. Answers allow extra fields everywhere (docs/api.md), so they list only what they promise.
Game slugs and bot levels come from the registry, never from this file.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from ninja import Schema
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from games.registry import GAMES

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
DESCRIPTION = DESCRIPTION.format(games=_either([g.name for g in GAMES.values()], "and"))


class Refuse:
    """Field metadata: the code and sentence the API answers when this field is missing or wrong."""

    def __init__(self, code: str, message: str) -> None:
        self.code, self.message = code, message


NO_GAME = Refuse("bad_request", f'"game" is required: {_either(SLUGS)}.')
NO_LEVEL = Refuse("invalid_level", '"level" must be ' + _either([f'"{x}"' for x in LEVELS]) + ".")


def _string(name: str) -> Refuse:
    return Refuse("bad_request", f'"{name}" is required and must be a string.')


class Body(Schema):
    """A request body: unknown fields are ignored; its first wrong field answers its own code."""

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="wrap")
    @classmethod
    def _refuse(cls, data: Any, handler: Any) -> Any:
        try:
            return handler(data)
        except ValidationError as problems:
            where = problems.errors()[0]["loc"]
            name = str(where[0]) if where else ""
            field = cls.model_fields.get(name)
            said = [m for m in (field.metadata if field else ()) if isinstance(m, Refuse)]
            refusal = said[0] if said else Refuse("bad_request", f'"{name}" is not valid here.')
            raise PydanticCustomError(refusal.code, refusal.message, {"refused": True}) from None


def refusal_from(problem: Any) -> tuple[str, str] | None:
    """The (code, message) of a validation problem a Body raised, or None for any other."""
    if (problem.get("ctx") or {}).get("refused"):
        return problem["type"], problem["msg"]
    return None


def refusal_of(schema: Any, data: dict[str, Any]) -> tuple[str, str] | None:
    """The (code, message) `schema` answers for `data`, or None if it takes it."""
    try:
        schema.model_validate(data)
    except ValidationError as problems:
        return refusal_from(problems.errors()[0])
    return None


# --------------------------------------------------------------------------- requests


class Credentials(Body):
    username: Annotated[StrictStr, _string("username")]
    password: Annotated[StrictStr, _string("password")]


class TokenRequest(Credentials):
    # A name that is not a string is ignored, as it always was: the token is then called "api".
    name: Annotated[str | None, BeforeValidator(lambda v: v if isinstance(v, str) else None)] = None


class NewRoom(Body):
    game: Annotated[
        StrictStr,
        NO_GAME,
        Field(json_schema_extra={"enum": SLUGS}),
    ]
    seats: Annotated[
        StrictInt, Refuse("invalid_seats", '"seats" is required and must be a whole number.')
    ]
    options: Annotated[
        dict[str, Any] | None, Refuse("invalid_options", '"options" must be an object.')
    ] = None
    private: Annotated[
        StrictBool, Refuse("invalid_private", '"private" must be true or false.')
    ] = False
    rated: Annotated[
        StrictBool,
        Refuse("invalid_rated", '"rated" must be true or false.'),
        Field(description="An unrated room's match moves nobody's rating."),
    ] = True


class QuickPlay(Body):
    game: Annotated[StrictStr, NO_GAME, Field(json_schema_extra={"enum": SLUGS})]


class Practice(QuickPlay):
    level: Annotated[
        StrictStr,
        NO_LEVEL,
        Field(json_schema_extra={"enum": LEVELS}),
    ] = "normal"


class Empty(Body):
    """No fields: still a JSON object, read strictly, like every body."""


class Invite(Body):
    invite: Annotated[StrictStr | None, Refuse("bad_request", '"invite" must be a string.')] = None


class Remove(Body):
    seat: Annotated[StrictInt, Refuse("invalid_seat", "Name the seat to free by its number.")]


class Close(Body):
    reason: Annotated[
        StrictStr,
        Refuse("bad_request", '"reason" must be a string.'),
        Field(description="Shown to the players; kept to its first 200 characters."),
    ] = ""


class Bots(Body):
    count: Annotated[
        StrictInt,
        Refuse("invalid_count", "The number of bots must be a whole number from 1."),
        Field(ge=1),
    ] = 1
    level: Annotated[
        StrictStr,
        NO_LEVEL,
        Field(json_schema_extra={"enum": LEVELS}),
    ] = "normal"


class Action(BaseModel):
    """An action as `legal` spells it: its `type` and whatever else that type takes."""

    model_config = ConfigDict(extra="allow")
    type: StrictStr


class ActionRequest(Body):
    action: Annotated[Action, Refuse("bad_action", 'Send {"action": {"type": ..., ...}}.')]


# --------------------------------------------------------------------------- answers


class Answer(BaseModel):
    # Plain pydantic, not ninja's Schema: that one reads attributes and would drop the extras.
    model_config = ConfigDict(extra="allow")


class ErrorDetail(Answer):
    code: str
    message: str


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
    invite: Annotated[str, Field(description="Only to the room's players.")] = None  # type: ignore[assignment]


class RoomList(Answer):
    rooms: list[Room]


class TablePlayer(Player):
    connected: bool
    total: int


class RoundPoints(Answer):
    round: int
    points: list[int]


class Clock(Answer):
    """A timed table's running decision (docs/api.md, "Clocks")."""

    seats: Annotated[list[int], Field(description="The seats whose decision it is.")]
    kind: Literal["opening", "turn", "knock", "ready"]
    deadline: Annotated[str, Field(description="ISO 8601: when a bot decides for them.")]
    seconds: Annotated[int, Field(ge=1, description="The seconds the decision allows.")]


class TimedOut(Answer):
    """The seats a bot last decided for because their time ran out (news for one decision)."""

    seats: list[int]
    at: str
    stand_in: Annotated[
        list[int], Field(description="Of those, the seats a stand-in now plays (3 in a row).")
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


class Replay(Answer):
    room: int
    game: Annotated[str, Field(json_schema_extra={"enum": SLUGS})]
    round: int
    rounds: Annotated[list[int], Field(description="The rounds that may be replayed.")]
    moves: list[Move]


# The games' own view fields, by rules package (`Game.package`): for the document only, since
# a view is the rules' `player_view` and passes through as it is.


class LigrettoCard(Answer):
    color: Literal["red", "yellow", "green", "blue"]
    value: int


class CenterPile(Answer):
    pile: int
    color: str
    top: int
    count: int
    closed: bool


class Tableau(Answer):
    seat: int
    row: list[LigrettoCard | None]
    row_depth: list[int]
    stack_top: LigrettoCard | None
    stack_count: int
    hand_count: int
    waste_top: LigrettoCard | None
    waste_count: int
    in_center: int


class LigrettoFields(Answer):
    center: list[CenterPile]
    tableaus: list[Tableau]


class AllegraCard(Answer):
    value: Annotated[int, Field(ge=-1, le=11)]


class FaceDown(Answer):
    hidden: Literal[True]


class Grid(Answer):
    seat: int
    cells: list[list[AllegraCard | FaceDown | None]]


class Place(Answer):
    seat: int
    row: int
    col: int


class Area(Answer):
    seat: int
    places: list[list[Place]]


Seat = Annotated[int | None, Field(ge=0)]


class AllegraFields(Answer):
    turn: Seat
    phase: Literal["opening", "draw", "decide", "knock_place", "knock_take"]
    deck_count: int
    discard_top: AllegraCard | None
    drawn: AllegraCard | None
    knocks: list[int]
    knocker: Seat
    hand: AllegraCard | None
    ender: Seat
    grids: list[Grid]
    areas: list[Area]


GAME_FIELDS: dict[str, type[Answer]] = {"ligretto": LigrettoFields, "allegra": AllegraFields}

REF = "#/components/schemas/{model}"


def finish_document(document: dict[str, Any]) -> dict[str, Any]:
    """Name the room `{id}` in paths (as docs/api.md does) and add each game's view fields."""
    paths = {}
    for path, operations in document["paths"].items():
        for operation in operations.values():
            # A view's docstring is its one-line summary, not a description under a made-up one.
            if operation.get("description"):
                operation["summary"] = operation.pop("description").rstrip(".")
            for parameter in operation.get("parameters", ()):
                if parameter["name"] == "room_id":
                    parameter["name"] = "id"
        paths[path.replace("{room_id}", "{id}")] = operations
    document["paths"] = paths
    schemas = document["components"]["schemas"]
    families: dict[str, list[str]] = {}
    for game in GAMES.values():
        families.setdefault(game.package, []).append(game.slug)
    one_of = []
    for package, slugs in families.items():
        fields = GAME_FIELDS.get(package)
        enum = {"game": {"enum": slugs}}
        if fields is None:  # a game this file does not describe: its fields are free
            one_of.append({"type": "object", "properties": enum})
            continue
        shape = fields.model_json_schema(ref_template=REF)
        schemas.update(shape.pop("$defs", {}))
        shape["properties"] = {**enum, **shape["properties"]}
        shape["required"] = ["game", *shape.get("required", [])]
        schemas[fields.__name__] = shape
        one_of.append({"$ref": REF.format(model=fields.__name__)})
    schemas["View"]["oneOf"] = one_of
    return document
