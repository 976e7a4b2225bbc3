from __future__ import annotations

from django.urls import path

from daily import views

app_name = "daily"

urlpatterns = [
    path("daily/", views.page, name="page"),
    path("daily/play/", views.play, name="play"),
    path("daily/board/", views.today_board, name="board"),
    path("daily/<str:day>/replay/<int:room_id>/", views.replay, name="replay"),
]
