from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "Board API"

    def ready(self) -> None:
        from api import auth

        auth.connect_signals()  # revoking a token closes the streams opened with it
