from django.contrib import admin

from social.models import Block, Friendship, Invitation, Notification


@admin.register(Friendship)
class FriendshipAdmin(admin.ModelAdmin):
    list_display = ["sender", "recipient", "status", "created_at"]
    raw_id_fields = ["sender", "recipient"]


@admin.register(Block)
class BlockAdmin(admin.ModelAdmin):
    list_display = ["blocker", "blocked", "created_at"]
    raw_id_fields = ["blocker", "blocked"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["room", "sender", "recipient", "status", "created_at"]
    raw_id_fields = ["room", "sender", "recipient"]


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ["user", "kind", "created_at", "read_at"]
    raw_id_fields = ["user"]
