"""The signed-in user's own page: his open rooms and his Board API tokens (made and revoked)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from api.models import ApiToken
from lobby.models import Room
from tables.guests import is_guest
from tables.live.stream import ascii_int


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    user: Any = request.user  # signed in (login_required), never the anonymous user
    if is_guest(user):
        return redirect("signup")  # a guest has no account to manage, nor API tokens
    tokens = ApiToken.objects.filter(user=user)
    new_token = None
    if request.method == "POST" and "revoke" in request.POST:
        # An id is ASCII digits; anything else names no token of his (404, never a 500).
        token_id = ascii_int(request.POST["revoke"], 1, 2**53)
        get_object_or_404(tokens, pk=token_id or 0).delete()
        return redirect("profile")
    if request.method == "POST":
        name = request.POST.get("token_name", "").strip()[:60] or "API token"
        # Its value is shown on this answer only: the database keeps just its hash.
        _token, new_token = ApiToken.objects.issue(user, name)
    rooms = (
        Room.objects.filter(seat_set__user=user)
        .exclude(status=Room.Status.CLOSED)
        .select_related("host")
        .distinct()
        .order_by("-created_at")[:50]
    )
    context = {"rooms": rooms, "tokens": tokens, "new_token": new_token}
    return render(request, "registration/profile.html", context)
