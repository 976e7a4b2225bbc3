from django.apps import AppConfig


class SocialConfig(AppConfig):
    name = "social"
    verbose_name = "Friends and notifications"

    def ready(self) -> None:
        from lobby import signals
        from social import invitations, notify, services
        from tables import signals as table_signals
        from tournaments import signals as tournament_signals

        services.connect()
        signals.rematch_opened.connect(invitations.rematch_opened, dispatch_uid="social.rematch")
        table_signals.decision_due.connect(notify.decision_due, dispatch_uid="social.your_turn")
        tournament_signals.starting_soon.connect(
            notify.tournament_soon, dispatch_uid="social.tournament_soon"
        )
        tournament_signals.round_starting.connect(
            notify.round_starting, dispatch_uid="social.round_starts"
        )
