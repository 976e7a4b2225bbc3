"""Ligretto and Ligretto Mini in the Board API: room options (L6, L16), actions (L7-L16), view.

Pure pydantic shapes (games.shapes); the rules judge, these say what a request may look like.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool

from games.ligretto.rules import MAX_ROUNDS, MAX_TARGET
from games.shapes import ApiShapes, ClientSeed, Fields, Index, Options, Shape, WholeNumber, absent


class _RoundOptions(Options):
    rounds: Annotated[WholeNumber, Field(ge=1, le=MAX_ROUNDS)] = absent()
    row_variant: StrictBool = absent()


class LigrettoOptions(_RoundOptions):
    target: Annotated[
        Annotated[WholeNumber, Field(ge=1, le=MAX_TARGET)] | None,
        Field(description="Points that end the match; null plays the rounds out."),
    ] = absent()


class MiniOptions(_RoundOptions):
    """L6 for Mini: a fixed number of rounds (default 1), a target, or best of N."""

    target: Annotated[
        Annotated[WholeNumber, Field(ge=1, le=MAX_TARGET)] | None,
        Field(
            description="Points that end the match (default null: none); with a target, "
            "`rounds` is the most rounds (default 10)."
        ),
    ] = absent()
    best_of: Annotated[
        Literal[3, 5, 7, 9] | None,  # L6: odd, 3 to the rules' MAX_BEST_OF
        Field(
            description="Best of N (off by default): the first to win more than half of N "
            "rounds wins the match (a round goes to its one top scorer, a drawn round to "
            "nobody); `rounds` is then the most rounds (default N), and a `target` may end it "
            "sooner; equal rounds won are settled by the higher total."
        ),
    ] = absent()


class LigrettoReady(Shape):
    type: Literal["ready"]
    seed: ClientSeed = absent()


class LigrettoFlip(Shape):
    type: Literal["flip"]


Top = Literal["stack", "waste"]


class LigrettoRowPlay(Shape):
    """A row card onto a centre pile (a new one unless `pile` names one)."""

    type: Literal["play"]
    from_: Annotated[Literal["row"], Field(alias="from")]
    index: Index


class LigrettoTopPlay(Shape):
    """The stack's or the waste's top card onto a centre pile."""

    type: Literal["play"]
    from_: Annotated[Top, Field(alias="from")]


class LigrettoToRow(Shape):
    """The stack's or the waste's top card into an empty row slot."""

    type: Literal["play"]
    from_: Annotated[Top, Field(alias="from")]
    to: Literal["row"]
    index: Index


class LigrettoCard(Fields):
    color: Literal["red", "yellow", "green", "blue"]
    value: int


class CenterPile(Fields):
    pile: int
    color: str
    top: int
    count: int
    closed: bool


class Tableau(Fields):
    seat: int
    row: list[LigrettoCard | None]
    row_depth: list[int]
    stack_top: LigrettoCard | None
    stack_count: int
    hand_count: int
    waste_top: LigrettoCard | None
    waste_count: int
    in_center: int


class LigrettoFields(Fields):
    center: list[CenterPile]
    tableaus: list[Tableau]


SHAPES = ApiShapes(
    options={"ligretto-mini": MiniOptions, "ligretto": LigrettoOptions},
    actions=(LigrettoReady, LigrettoFlip, LigrettoRowPlay, LigrettoTopPlay, LigrettoToRow),
    view=LigrettoFields,
)
