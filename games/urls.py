from django.urls import path

from games import views

app_name = "games"

urlpatterns = [
    path("how-to-play/allegra/", views.how_to_play_allegra, name="how_to_play_allegra"),
]
