from django.urls import path, re_path

from api import views

app_name = "api"

urlpatterns = [
    path("signup", views.signup, name="signup"),
    path("token", views.token, name="token"),
    path("schema", views.schema, name="schema"),
    path("rooms", views.rooms, name="rooms"),
    path("rooms/<int:room_id>", views.room, name="room"),
    path("rooms/<int:room_id>/join", views.join, name="join"),
    path("rooms/<int:room_id>/leave", views.leave, name="leave"),
    path("rooms/<int:room_id>/bots", views.bots, name="bots"),
    path("rooms/<int:room_id>/remove", views.remove, name="remove"),
    path("rooms/<int:room_id>/close", views.close, name="close"),
    path("rooms/<int:room_id>/start", views.start, name="start"),
    path("rooms/<int:room_id>/view", views.view, name="view"),
    path("rooms/<int:room_id>/actions", views.actions, name="actions"),
    path("rooms/<int:room_id>/scores", views.scores, name="scores"),
    # Anything else under the API answers JSON too, never the site's HTML 404 page.
    re_path(r"^(?P<rest>.*)$", views.not_found),
]
