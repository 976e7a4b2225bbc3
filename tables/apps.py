from django.apps import AppConfig


class TablesConfig(AppConfig):
    """The live tables: matches, the write path, pushes, bots' driver, presence, score history."""

    name = "tables"
    verbose_name = "Tables"

    def ready(self) -> None:
        from tables import sockets

        # Every process closes a user's sockets on logout, a password change or a ban.
        sockets.connect_signals()
