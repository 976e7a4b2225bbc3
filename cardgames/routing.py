"""The site's WebSocket routes, and the sockets they serve: the lobby's consumers with the chat
composed in (chat.sockets.ChatSocket), since the chat sits above the lobby's layer."""

from django.urls import path, re_path

from api.consumers import ApiStreamConsumer
from chat.sockets import ChatSocket
from lobby import consumers
from lobby.consumers import RoomConsumer
from lobby.table_consumers import TableConsumer
from social.consumers import SocialConsumer
from tables.live.stream import NotFoundConsumer
from tournaments.consumers import TournamentConsumer


class RoomSocket(ChatSocket, RoomConsumer):
    """A room page's socket, with its chat."""


class TableSocket(ChatSocket, TableConsumer):
    """A table's socket (lobby/table_consumers.py), with its chat."""


websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/rooms/<int:room_id>/", RoomSocket.as_asgi()),
    path("ws/rooms/<int:room_id>/table/", TableSocket.as_asgi()),
    path("ws/api/v1/rooms/<int:room_id>/", ApiStreamConsumer.as_asgi()),
    path("ws/tournaments/<int:tournament_id>/", TournamentConsumer.as_asgi()),
    path("ws/social/", SocialConsumer.as_asgi()),
    # Last: any other path is closed with 4404 (URLRouter would raise, a 500 with a traceback).
    re_path(r"", NotFoundConsumer.as_asgi()),
]
