"""A tournament page's socket: the live part of the page, pushed on every change (no reload).

Each connection renders its own view (whose table is yours differs per reader); the group only
carries the signal that the tournament changed (tournaments.services.changed).
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from tables.live.stream import LiveConsumer
from tournaments import describe, scheduler, services
from tournaments.models import Tournament


class TournamentConsumer(LiveConsumer):
    groups: list[str] = []

    async def connect(self) -> None:
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        # A page that connects re-arms the schedule: what a restart left due runs now.
        await database_sync_to_async(scheduler.run_due)()
        await self.join_group(services.group(self.tournament_id))
        html = await self._render()
        if html is None:
            await self.refuse()
            return
        await self.send_view(html)

    async def tournament_changed(self, event: dict) -> None:
        html = await self._render()
        if html is not None:
            await self.send(text_data=html)

    @database_sync_to_async
    def _render(self) -> str | None:
        t = Tournament.objects.filter(pk=self.tournament_id).select_related("creator").first()
        user = self.scope.get("user")
        invite = self.scope.get("session", {}).get(f"tournament-invite-{self.tournament_id}")
        if t is None or not services.may_see(t, user, invite):
            return None
        return render_to_string(
            "tournaments/page.html#live", {"t": describe.detail(t, user), "user": user}
        )
