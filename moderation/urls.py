from django.urls import path

from moderation import views

app_name = "moderation"

urlpatterns = [
    path("rooms/<int:room_id>/report/<int:user_id>/", views.report, name="report"),
    path("moderation/rooms/<int:room_id>/close/", views.close_room, name="close_room"),
    path("moderation/rooms/<int:room_id>/ban/<int:user_id>/", views.ban, name="ban"),
    path("moderation/rooms/<int:room_id>/mute/<int:user_id>/", views.mute, name="mute"),
]
