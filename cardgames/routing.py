from django.urls import path, re_path

from api.consumers import ApiStreamConsumer
from chat.sockets import RoomSocket, TableSocket
from lobby import consumers
from tables.sockets import NotFoundConsumer

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/rooms/<int:room_id>/", RoomSocket.as_asgi()),
    path("ws/rooms/<int:room_id>/table/", TableSocket.as_asgi()),
    path("ws/api/v1/rooms/<int:room_id>/", ApiStreamConsumer.as_asgi()),
    # Last: any other path is closed with 4404 (URLRouter would raise, a 500 with a traceback).
    re_path(r"", NotFoundConsumer.as_asgi()),
]
