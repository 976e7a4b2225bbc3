from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path

from api import profile
from cardgames import apierrors, install
from lobby import accounts, views

# The admin's login takes the same throttle as the site's, whichever route reaches it.
admin.site.login_form = accounts.ThrottledAdminAuthenticationForm

urlpatterns = [
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login/", accounts.RateLimitedLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("accounts/profile/", profile.profile, name="profile"),
    path("language/", accounts.set_language, name="set_language"),
    # Before the admin's own URLs, so that a throttled admin login answers 429.
    path("admin/login/", accounts.admin_login),
    path("admin/", admin.site.urls),
    path("favicon.ico", views.favicon),
    # At the root: a service worker controls only the pages under its own path.
    path("manifest.webmanifest", install.manifest, name="manifest"),
    path("sw.js", install.service_worker, name="service_worker"),
    path("offline/", install.offline, name="offline"),
    path("offline/<str:language>/", install.offline, name="offline_in"),
    path("api/v1/", include("api.urls")),
    # Any other path under /api/ (another version, none) answers the API's JSON 404 too.
    re_path(r"^api(?:/.*)?$", apierrors.not_found),
    path("", include("daily.urls")),
    path("", include("chat.urls")),
    path("", include("moderation.urls")),
    path("", include("tournaments.urls")),
    path("", include("social.urls")),
    path("", include("lobby.urls")),
]

# Friendly pages, and for htmx requests a sentence in the page's error line instead.
handler403 = "lobby.views.permission_denied"
handler404 = "lobby.views.page_not_found"
