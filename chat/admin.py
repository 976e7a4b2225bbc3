"""Chat messages in the admin: read, search, filter, and hide through chat.services.hide.

Lines are records for moderation: nobody adds, edits or deletes them here; hiding goes
through the service so that it is pushed live and lands in the audit log.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from chat import services
from chat.models import ChatMessage


class HideForm(forms.Form):
    reason = forms.CharField(
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Why these messages are hidden; the audit log keeps it with your name.",
    )


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    list_display = ["text", "room_link", "user_link", "created_at", "hidden"]
    list_filter = ["hidden", "created_at"]
    search_fields = ["text", "user__username"]
    list_select_related = ["room", "user"]
    date_hierarchy = "created_at"
    readonly_fields = ["room", "user", "text", "created_at", "hidden", "hidden_by", "hidden_at"]
    actions = ["hide_selected"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:  # noqa: ANN001
        return False  # hidden, never deleted: what was said stays on record

    @admin.display(description=_("room"), ordering="room")
    def room_link(self, message: ChatMessage) -> str:
        url = reverse("admin:lobby_room_change", args=[message.room_id])
        return format_html('<a href="{}">{}</a>', url, message.room)

    @admin.display(description=_("user"), ordering="user__username")
    def user_link(self, message: ChatMessage) -> str:
        opts = get_user_model()._meta
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[message.user_id])
        return format_html('<a href="{}">{}</a>', url, message.user)

    @admin.action(description=_("Hide selected messages"), permissions=["change"])
    def hide_selected(self, request: HttpRequest, queryset):  # noqa: ANN001, ANN201
        form = HideForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            hidden = 0
            for message in queryset.filter(hidden=False):
                try:
                    services.hide(message.pk, request.user, form.cleaned_data["reason"])
                except services.ChatRefused as refusal:
                    self.message_user(request, refusal.message, messages.ERROR)
                    return None
                hidden += 1
            self.message_user(request, f"Hid {hidden} message(s).", messages.SUCCESS)
            return None  # back to the list
        context = {
            **self.admin_site.each_context(request),
            "title": "Hide chat messages",
            "opts": self.model._meta,
            "chat_messages": queryset.select_related("user", "room"),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/chat/hide_selected.html", context)
