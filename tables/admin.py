"""Matches in the admin: read-only records of what was played (tables.play is the only writer)."""

from django.contrib import admin

from tables.models import ActionLog, Match, Player, Round, RoundScore


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return False


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0
    can_delete = False
    fields = ("seat", "name", "user", "bot_level", "left", "stand_in", "connections")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return False


@admin.register(Match)
class MatchAdmin(ReadOnly):
    list_display = ["id", "room", "game", "status", "version", "driver", "created_at"]
    list_filter = ["game", "status"]
    search_fields = ["room__id", "players__name"]
    inlines = [PlayerInline]


@admin.register(Round)
class RoundAdmin(ReadOnly):
    list_display = ["id", "match", "number", "version", "end_reason", "started_at", "ended_at"]
    list_filter = ["end_reason"]
    exclude = ["state"]  # the whole deal: hidden cards have no business on a page


@admin.register(ActionLog)
class ActionLogAdmin(ReadOnly):
    list_display = ["match", "version", "seat", "action", "by_bot", "driver", "created_at"]
    list_filter = ["by_bot"]


@admin.register(RoundScore)
class RoundScoreAdmin(ReadOnly):
    list_display = ["round", "seat", "player", "points"]
