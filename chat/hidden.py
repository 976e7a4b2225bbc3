"""Whose lines a reader does not see: a declared seam that an app above chat fills in.

Chat sits below the social app (friends and blocks), so it cannot ask it directly. The social
app registers one function in its AppConfig.ready (`register(unseen)`); chat asks it for each
reader when his socket connects (the backlog) and filters every pushed line by its author.
With nothing registered, every reader sees every line.
"""

from __future__ import annotations

from typing import Any, Protocol


class Unseen(Protocol):
    def __call__(self, reader_id: int) -> frozenset[int]:
        """The ids of the authors whose lines `reader_id` does not see."""
        ...


def _nobody(reader_id: int) -> frozenset[int]:
    return frozenset()


# Set once at start-up (AppConfig.ready), read-only after: configuration, not process state.
_seam: list[Unseen] = [_nobody]


def register(unseen: Unseen) -> None:
    """Install the one answer to "whose lines does this reader not see?"."""
    _seam[0] = unseen


def unseen_by(user: Any) -> frozenset[int]:
    """The authors whose lines `user` (a user, anonymous or None) does not see."""
    if user is None or not getattr(user, "is_authenticated", False):
        return frozenset()
    return _seam[0](user.pk)
