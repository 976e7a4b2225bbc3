"""A shuffle anyone can check (issue 42; docs/fairness.md): commit, mix, reveal.

Each match keeps a secret (`Match.fair_secret`, never sent). Round r's server seed is
HMAC-SHA256(secret, "round:<r>"); the table shows its commitment, SHA-256(server seed), before
the round's seed is fixed, and the server seed once the round is over. The round is dealt from
`games.engine.mixed_seed(server seed, the client seeds sent with "ready")`, as round 1 of a
match seeded with that number, so `verify(game, seats, seed)` rebuilds it with the engine alone.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import re
import secrets
from typing import Any

from games.engine import (
    CLIENT_SEED,
    SEED_BITS,
    Progress,
    State,
    commitment,
    gettext_noop,
    mixed_seed,
)
from games.registry import GAMES, Game

__all__ = ["commitment", "mixed_seed"]

SERVER_SEED = re.compile(r"[0-9a-f]{64}")
SEED_LIMIT = 2**SEED_BITS


def new_secret() -> str:
    """A match's secret: 256 random bits, hex."""
    return secrets.token_hex(32)


def server_seed(secret: str, round_no: int) -> str:
    """Round `round_no`'s server seed (hex): the match's secret keyed with the round."""
    return hmac.new(
        secret.encode("ascii"), f"round:{round_no}".encode(), hashlib.sha256
    ).hexdigest()


def first_seed(secret: str) -> int:
    """Round 1's deal seed: nobody has sent a client seed before the match starts."""
    return mixed_seed(server_seed(secret, 1), ())


def next_deal(game: Game, secret: str, before: Progress, new: State) -> State:
    """`new` (a move's result), holding the next round's server seed once that move ended a
    round; unchanged for a match without a secret (an older one, or a fixed deal)."""
    if not secret:
        return new
    after = game.progress(new)
    if after.rounds_scored > before.rounds_scored and not after.finished:
        return game.reseed(new, server_seed(secret, after.round + 1))
    return new


def public(secret: str, progress: Progress, stopped: bool = False) -> dict[str, Any] | None:
    """The view's `fairness`: the round's commitment, and once it is over (or the match was
    `stopped` in it) its revealed seeds and the next round's commitment. None for a match
    without a checkable shuffle."""
    if not secret:
        return None
    number = progress.round
    shown: dict[str, Any] = {
        "round": number,
        "commitment": commitment(server_seed(secret, number)),
        "server_seed": None,
        "client_seeds": None,
        "seed": None,
        "next_commitment": None,
    }
    if stopped or progress.status in ("round_over", "finished"):
        shown.update(
            server_seed=server_seed(secret, number),
            client_seeds=list(progress.clients),
            seed=progress.seed,
        )
        if progress.status == "round_over":
            shown["next_commitment"] = commitment(server_seed(secret, number + 1))
    return shown


class VerifyError(ValueError):
    """Bad input to the verifier: `code` for the API, `message` one sentence."""

    def __init__(self, code: str, message: str) -> None:  # message: English, marked
        super().__init__(message)
        self.code, self.message = code, message


def verify(
    game: str,
    seats: str,
    seed: str,
    server_seed: str = "",
    client_seeds: str = "",
    committed: str = "",
) -> dict[str, Any]:
    """What the verifier shows (the page and GET /api/v1/verify, as text from a query): the
    deal of `seed` from the engine, and, when given, whether the server seed matches the
    commitment and, with the client seeds (comma-separated), the seed. VerifyError for bad
    input."""
    entry = GAMES.get(game)
    if entry is None:
        raise VerifyError("unknown_game", gettext_noop("There is no such game."))
    number = _number(seats, 99, "invalid_seats", gettext_noop("The seats must be a number."))
    if not entry.min_seats <= number <= entry.max_seats:
        raise VerifyError(
            "invalid_seats", gettext_noop("That game is not played with that many seats.")
        )
    deal_seed = _number(
        seed, SEED_LIMIT, "invalid_seed", gettext_noop("The seed is a whole number below 2^53.")
    )
    answer: dict[str, Any] = {
        "game": game,
        "seats": number,
        "seed": deal_seed,
        "cards": entry.dealt(entry.deal(number, deal_seed)),
        "commitment_matches": None,
        "seed_matches": None,
    }
    if server_seed:
        if not SERVER_SEED.fullmatch(server_seed):
            raise VerifyError(
                "invalid_server_seed",
                gettext_noop("A server seed is 64 hexadecimal digits (lower case)."),
            )
        clients = [c for c in client_seeds.split(",") if c] if client_seeds else []
        if any(not CLIENT_SEED.fullmatch(c) for c in clients):
            raise VerifyError(
                "invalid_client_seed",
                gettext_noop("A client seed is 1 to 64 letters, digits, - or _."),
            )
        answer["seed_matches"] = mixed_seed(server_seed, clients) == deal_seed
        if committed:
            answer["commitment_matches"] = hmac.compare_digest(
                commitment(server_seed), committed.lower()
            )
    return answer


def items(value: Any) -> list[Any]:
    """A part of a deal (`Game.dealt`) as the lines it is shown in: one per seat or item."""
    return value if isinstance(value, list) else [value]


def revealed(game: Game, secret: str, dealt: State) -> dict[str, Any] | None:
    """The seeds of a round that is over, from the state its deal left (a replay's first)."""
    return public(secret, dataclasses.replace(game.progress(dealt), status="finished"))


def _number(text: str, limit: int, code: str, message: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 16) or int(text) >= limit:
        raise VerifyError(code, message)
    return int(text)
