from django.contrib import admin

from api.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "hint", "created_at", "last_used_at"]
    search_fields = ["user__username", "name"]
    # The hash is useless to read and must not be edited into a known value.
    readonly_fields = ["user", "key", "hint", "created_at", "last_used_at"]
