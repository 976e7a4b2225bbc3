from django.apps import AppConfig


class CardgamesConfig(AppConfig):
    """The project package as an app, so its socket signals are connected in every process."""

    name = "cardgames"
    verbose_name = "Cardgames"

    def ready(self) -> None:
        from cardgames import sockets

        sockets.connect_signals()
