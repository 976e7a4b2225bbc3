from django.apps import AppConfig


class LobbyConfig(AppConfig):
    name = "lobby"
    verbose_name = "Lobby"

    def ready(self) -> None:
        from lobby import locale, services
        from tables import signals

        signals.match_finished.connect(services.finish_room, dispatch_uid="lobby.finish_room")
        locale.connect_signals()
        # In the same transaction: a finished match and its ratings are written together.
        signals.match_finished.connect(
            services.rate_finished_match, dispatch_uid="lobby.rate_finished_match"
        )
