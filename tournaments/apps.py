from __future__ import annotations

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from tables import signals
        from tournaments import services

        signals.match_finished.connect(services.table_finished, dispatch_uid="tournaments.table")
        # A table the live tables stopped (nobody was at it) ends its part of the round too.
        signals.match_closed.connect(services.table_finished, dispatch_uid="tournaments.closed")
