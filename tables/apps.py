from __future__ import annotations

from typing import TYPE_CHECKING

from django.apps import AppConfig

if TYPE_CHECKING:
    from tables.server import LiveServer


def build_live_server() -> LiveServer:
    """This process's live server, its parts built and handed in (docs/architecture.md)."""
    from tables import driver, languages, play, replay
    from tables.live import owners, render, rooms, stream
    from tables.server import LiveServer

    return LiveServer(
        rooms.Rooms(None),  # bound to the server's loop when it starts (rooms.bind)
        owners.Owners(apply=rooms.apply_here),  # a move forwarded here: applied in its room
        languages.Readings(),
        stream.Open(),
        play.Waiting(),
        replay.Replays(),
        driver.Running(),
        render.Labels(),
    )


class TablesConfig(AppConfig):
    """The live tables: matches, the write path, pushes, bots' driver, presence, score history."""

    name = "tables"
    verbose_name = "Tables"

    def ready(self) -> None:
        from django.conf import settings

        from games.registry import Game, register
        from tables import server
        from tables.live import stream

        # A project's own games beside the site's (the tests' third game): one registry line
        # each, (slug, name, package), so no shared file has to name them.
        for slug, name, package in getattr(settings, "EXTRA_GAMES", ()):
            register(Game(slug, name, package))

        # Every process closes a user's sockets on logout, a password change or a ban.
        stream.connect_signals()

        # The one live server object of this process (tables.server).
        server.install(build_live_server())
