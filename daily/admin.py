from __future__ import annotations

from django.contrib import admin

from daily.models import Attempt


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["day", "user", "room", "ranked", "created_at"]
    list_filter = ["ranked", "day"]
    raw_id_fields = ["user", "room"]
