"""The Board API's shuffle verifier: `GET /api/v1/verify` (docs/fairness.md, docs/api.md).

Public (no token): it rebuilds a round's deal from its seed with the game's engine
(tables.fairness.verify), as the page /verify/ does, and checks a revealed server seed.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from django.utils.translation import gettext as _
from ninja import Query
from pydantic import Field

from api import schemas as s
from api.http import ApiError, api
from api.views import answers
from tables import fairness

# What a query may look like; the verifier judges the rest (tables.fairness.verify), and its
# codes say what it refused.
Seed = Annotated[str, Query(pattern=r"^[0-9]{1,16}$", description="The round's deal seed.")]
Seats = Annotated[str, Query(pattern=r"^[0-9]{1,2}$")]
GameSlug = Annotated[str, Query(pattern="^(" + "|".join(map(re.escape, s.SLUGS)) + ")$")]
ServerSeed = Annotated[str, Query(pattern=r"^([0-9a-f]{64})?$", description="Revealed.")]
ClientSeeds = Annotated[
    str,
    Query(
        pattern=r"^([A-Za-z0-9_-]{1,64}(,[A-Za-z0-9_-]{1,64})*)?$", description="Comma-separated."
    ),
]
Commitment = Annotated[str, Query(pattern=r"^([0-9a-fA-F]{64})?$")]


class Verified(s.Answer):
    """A deal rebuilt from its seed, and what the revealed seeds say."""

    game: Annotated[str, Field(json_schema_extra={"enum": s.SLUGS})]
    seats: int
    seed: Annotated[int, Field(ge=0, description="The round's deal seed (below 2^53).")]
    cards: Annotated[
        dict[str, Any],
        Field(description="Every card of the deal where it lies, as the game's engine dealt it."),
    ]
    commitment_matches: Annotated[
        bool | None,
        Field(description="SHA-256 of server_seed equals commitment (null: not both given)."),
    ]
    seed_matches: Annotated[
        bool | None,
        Field(
            description="The seed mixed from server_seed and client_seeds equals seed "
            "(null: no server_seed given)."
        ),
    ]


@api.get("/verify", auth=None, response=answers(200, Verified))
def verify(
    request: Any,
    seed: Seed,
    game: GameSlug,
    seats: Seats,
    server_seed: ServerSeed = "",
    client_seeds: ClientSeeds = "",
    commitment: Commitment = "",
) -> dict[str, Any]:
    """Rebuild the deal of a round from its revealed seed (and check its server seed)."""
    try:
        return fairness.verify(game, seats, seed, server_seed, client_seeds, commitment)
    except fairness.VerifyError as refusal:
        raise ApiError(refusal.code, _(refusal.message)) from None
