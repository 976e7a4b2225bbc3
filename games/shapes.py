"""The typed shapes a game shows the Board API: its room options, its actions, its view's fields.

Each game's package declares them in `api_fields.py` (pure pydantic, no Django) as one `ApiShapes`,
which the registry hands out as `Game.api`; the API builds its request checks and its OpenAPI
document from them, so no shared module names a game. The rules stay the judge: these shapes
say what a request may look like, and a test holds each game's shapes to its rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints
from pydantic_core import PydanticCustomError


def _whole(value: Any) -> Any:
    # JSON Schema's "integer" is any number with no fraction (3 and 3.0), never true or "3":
    # take exactly those, as ints, so that the rules (which want an int) get one.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("int_type", "must be a whole number")
    if isinstance(value, float):
        if not value.is_integer():
            raise PydanticCustomError("int_from_float", "must be a whole number")
        return int(value)
    return value


WholeNumber = Annotated[int, BeforeValidator(_whole)]


# What the write path lets through in any action (tables.live.stream.ACTION: a type is a
# lower-case word, a pile or index a number from 0 to 9999, a place three numbers from 0 to
# 99); each game's shapes narrow these. tests/games/test_api_fields.py holds the two to each other.
Word = Annotated[str, StringConstraints(strict=True, pattern=r"^[a-z_]{1,20}$")]
Small = Annotated[WholeNumber, Field(ge=0, le=99)]
Index = Annotated[WholeNumber, Field(ge=0, le=9999)]
# A client seed sent with "ready" (docs/fairness.md; tables.live.stream.client_seed).
ClientSeed = Annotated[
    str,
    StringConstraints(strict=True, pattern=r"^[A-Za-z0-9_-]{1,64}$"),
    Field(description="Your own entropy, mixed into the next round's seed (docs/fairness.md)."),
]


class Place(BaseModel):
    """A place of a grid: its seat, row and column."""

    model_config = ConfigDict(extra="forbid")
    seat: Small
    row: Small
    col: Small


def absent() -> Any:
    """The default of a field that may be left out but is never null."""
    return Field(default=None, json_schema_extra=_not_null)


def _not_null(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


class Options(BaseModel):
    """A room's options for one game: only the fields it names (an unknown one is refused)."""

    model_config = ConfigDict(extra="forbid")


class Shape(BaseModel):
    """An action a game takes: its `type` and its fields, no other (a typo is told, not ignored)."""

    model_config = ConfigDict(extra="forbid")
    # The fields the write path checks in every action, whichever game's: narrowed per game.
    from_: Annotated[Place | Word, Field(alias="from")] = absent()
    to: Small | Place | Word = absent()
    index: Index = absent()
    pile: Index = absent()
    source: Word = absent()
    place: Place = absent()
    seed: ClientSeed = absent()

    def sent(self) -> dict[str, Any]:
        """The action as the write path takes it: the fields sent, by their wire names."""
        return self.model_dump(by_alias=True, exclude_unset=True, exclude_none=True)


class Fields(BaseModel):
    """A game's own fields in a view (answers): listed as promised, extra ones allowed."""

    model_config = ConfigDict(extra="allow")


@dataclass(frozen=True)
class ApiShapes:
    """One game package's shapes: options by preset slug, its actions, its view's fields."""

    options: dict[str, type[Options]]
    actions: tuple[type[Shape], ...]
    view: type[Fields] | None = None  # None: a game whose view fields are not described
