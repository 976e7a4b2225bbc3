from django.urls import path

from games.consumers import TableConsumer
from lobby import consumers

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/rooms/<int:room_id>/", consumers.RoomConsumer.as_asgi()),
    path("ws/rooms/<int:room_id>/table/", TableConsumer.as_asgi()),
]
