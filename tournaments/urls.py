from __future__ import annotations

from django.urls import path

from tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("tournaments/", views.index, name="index"),
    path("tournaments/<int:tournament_id>/", views.page, name="page"),
    path("tournaments/<int:tournament_id>/join/", views.join, name="join"),
    path("tournaments/<int:tournament_id>/withdraw/", views.withdraw, name="withdraw"),
    # Beside a table's page: a finished tournament table's page asks where its event is.
    path("rooms/<int:room_id>/event/", views.event_of_room, name="event_of_room"),
]
