"""What the live tables tell the layers above them, which they never import.

`match_finished(match)` is sent inside the transaction that finished the match, with the match
row locked: a receiver that locks more (the lobby finishes the room) keeps the lock order match,
then room.
"""

from __future__ import annotations

from django.dispatch import Signal

match_finished = Signal()
