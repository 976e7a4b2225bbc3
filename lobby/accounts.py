"""Account pages on top of Django's auth: sign up, rate-limited log in, profile."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from lobby import ratelimit
from lobby.forms import SignupForm
from lobby.models import Room


def _next_url(request: HttpRequest) -> str | None:
    url = request.POST.get("next") or request.GET.get("next")
    if url and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return None


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(_next_url(request) or "lobby:index")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_next_url(request) or "lobby:index")
    status = 400 if request.method == "POST" else 200
    context = {"form": form, "next": _next_url(request) or ""}
    return render(request, "registration/signup.html", context, status=status)


class RateLimitedLoginView(auth_views.LoginView):
    """Django's login, refusing further tries once a username or address failed too often."""

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        username = request.POST.get("username", "")
        if ratelimit.is_blocked(username, _client_address(request)):
            form = self.get_form()
            form.add_error(None, "Too many failed logins. Please wait a few minutes and try again.")
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):  # noqa: ANN001, ANN201
        username = self.request.POST.get("username", "")
        ratelimit.record_failure(username, _client_address(self.request))
        return self.render_to_response(self.get_context_data(form=form), status=400)

    def form_valid(self, form):  # noqa: ANN001, ANN201
        ratelimit.reset(form.get_user().get_username(), _client_address(self.request))
        return super().form_valid(form)


def _client_address(request: HttpRequest) -> str:
    # Behind a proxy, set TRUSTED_PROXY so X-Forwarded-For's last hop is taken.
    if getattr(settings, "TRUSTED_PROXY", False):
        forwarded = request.headers.get("X-Forwarded-For", "")
        if forwarded:
            return forwarded.split(",")[-1].strip()
    return request.META.get("REMOTE_ADDR", "") or "unknown"


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    rooms = (
        Room.objects.filter(seat_set__user=request.user)
        .exclude(status=Room.Status.CLOSED)
        .select_related("host")
        .distinct()
        .order_by("-created_at")[:50]
    )
    return render(request, "registration/profile.html", {"rooms": rooms})
