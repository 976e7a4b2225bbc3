from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "Board API"

    def ready(self) -> None:
        from api import auth
        from api.models import ApiToken
        from social import data

        auth.connect_signals()  # revoking a token closes the streams opened with it
        # A player's export lists his tokens' names; deleting his account deletes them.
        data.register("api_tokens", auth.export_tokens, auth.erase_tokens, models=(ApiToken,))
