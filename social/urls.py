from django.urls import path

from social import views

app_name = "social"

urlpatterns = [
    path("friends/", views.friends, name="friends"),
    path("friends/ask/", views.ask, name="ask"),
    path("friends/<str:username>/<slug:action>/", views.relate, name="relate"),
    path("invitations/", views.invitation_list, name="invitations"),
    path(
        "invitations/<int:invitation_id>/<slug:answer>/",
        views.invitation_answer,
        name="invitation_answer",
    ),
    path("rooms/<int:room_id>/invite/", views.invite, name="invite"),
    path("notifications/", views.notifications, name="notifications"),
    path("notifications/read/", views.mark_read, name="read"),
    path("notifications/settings/", views.preferences, name="preferences"),
    path("account/data/", views.your_data, name="data"),
    path("account/data/export/", views.export_start, name="export"),
    path("account/data/export/<int:export_id>/", views.export_status, name="export_status"),
    path(
        "account/data/export/<int:export_id>/download/",
        views.export_download,
        name="export_download",
    ),
    path("account/delete/", views.delete_account, name="delete"),
    path("push/subscribe/", views.push_subscribe, name="push_subscribe"),
]
