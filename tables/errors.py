"""The refusal of a move or table operation that the site (not a game's rules) makes."""

from __future__ import annotations

from games.engine import IllegalAction


class PlayError(IllegalAction):
    """A refused move or table operation: a code, a sentence, and the HTTP status for the API."""

    def __init__(
        self, code: str, message: str, status: int = 409, retry_after: int | None = None
    ) -> None:
        super().__init__(code, message)
        self.status = status
        # A refusal for now (429): the seconds after which the same request may pass.
        self.retry_after = retry_after
