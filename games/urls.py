from django.urls import path

from games import history_views, views

app_name = "games"

urlpatterns = [
    path("how-to-play/allegra/", views.how_to_play_allegra, name="how_to_play_allegra"),
    path("rooms/<int:room_id>/sheet/", history_views.sheet, name="sheet"),
    path("rooms/<int:room_id>/rematch/", history_views.rematch, name="rematch"),
    path("players/<str:username>/", history_views.player, name="player"),
    path("leaderboard/", history_views.leaderboard, name="leaderboard"),
    path("leaderboard/<slug:game>/", history_views.leaderboard, name="leaderboard_game"),
]
