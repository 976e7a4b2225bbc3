"""Admin pages a moderator works from: users, reports, mutes and the read-only audit log.

Every moderator action here (ban, unban, mute, unmute, resolve, dismiss, close a room) asks for
a reason on an intermediate page and goes through moderation.services, which writes the audit
entry; the admin never changes those records by itself. Actions need the "moderate" permission
(moderation.models.can_moderate); the pages link users, rooms, reports and audit entries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Now
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.registry import GAMES
from lobby.admin import RoomAdmin
from lobby.models import Room
from moderation import services
from moderation.models import AuditEntry, Mute, Report
from tables import reaction
from tables.models import ReactionProfile
from tables.words import game_name

if TYPE_CHECKING:  # a str or a lazy translation (django-stubs' own alias)
    from django_stubs_ext import StrOrPromise

User = get_user_model()
# The reaction-time flags shown above the report queue (the newest; all are in their own list).
FLAGS_SHOWN = 20


def _changelist(model_label: str, **filters: Any) -> str | None:
    """Return the admin list of `app_model` filtered by `filters`, or None if it has none."""
    try:
        url = reverse(f"admin:{model_label}_changelist")
    except NoReverseMatch:  # an app whose admin is not there (yet)
        return None
    query = "&".join(f"{key}={value}" for key, value in filters.items())
    return f"{url}?{query}" if query else url


def _links(pairs: list[tuple[str, str | None]]) -> str:
    return format_html_join(
        " · ", '<a href="{}">{}</a>', [(url, text) for text, url in pairs if url]
    )


def _object_link(obj: Any) -> str:
    if obj is None:
        return "-"
    meta = obj._meta
    url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, obj)


class ReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=services.REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Required. It is kept in the audit log (and a closed room's players see it)."),
    )


REASON = _("Reason")  # the reason field's default label


def reason_action(
    name: str,
    description: StrOrPromise,
    apply: Callable[[Any, Any, str], Any],
    label: StrOrPromise = REASON,
) -> Callable:
    """Make an admin action that asks for a reason, then runs `apply(obj, moderator, reason)`."""

    def action(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet) -> Any:
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        form.fields["reason"].label = label
        if form.is_valid():
            done, refused = 0, []
            for obj in queryset:
                try:
                    apply(obj, request.user, form.cleaned_data["reason"])
                    done += 1
                except services.ModerationError as refusal:
                    refused.append(f"{obj}: {refusal.message}")
            if done:
                modeladmin.message_user(
                    request,
                    gettext("%(action)s: done for %(count)d.")
                    % {"action": description, "count": done},
                )
            for sentence in refused:
                modeladmin.message_user(request, sentence, messages.ERROR)
            return None  # back to the list
        context = {
            **modeladmin.admin_site.each_context(request),
            "title": description,
            "opts": modeladmin.model._meta,
            "objects": list(queryset),
            "form": form,
            "action": name,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/moderation/reason.html", context)

    action.__name__ = name
    return admin.action(description=description, permissions=["moderate"])(action)


if TYPE_CHECKING:  # what the mixins are mixed into
    _Admin = admin.ModelAdmin[Any]
else:
    _Admin = object


class ModerateMixin(_Admin):
    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return services.can_moderate(request.user)


# Users -------------------------------------------------------------------------------------


def _active_mutes():  # noqa: ANN202 - a Mute queryset
    return Mute.objects.filter(user=OuterRef("pk"), until__gt=Now())


class YesNoFilter(admin.SimpleListFilter):
    """A Yes/No filter: `condition()` is the Q (or expression) that "Yes" keeps."""

    def condition(self) -> Any:
        raise NotImplementedError

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, StrOrPromise]]:
        return [("yes", _("Yes")), ("no", _("No"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.filter(self.condition())
        if self.value() == "no":
            return queryset.exclude(self.condition())
        return queryset


class MutedFilter(YesNoFilter):
    title = _("muted")
    parameter_name = "muted"

    def condition(self) -> Any:
        return Exists(_active_mutes())


admin.site.unregister(User)


@admin.register(User)
class ModeratedUserAdmin(ModerateMixin, UserAdmin):
    list_display = [
        "username",
        "email",
        "is_active",
        "muted",
        "is_staff",
        "date_joined",
        "short_links",
    ]
    list_filter = ["is_active", "is_staff", MutedFilter, "is_superuser", "groups"]
    readonly_fields = ["moderation_links"]
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        (_("Moderation"), {"fields": ("moderation_links",)}),
    )
    actions = [
        reason_action("ban_users", _("Ban"), services.ban),
        reason_action("unban_users", _("Unban"), services.unban),
        reason_action(
            "mute_1h", _("Mute for 1 h"), lambda u, m, r: services.mute(u, m, 60, reason=r)
        ),
        reason_action(
            "mute_24h", _("Mute for 24 h"), lambda u, m, r: services.mute(u, m, 24 * 60, reason=r)
        ),
        reason_action("unmute_users", _("Unmute"), services.unmute),
    ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # A ban is the Ban action's (it logs why and gives the seats to bots), not a checkbox.
        return [*super().get_readonly_fields(request, obj), "is_active"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        until = _active_mutes().order_by("-until").values("until")[:1]
        return super().get_queryset(request).annotate(muted_until=Subquery(until))

    @admin.display(description=_("Muted until"), ordering="muted_until")
    def muted(self, user: Any) -> Any:
        until = getattr(user, "muted_until", None)
        return until or "-"

    @admin.display(description=_("Links"))
    def short_links(self, user: Any) -> str:
        # The list keeps to the few a moderator follows most; the change page has them all.
        return _links(
            [
                ("rooms", _changelist("lobby_room", seat_set__user__id__exact=user.pk)),
                ("reports", _changelist("moderation_report", reported__id__exact=user.pk)),
                ("audit", _changelist("moderation_auditentry", user__id__exact=user.pk)),
            ]
        )

    @admin.display(description=_("Links"))
    def moderation_links(self, user: Any) -> str:
        if user.pk is None:
            return "-"
        return _links(
            [
                ("rooms", _changelist("lobby_room", seat_set__user__id__exact=user.pk)),
                ("hosted", _changelist("lobby_room", host__id__exact=user.pk)),
                ("reports made", _changelist("moderation_report", reporter__id__exact=user.pk)),
                (
                    "reports received",
                    _changelist("moderation_report", reported__id__exact=user.pk),
                ),
                ("chat", _changelist("chat_chatmessage", user__id__exact=user.pk)),
                ("mutes", _changelist("moderation_mute", user__id__exact=user.pk)),
                ("audit", _changelist("moderation_auditentry", user__id__exact=user.pk)),
                (
                    "his actions",
                    _changelist("moderation_auditentry", moderator__id__exact=user.pk),
                ),
            ]
        )


# Reports -----------------------------------------------------------------------------------


@admin.register(Report)
class ReportAdmin(ModerateMixin, admin.ModelAdmin):
    list_display = [
        "id",
        "reported_link",
        "reporter_link",
        "room_link",
        "reason",
        "status",
        "created_at",
    ]
    list_filter = ["status", "created_at"]
    search_fields = ["reporter__username", "reported__username", "reason"]
    date_hierarchy = "created_at"
    actions = [
        reason_action("resolve_reports", _("Resolve"), services.resolve_report, label=_("Note")),
        reason_action("dismiss_reports", _("Dismiss"), services.dismiss_report, label=_("Note")),
    ]
    readonly_fields = [
        "reported_link",
        "reporter_link",
        "room_link",
        "reason",
        "status",
        "created_at",
        "handled_by",
        "handled_at",
        "resolution",
        "audit_links",
    ]
    fields = (*readonly_fields,)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("reporter", "reported", "room")

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> Any:
        """The queue, with the accounts the reaction-time check flagged and their evidence
        on top (tables.reaction): no reporter files those."""
        flagged = [
            {
                "profile": profile,
                "game": game_name(profile.game) if profile.game in GAMES else profile.game,
                "url": reverse("admin:tables_reactionprofile_change", args=[profile.pk]),
                "histogram": histogram(profile),
            }
            for profile in ReactionProfile.objects.filter(flagged_at__isnull=False)
            .select_related("user")
            .order_by("-flagged_at")[:FLAGS_SHOWN]
        ]
        return super().changelist_view(
            request, {**(extra_context or {}), "reaction_flags": flagged}
        )

    # Reports change only through the actions (which log them); they are never deleted.
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("Reported"), ordering="reported__username")
    def reported_link(self, report: Report) -> str:
        return _object_link(report.reported)

    @admin.display(description=_("Reporter"), ordering="reporter__username")
    def reporter_link(self, report: Report) -> str:
        return _object_link(report.reporter)

    @admin.display(description=_("Room"))
    def room_link(self, report: Report) -> str:
        return _object_link(report.room)

    @admin.display(description=_("Audit log"))
    def audit_links(self, report: Report) -> str:
        return _links(
            [("entries", _changelist("moderation_auditentry", report__id__exact=report.pk))]
        )


# Reaction-time flags (tables.reaction) ------------------------------------------------------


class FlaggedFilter(YesNoFilter):
    title = _("flagged")
    parameter_name = "flagged"

    def condition(self) -> Any:
        return Q(flagged_at__isnull=False)


def histogram(profile: ReactionProfile) -> str:
    """The profile's reaction times as a table of bars (no style: the site's CSP allows none)."""
    summary = reaction.summary_of(profile)
    most = max(summary.buckets) or 1
    rows = format_html_join(
        "",
        '<tr><th scope="row">{}</th><td><progress value="{}" max="{}">{}</progress></td>'
        "<td>{}</td></tr>",
        [(reaction.bucket_label(i), n, most, n, n) for i, n in enumerate(summary.buckets)],
    )
    return format_html(
        '<table class="reaction-histogram"><caption>{}</caption>'
        '<thead><tr><th scope="col">{}</th><th scope="col">{}</th><th scope="col">{}</th>'
        "</tr></thead><tbody>{}</tbody></table>",
        gettext("Reaction times of %(count)d plays") % {"count": summary.count},
        gettext("ms"),
        gettext("share"),
        gettext("plays"),
        rows,
    )


@admin.register(ReactionProfile)
class ReactionProfileAdmin(ModerateMixin, admin.ModelAdmin):
    """The accounts the reaction-time check flagged, with the evidence; a moderator clears."""

    list_display = [
        "user_link",
        "game",
        "count",
        "median",
        "spread",
        "flag",
        "flagged_at",
        "histogram",
    ]
    list_filter = [FlaggedFilter, "game", "flag"]
    search_fields = ["user__username"]
    actions = [
        reason_action("clear_reaction_flags", _("Clear the flag"), services.clear_reaction_flag),
    ]
    readonly_fields = [
        "user_link",
        "game",
        "count",
        "median",
        "spread",
        "flag",
        "flagged_at",
        "cleared_at",
        "cleared_by",
        "histogram",
    ]
    fields = (*readonly_fields,)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("user", "cleared_by")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("Player"), ordering="user__username")
    def user_link(self, profile: ReactionProfile) -> str:
        return _object_link(profile.user)

    @admin.display(description=_("Median (ms)"))
    def median(self, profile: ReactionProfile) -> str:
        median = reaction.summary_of(profile).median()
        return "-" if median is None else f"{median:.0f}"

    @admin.display(description=_("Spread of ln(ms)"))
    def spread(self, profile: ReactionProfile) -> str:
        spread = reaction.summary_of(profile).spread()
        return "-" if spread is None else f"{spread:.2f}"

    @admin.display(description=_("Histogram"))
    def histogram(self, profile: ReactionProfile) -> str:
        return histogram(profile)


# Mutes and the audit log: records to read ---------------------------------------------------


class ReadOnlyAdmin(admin.ModelAdmin):
    """No add, change or delete for anyone, superusers included: the services write these."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ActiveMuteFilter(YesNoFilter):
    title = _("active")
    parameter_name = "active"

    def condition(self) -> Any:
        return Q(until__gt=Now())


@admin.register(Mute)
class MuteAdmin(ReadOnlyAdmin):
    list_display = ["user_link", "until", "reason", "by", "created_at"]
    list_filter = [ActiveMuteFilter, "created_at"]
    search_fields = ["user__username", "by__username", "reason"]

    @admin.display(description=_("User"), ordering="user__username")
    def user_link(self, mute: Mute) -> str:
        return _object_link(mute.user)


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "moderator", "action", "target", "reason"]
    list_filter = ["action", ("moderator", admin.RelatedOnlyFieldListFilter), "created_at"]
    search_fields = ["reason", "moderator__username", "user__username"]
    date_hierarchy = "created_at"
    list_select_related = ["moderator", "user", "room", "report"]

    @admin.display(description=_("On"))
    def target(self, entry: AuditEntry) -> str:
        parts = [
            _object_link(target)
            for target in (entry.user, entry.room, entry.report)
            if target is not None
        ]
        if entry.message_id:
            url = _changelist("chat_chatmessage", id__exact=entry.message_id)
            parts.append(
                format_html('<a href="{}">message {}</a>', url, entry.message_id)
                if url
                else f"message {entry.message_id}"
            )
        return format_html_join(", ", "{}", [(p,) for p in parts]) or "-"


# Rooms (lobby.admin.RoomAdmin mixes this in) ------------------------------------------------


def _close(room: Any, moderator: Any, reason: str) -> Any:
    return services.close_room(room, moderator, reason)


class RoomModeration(ModerateMixin):
    """Links from a room to its reports and audit entries, and the "Close room" action."""

    actions = [reason_action("close_rooms", _("Close room"), _close)]
    # The users' admin links to the rooms they sat in.
    extra_lookups = {"seat_set__user__id__exact"}

    def get_list_display(self, request: HttpRequest) -> list[Any]:
        return [*super().get_list_display(request), "moderation_links"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [*super().get_readonly_fields(request, obj), "moderation_links"]

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        return lookup in self.extra_lookups or super().lookup_allowed(lookup, value, request)

    @admin.display(description=_("Moderation"))
    def moderation_links(self, room: Any) -> str:
        if room.pk is None:
            return "-"
        return _links(
            [
                ("reports", _changelist("moderation_report", room__id__exact=room.pk)),
                ("audit", _changelist("moderation_auditentry", room__id__exact=room.pk)),
                ("chat", _changelist("chat_chatmessage", room__id__exact=room.pk)),
            ]
        )


# The lobby's room admin, with the moderator's links and "Close room" (lobby knows no moderation).
admin.site.unregister(Room)


@admin.register(Room)
class ModeratedRoomAdmin(RoomModeration, RoomAdmin):
    pass
