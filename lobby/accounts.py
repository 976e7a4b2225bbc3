"""Account pages on top of Django's auth: sign up and log in (both rate-limited), profile."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from lobby import guests, locale, ratelimit
from lobby.forms import SignupForm
from tables.languages import supported


def _next_url(request: HttpRequest) -> str | None:
    url = request.POST.get("next") or request.GET.get("next")
    if url and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return None


def signup(request: HttpRequest) -> HttpResponse:
    # A guest signs up as himself: the same user, so his practice matches stay his.
    guest = None
    if guests.is_guest(request.user):
        # The user row itself, not the request's lazy wrapper, for the form to save.
        guest = get_user_model().objects.filter(pk=int(request.user.pk or 0)).first()
    if request.user.is_authenticated and guest is None:
        return redirect(_next_url(request) or "lobby:index")
    form = SignupForm(request.POST or None, instance=guest, initial={"username": ""})
    status = 200
    if request.method == "POST":
        address = ratelimit.client_address(request)
        # Only accounts made count: a visitor who mistypes a password five times may go on.
        if ratelimit.exhausted("signup", address, settings.SIGNUPS_PER_ADDRESS):
            form.add_error(
                None,
                _(
                    "Too many accounts were made from your address recently. "
                    "Please try again later."
                ),
            )
            status = 429
        elif form.is_valid():
            user = form.save()
            ratelimit.record("signup", address, settings.SIGNUP_WINDOW)
            if guest is not None:
                guests.claim(request, user)
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(_next_url(request) or "lobby:index")
        else:
            status = 400
    context = {"form": form, "next": _next_url(request) or ""}
    return render(request, "registration/signup.html", context, status=status)


if TYPE_CHECKING:  # what the mixin is mixed into
    _LoginForm = AuthenticationForm
else:
    _LoginForm = object


class ThrottledLoginMixin(_LoginForm):
    """For an AuthenticationForm: refuse tries while the name or address must wait.

    While they must, the password is not checked at all, so a right and a wrong one get the
    same answer and the guesser learns nothing.
    """

    retry_after = 0

    def clean(self) -> dict[str, Any]:
        data = self.cleaned_data
        # The username field has stripped and NFKC-normalised the name, as authenticate() sees it.
        username, password = data.get("username"), data.get("password")
        if username is None or not password:
            return super().clean()
        assert self.request is not None  # the login views always pass it
        address = ratelimit.client_address(self.request)
        self.retry_after = ratelimit.login_wait(username, address)
        if self.retry_after:
            raise ValidationError(
                ngettext(
                    "Too many failed logins for this username or from your address. "
                    "Please wait %(seconds)s second and try again.",
                    "Too many failed logins for this username or from your address. "
                    "Please wait %(seconds)s seconds and try again.",
                    self.retry_after,
                ),
                code="throttled",
                params={"seconds": self.retry_after},
            )
        try:
            data = super().clean()
        except ValidationError as refusal:
            if refusal.code == "invalid_login":
                ratelimit.login_failed(username, address)
                if _banned(username, password):
                    # The right password of a banned account: say so, not "wrong password".
                    raise ValidationError(
                        "This account was banned by a moderator; it cannot log in any more.",
                        code="banned",
                    ) from None
            raise
        ratelimit.login_succeeded(username)
        return data


def _banned(username: str, password: str) -> bool:
    """Whether `username` is a banned (inactive) account and `password` is its own."""
    user = get_user_model().objects.filter(username=username, is_active=False).first()
    return user is not None and user.check_password(password)


class ThrottledAuthenticationForm(ThrottledLoginMixin, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(ThrottledLoginMixin, AdminAuthenticationForm):
    pass


def _throttled(response: HttpResponse) -> HttpResponse:
    """Turn a login page refusing a throttled try into a 429 that says when to come back."""
    form = (getattr(response, "context_data", None) or {}).get("form")
    if form is not None and form.has_error(NON_FIELD_ERRORS, "throttled"):
        response.status_code = 429
        response["Retry-After"] = str(form.retry_after)
    return response


class RateLimitedLoginView(auth_views.LoginView):
    """Django's login with failed tries slowed down per username and per address."""

    authentication_form = ThrottledAuthenticationForm

    def form_invalid(self, form):  # noqa: ANN001, ANN201
        response = self.render_to_response(self.get_context_data(form=form), status=400)
        return _throttled(response)


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's own login page, throttled like the site's."""
    return _throttled(admin.site.login(request))


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Switch the site's language (kept in the session and the profile) and go back."""
    code = supported(request.POST.get("language"))
    if code:
        locale.choose(request, code)
    return redirect(_next_url(request) or "lobby:index")
