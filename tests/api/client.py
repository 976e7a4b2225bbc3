"""A small Board API client over real HTTP and WebSockets (standard library + websockets)."""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from websockets.sync.client import connect

from tests.conftest import PASSWORD


class Client:
    """One player: signs up over HTTP, then plays a room over the stream."""

    def __init__(self, base: str, username: str) -> None:
        self.base = base
        answer = self.call("POST", "signup", {"username": username, "password": PASSWORD})
        self.token = answer["token"]

    def call(self, method: str, path: str, body: Any = None) -> Any:
        request = urllib.request.Request(
            f"{self.base}/api/v1/{path}",
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Content-Type": "application/json"}
            | ({"Authorization": f"Bearer {self.token}"} if hasattr(self, "token") else {}),
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return json.load(answer)
        except urllib.error.HTTPError as refusal:
            return {"status": refusal.code, **json.load(refusal)}

    def play(
        self,
        room_id: int,
        choose: Callable[[dict[str, Any], str, random.Random], tuple[Any, float]],
        over_http: bool = False,
        seed: int = 0,
    ) -> list[dict[str, Any]]:
        """Play the room to its end from the views the stream sends; return every view seen.

        `choose` is a bot's choice function, fed only this seat's view (as any client could).
        With `over_http`, actions go by POST and their answers count as views too.
        """
        rng = random.Random(seed)
        seen: list[dict[str, Any]] = []
        acted = 0  # the version this client last chose from: older views are stale
        answer_view: dict[str, Any] | None = None
        url = self.base.replace("http", "ws", 1) + f"/ws/api/v1/rooms/{room_id}/?token="
        # max_queue=None: the connection's own thread reads every frame as it comes and keeps
        # it here until `recv` (by default it stops reading after 16, and a player busy with an
        # HTTP call on a loaded machine then fills the server's backlog: closed with 1013).
        with connect(url + self.token, origin=self.base, open_timeout=10, max_queue=None) as ws:
            while True:
                if answer_view is not None:
                    view, answer_view = answer_view, None
                    # The stream goes on meanwhile: read what it sent, as a client must (one
                    # that stops reading is closed by the server once its backlog is too
                    # long), and go on from the newest view.
                    for newer in _waiting(ws):
                        if newer["type"] == "view" and newer["view"]["version"] > view["version"]:
                            view = newer["view"]
                else:
                    message = json.loads(ws.recv(timeout=30))
                    # An error means the table moved on first; its next view follows.
                    if message["type"] != "view":
                        continue
                    view = message["view"]
                if view["version"] <= acted:
                    continue
                seen.append(view)
                if view["status"] == "finished":
                    return seen
                acted = view["version"]
                action, _delay = choose(view, "normal", rng)
                if action is None:
                    continue
                if over_http:
                    answer = self.call("POST", f"rooms/{room_id}/actions", {"action": action})
                    if "error" not in answer:
                        answer_view = answer["view"]
                else:
                    ws.send(json.dumps({"type": "action", "action": action}))


def _waiting(ws: Any) -> list[dict[str, Any]]:
    """The stream's messages that have arrived and not been read yet."""
    out = []
    while True:
        try:
            out.append(json.loads(ws.recv(timeout=0)))
        except TimeoutError:
            return out
