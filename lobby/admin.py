from django.contrib import admin

from lobby.models import Room, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "status", "seats", "host", "created_at"]
    list_filter = ["game", "status"]
    search_fields = ["host__username", "seat_set__user__username"]
    raw_id_fields = ["host"]
    readonly_fields = ["invite_code", "created_at", "started_at", "ended_at"]
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ["room", "index", "user", "bot_level", "joined_at"]
    list_filter = ["bot_level"]
    search_fields = ["user__username"]
    raw_id_fields = ["room", "user"]
