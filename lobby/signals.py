"""What the lobby tells the layers above it, which it never imports.

`rematch_opened(old_room_id, room, user)` is sent after the commit that opened a finished
room's rematch, by the player who asked first (the social app invites the others).
"""

from __future__ import annotations

from django.dispatch import Signal

rematch_opened = Signal()
