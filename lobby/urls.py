from django.urls import path

from lobby import history_views, replay_views, table_views, verify_views, views

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
    path("play/<slug:game>/", views.play_now, name="play_now"),
    path("practise/<slug:game>/", views.practise, name="practise"),
    # Codes are url-safe base64 (secrets.token_urlsafe): anything else, a NUL too, is a plain 404.
    path("invite/<slug:code>/", views.invite, name="invite"),
    path("how-to-play/<slug:game>/", table_views.how_to_play, name="how_to_play"),
    path("rooms/<int:room_id>/sheet/", history_views.sheet, name="sheet"),
    # No trailing slash: beside the table's page, so the parts' relative links work the same.
    path("rooms/<int:room_id>/replay", replay_views.replay_page, name="replay"),
    path("rooms/<int:room_id>/rematch/", history_views.rematch, name="rematch"),
    path("players/<str:username>/", history_views.player, name="player"),
    path("leaderboard/", history_views.leaderboard, name="leaderboard"),
    path("verify/", verify_views.verify, name="verify"),
    path("leaderboard/<slug:game>/", history_views.leaderboard, name="leaderboard_game"),
]
