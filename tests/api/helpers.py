"""An API client for tests: Django's test client with a Bearer token, and the stream."""

from __future__ import annotations

import json
from typing import Any

from channels.testing import WebsocketCommunicator
from django.test import Client

from api.models import ApiToken
from cardgames.asgi import application

ORIGIN = [(b"origin", b"http://localhost"), (b"host", b"localhost")]


class Api:
    """One API caller: `api.get("rooms")`, `api.post("rooms", {...})` -> response."""

    def __init__(self, user: Any = None, token: str | None = None) -> None:
        self.client = Client()
        self.user = user
        if token is None and user is not None:
            _, token = ApiToken.objects.issue(user, "tests")
        self.token = token

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def get(self, path: str) -> Any:
        return self.client.get(f"/api/v1/{path}", headers=self._headers())

    def post(self, path: str, body: Any = None, raw: str | None = None) -> Any:
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return self.client.post(
            f"/api/v1/{path}", data, content_type="application/json", headers=self._headers()
        )


def error_code(response: Any) -> str:
    assert response["Content-Type"] == "application/json", response.content[:200]
    return response.json()["error"]["code"]


async def stream(room_id: int, token: str) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(
        application, f"/ws/api/v1/rooms/{room_id}/?token={token}", headers=ORIGIN
    )
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


async def next_of(communicator: WebsocketCommunicator, kind: str) -> dict[str, Any]:
    """Return the next message of `kind` ("view", "room", "error"), skipping others."""
    while True:
        message = json.loads(await communicator.receive_from(timeout=5))
        if message["type"] == kind:
            return message
