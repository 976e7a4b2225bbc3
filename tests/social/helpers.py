"""The social socket in tests: connect as someone, read frames until one holds a text."""

from __future__ import annotations

from channels.testing import WebsocketCommunicator

from cardgames.asgi import application
from tests.tables.helpers import ORIGIN


async def social_socket(user=None, query: str = "") -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, f"/ws/social/?{query}", headers=ORIGIN)
    if user is not None:
        communicator.scope["user"] = user
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


async def frame_with(socket: WebsocketCommunicator, text: str, timeout: float = 5) -> str:
    while True:
        frame = await socket.receive_from(timeout=timeout)
        if text in frame:
            return frame
