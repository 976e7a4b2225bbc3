"""What tournaments tell other apps (notifications), which they never import upward.

`starting_soon(tournament, user_ids)`: about STARTING_SOON seconds before the start.
`round_starting(tournament, round, user_ids)`: a round was seated; each user has a table.
Both are sent after the transaction that decided them commits.
"""

from __future__ import annotations

from django.dispatch import Signal

starting_soon = Signal()
round_starting = Signal()
