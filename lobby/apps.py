from django.apps import AppConfig


class LobbyConfig(AppConfig):
    name = "lobby"
    verbose_name = "Lobby"

    def ready(self) -> None:
        from lobby import locale, services
        from tables import signals

        signals.match_finished.connect(services.finish_room, dispatch_uid="lobby.finish_room")
        locale.connect_signals()
