from __future__ import annotations

from django.apps import AppConfig


class DailyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "daily"
    verbose_name = "Daily challenge"
