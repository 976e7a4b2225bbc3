from django.apps import AppConfig


class LobbyConfig(AppConfig):
    name = "lobby"
    verbose_name = "Lobby"

    def ready(self) -> None:
        from lobby import checks, locale, services  # noqa: F401 (checks: registered)
        from tables import signals

        signals.match_finished.connect(services.finish_room, dispatch_uid="lobby.finish_room")
        locale.connect_signals()
        # A match the tables stopped (nobody at its table): its room closes with it.
        signals.match_closed.connect(services.close_ended_room, dispatch_uid="lobby.close_room")
        # In the transaction that deals a round: a person who claimed a bot's seat sits there.
        signals.seat_claimed.connect(services.seat_claimed, dispatch_uid="lobby.seat_claimed")
        # In the same transaction: a finished match and its ratings are written together.
        signals.match_finished.connect(
            services.rate_finished_match, dispatch_uid="lobby.rate_finished_match"
        )
