from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from lobby import accounts

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
    path("accounts/profile/", accounts.profile, name="profile"),
    path("admin/", admin.site.urls),
    path("", include("lobby.urls")),
]
