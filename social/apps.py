from django.apps import AppConfig


class SocialConfig(AppConfig):
    name = "social"
    verbose_name = "Friends and notifications"

    def ready(self) -> None:
        from lobby import signals
        from social import invitations, services

        services.connect()
        signals.rematch_opened.connect(invitations.rematch_opened, dispatch_uid="social.rematch")
