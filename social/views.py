"""Friends, invitations and notifications pages. Changes go through social.services,
social.invitations and social.notify; a refusal says its sentence on the page it returns to."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from social import data, invitations, notify, services
from social.forms import DeleteForm
from social.models import Export, Notification
from social.services import SocialError
from tables.guests import is_member

RELATIONS = {
    "ask": services.ask,
    "accept": services.accept,
    "decline": services.decline,
    "end": services.end,
    "block": services.block,
    "unblock": services.unblock,
}


def _back(request: HttpRequest, fallback: str) -> HttpResponseRedirect:
    target = request.POST.get("next") or request.headers.get("Referer") or ""
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = fallback
    return redirect(target or fallback)


@login_required
def friends(request: HttpRequest) -> HttpResponse:
    try:
        services.require_member(request.user)
    except SocialError as refusal:
        messages.info(request, refusal.message)
        return redirect("signup")
    context = {"page": services.friends_page(request.user), "friends_page": True}
    return render(request, "social/friends.html", context)


@login_required
@require_POST
def ask(request: HttpRequest) -> HttpResponse:
    """Ask someone by name."""
    try:
        other = services.find_user(request.POST.get("name"))
        services.ask(request.user, other)
    except SocialError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, _("Request sent to %(name)s.") % {"name": other.username})
    return redirect("social:friends")


@login_required
@require_POST
def relate(request: HttpRequest, username: str, action: str) -> HttpResponse:
    """Ask, accept, decline, end, block or unblock, from the friends page or a player's page."""
    change = RELATIONS.get(action)
    if change is None:
        raise Http404("No such action.")
    try:
        other = services.find_user(username)
        change(request.user, other)
    except SocialError as refusal:
        messages.error(request, refusal.message)
    return _back(request, "/friends/")


@login_required
def invitation_list(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "social/invitations.html",
        {"invitations": invitations.pending_for(request.user)},
    )


@login_required
@require_POST
def invite(request: HttpRequest, room_id: int) -> HttpResponse:
    """Invite a friend (by name) to a room where the caller sits."""
    try:
        other = services.find_user(request.POST.get("name"))
        invitations.invite(request.user, other, room_id)
    except SocialError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, _("%(name)s is invited.") % {"name": other.username})
    return _back(request, "/friends/")


@login_required
@require_POST
def invitation_answer(request: HttpRequest, invitation_id: int, answer: str) -> HttpResponse:
    if answer not in ("accept", "decline"):
        raise Http404("No such answer.")
    try:
        if answer == "accept":
            invitation = invitations.accept(request.user, invitation_id)
            return redirect(invitation.room)
        invitations.decline(request.user, invitation_id)
    except SocialError as refusal:
        messages.error(request, refusal.message)
    return _back(request, "/invitations/")


@login_required
def notifications(request: HttpRequest) -> HttpResponse:
    user: Any = request.user
    rows = list(Notification.objects.filter(user=user)[:100])
    shown = [(row, notify.word(row)) for row in rows]
    return render(request, "social/notifications.html", {"notifications": shown})


@login_required
@require_POST
def mark_read(request: HttpRequest) -> HttpResponse:
    """Mark one notification (`id`) or all of the caller's as read; never someone else's."""
    user: Any = request.user
    mine = Notification.objects.filter(user=user, read_at__isnull=True)
    raw = request.POST.get("id", "")
    if raw:
        if not raw.isascii() or not raw.isdigit():
            raise Http404("No such notification.")
        mine = mine.filter(pk=int(raw))
    mine.update(read_at=timezone.now())
    notify.pushes.bell_changed(user.pk)
    return redirect("social:notifications")


@login_required
@require_POST
def preferences(request: HttpRequest) -> HttpResponse:
    """Save which routes each kind of notification takes (the profile's form)."""
    notify.save_routes(
        request.user,
        {
            kind: {route: f"{kind}:{route}" in request.POST for route in notify.ROUTES}
            for kind in notify.KINDS
        },
    )
    messages.success(request, _("Your notification settings are saved."))
    return redirect("/accounts/profile/#notification-settings")


@login_required
@require_POST
def push_subscribe(request: HttpRequest) -> HttpResponse:
    """Keep this browser's Web Push subscription (JSON: endpoint, keys.p256dh, keys.auth)."""
    from tables.live import stream

    try:
        body = stream.loads(request.body)
        fields = notify.subscription_fields(body)
    except stream.WireError as refusal:
        return JsonResponse({"error": refusal.code, "detail": refusal.message}, status=400)
    notify.subscribe(request.user, **fields)
    return JsonResponse({"ok": True}, status=201)


@login_required
def your_data(request: HttpRequest) -> HttpResponse:
    """The export's button and progress, and the deletion of the account."""
    user: Any = request.user
    if not is_member(user):
        return redirect("signup")  # a guest's practice matches are kept by signing up
    export = Export.objects.filter(user=user).first()
    return render(request, "social/data.html", {"export": export, "form": DeleteForm(user)})


@login_required
@require_POST
def export_start(request: HttpRequest) -> HttpResponse:
    services.require_member_or_404(request.user)
    data.start_export(request.user)
    return redirect("social:data")


@login_required
def export_status(request: HttpRequest, export_id: int) -> HttpResponse:
    """The progress fragment the data page polls (someone else's export: 404)."""
    export = get_object_or_404(Export.objects.defer("archive"), pk=export_id, user=request.user)
    return render(request, "social/data.html#export", {"export": export})


@login_required
def export_download(request: HttpRequest, export_id: int) -> HttpResponse:
    export = get_object_or_404(Export, pk=export_id, user=request.user, status=Export.Status.READY)
    response = HttpResponse(bytes(export.archive), content_type="application/zip")
    stamp = export.created_at.strftime("%Y%m%d-%H%M")
    response["Content-Disposition"] = f'attachment; filename="cardgames-data-{stamp}.zip"'
    return response


@login_required
@require_POST
def delete_account(request: HttpRequest) -> HttpResponse:
    """Delete the account at once, once its password is given again."""
    user: Any = request.user
    services.require_member_or_404(user)
    form = DeleteForm(user, request.POST)
    if not form.is_valid():
        export = Export.objects.filter(user=user).first()
        return render(request, "social/data.html", {"export": export, "form": form}, status=400)
    data.delete_account(user)
    logout(request)
    messages.success(request, _("Your account is deleted. Thank you for playing."))
    return redirect("lobby:index")
