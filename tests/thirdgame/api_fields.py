"""High Card (test-only) in the Board API: its options, actions and view fields, in its package.

The API and its document find these through the registry (`Game.api`): no shared file changes.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from games.shapes import ApiShapes, ClientSeed, Fields, Index, Options, Shape, WholeNumber, absent
from tests.thirdgame.rules import MAX_ROUNDS


class HighCardOptions(Options):
    rounds: Annotated[WholeNumber, Field(ge=1, le=MAX_ROUNDS)] = absent()


class HighCardPlay(Shape):
    type: Literal["play"]
    index: Index


class HighCardReady(Shape):
    type: Literal["ready"]
    seed: ClientSeed = absent()


class TrickCard(Fields):
    seat: int
    value: int


class HighCardFields(Fields):
    turn: int
    trick: list[TrickCard]
    hand: list[int] | None
    stock_count: int


SHAPES = ApiShapes(
    options={"highcard": HighCardOptions},
    actions=(HighCardPlay, HighCardReady),
    view=HighCardFields,
)
