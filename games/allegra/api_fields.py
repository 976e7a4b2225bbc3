"""Allegra in the Board API: room options (A1), actions (A3-A9) and the view's fields.

Pure pydantic shapes (games.shapes); the rules judge, these say what a request may look like.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from games.allegra.rules import MAX_ROUNDS
from games.shapes import (
    ApiShapes,
    ClientSeed,
    Fields,
    Options,
    Place,
    Shape,
    Small,
    WholeNumber,
    absent,
)


class AllegraOptions(Options):
    rounds: Annotated[WholeNumber, Field(ge=1, le=MAX_ROUNDS)] = absent()


class AllegraPlaceAction(Shape):
    """Turn a card up, swap the drawn card in, or place one (while knocked)."""

    type: Literal["reveal", "swap", "place"]
    place: Place


class AllegraTake(Shape):
    type: Literal["take"]
    from_: Annotated[Place, Field(alias="from")]
    to: Place


class AllegraDraw(Shape):
    type: Literal["draw"]
    source: Literal["deck", "discard"]


class AllegraGive(Shape):
    type: Literal["give"]
    to: Small


class AllegraPlain(Shape):
    type: Literal["discard", "knock"]


class AllegraReady(Shape):
    type: Literal["ready"]
    seed: ClientSeed = absent()


class AllegraCard(Fields):
    value: Annotated[int, Field(ge=-1, le=11)]


class FaceDown(Fields):
    hidden: Literal[True]


class Grid(Fields):
    seat: int
    cells: list[list[AllegraCard | FaceDown | None]]


class AreaPlace(Fields):
    seat: int
    row: int
    col: int


class Area(Fields):
    seat: int
    places: list[list[AreaPlace]]


Seat = Annotated[int | None, Field(ge=0)]


class AllegraFields(Fields):
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


SHAPES = ApiShapes(
    options={"allegra": AllegraOptions},
    actions=(AllegraPlaceAction, AllegraTake, AllegraDraw, AllegraGive, AllegraPlain, AllegraReady),
    view=AllegraFields,
)
