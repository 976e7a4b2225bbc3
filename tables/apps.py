from django.apps import AppConfig


class TablesConfig(AppConfig):
    """The live tables: matches, the write path, pushes, bots' driver, presence, score history."""

    name = "tables"
    verbose_name = "Tables"

    def ready(self) -> None:
        from django.conf import settings

        from games.registry import Game, register
        from tables import sockets

        # A project's own games beside the site's (the tests' third game): one registry line
        # each, (slug, name, package), so no shared file has to name them.
        for slug, name, package in getattr(settings, "EXTRA_GAMES", ()):
            register(Game(slug, name, package))

        # Every process closes a user's sockets on logout, a password change or a ban.
        sockets.connect_signals()
