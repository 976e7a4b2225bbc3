from django.urls import path

from lobby import history_views, table_views, views

app_name = "lobby"

urlpatterns = [
    path("", views.index, name="index"),
    path("rooms/new/", views.create_room, name="create"),
    path("rooms/<int:room_id>/", views.room_detail, name="room"),
    path("rooms/<int:room_id>/join/", views.join, name="join"),
    path("rooms/<int:room_id>/leave/", views.leave, name="leave"),
    path("rooms/<int:room_id>/start/", views.start, name="start"),
    path("rooms/<int:room_id>/bots/", views.add_bots, name="bots"),
    path("rooms/<int:room_id>/remove/", views.remove, name="remove"),
    path("rooms/<int:room_id>/close/", views.close, name="close"),
    path("invite/<str:code>/", views.invite, name="invite"),
    path("how-to-play/<slug:game>/", table_views.how_to_play, name="how_to_play"),
    # The older name of Allegra's page, which templates may still use.
    path(
        "how-to-play/allegra/",
        table_views.how_to_play,
        {"game": "allegra"},
        name="how_to_play_allegra",
    ),
    path("rooms/<int:room_id>/sheet/", history_views.sheet, name="sheet"),
    path("rooms/<int:room_id>/rematch/", history_views.rematch, name="rematch"),
    path("players/<str:username>/", history_views.player, name="player"),
    path("leaderboard/", history_views.leaderboard, name="leaderboard"),
    path("leaderboard/<slug:game>/", history_views.leaderboard, name="leaderboard_game"),
]
