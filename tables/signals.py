"""What the live tables tell the layers above them, which they never import.

`decision_due(room_id, game, kind, user_ids)` is sent by the bot driver's clock (tables.clocks)
when a timed decision becomes due for people (`kind` "turn": their turn), after it is saved,
and at a turn-based table without a clock when a person's turn begins (once a turn), from the
driver's thread: a receiver that may wait (a Web Push) does its work elsewhere.

`match_finished(match)` is sent inside the transaction that finished the match, with the match
row locked: a receiver that locks more (the lobby finishes the room) keeps the lock order match,
then room.

`match_closed(match)` is sent inside the transaction that stopped a match before its end
(`match.closed_reason` says why), the match row locked: the lobby closes a room still being
played (the driver ended a table nobody was at), the tournaments look at their table.

`seat_claimed(match, seat, user_id)` is sent inside the transaction that deals a round in which
a person takes a bot's seat he claimed (tables.claims), the match row locked: the lobby gives
him the room's seat row there.
"""

from __future__ import annotations

from django.dispatch import Signal

match_finished = Signal()
match_closed = Signal()
decision_due = Signal()
seat_claimed = Signal()
