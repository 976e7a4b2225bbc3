"""This process's live server: one object that holds everything the live tables keep while the
process runs, built at start-up (`TablesConfig.ready`) and reached through `current()`.

Like boardgame.io's `Master(storage, transport)`, the parts are built once and handed in, and
no module of `tables/` keeps state of its own: the rooms' registry with its writer, store and
outbox (tables.live.rooms.Rooms), who owns which room and the forwarded-move inbox
(tables.live.owners.Owners), the readers' languages (tables.languages.Readings), the open
sockets (tables.live.stream.Open), the threads waiting for the loop (tables.play.Waiting), the
replays built last (tables.replay.Replays) and the bot driver with its tasks
(tables.driver.Running), composed by `tables.apps.build_live_server`. Each module asks for
its own part by its class (`part`), so this module, the lowest of the package, imports none
of them (the layers stay one-way).

Where it is kept: on the tables app's config (`apps.get_app_config("tables").live`), the one
place; `install` replaces it (a test builds a fresh one each, so nothing leaks between tests).
"""

from __future__ import annotations

from typing import Any, cast

from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.apps import apps


class LiveServer:
    """The live tables of one process: its parts, one of each kind."""

    def __init__(self, *parts: object) -> None:
        self.parts: dict[type, Any] = {type(part): part for part in parts}
        # Whether other processes can hear this one (`alone`): asked of the channel layer once.
        # A test that plays two processes in one sets it (the in-memory layer carries both).
        self.others: bool | None = None

    def part[T](self, kind: type[T]) -> T:
        """This server's `kind` (handed in when it was built: a missing one is a bug)."""
        return cast(T, self.parts[kind])

    def replace(self, part: object) -> None:
        """Hand in a new part in place of the one of its kind (the rooms of a new loop)."""
        self.parts[type(part)] = part

    def shut(self) -> None:
        """Give back what the parts hold outside Python (connections, threads): the server
        is done with (a test's end, or a process's)."""
        for part in self.parts.values():
            shut = getattr(part, "shut", None)
            if shut is not None:
                shut()


def current() -> LiveServer:
    """This process's live server (built at start-up by the tables app)."""
    # The app registry's own dict (the apps are ready long before any table is served).
    return cast(LiveServer, apps.app_configs["tables"].live)  # type: ignore[attr-defined]


def install(server: LiveServer) -> LiveServer:
    """Make `server` this process's live server (start-up; tests: a fresh one per test)."""
    apps.app_configs["tables"].live = server  # type: ignore[attr-defined]
    return server


def alone() -> bool:
    """Whether no other process can hear this one: asked here, and nowhere else.

    The channel layer says it, once for the server: an in-memory layer (or none) reaches no
    other process, so this one is alone; Redis reaches every process of the deployment. The
    rooms take the answer when they are bound to the server's loop (tables.live.rooms.bind),
    so a move never asks again: the outbox publishes a change to the table's group only when
    others may listen (and then only while another process listens to the room: the relays
    say which, tables.live.rooms.Relay), the renderer draws HTML for API-only rooms only when
    a browser elsewhere may want it, and the owners forward moves only to processes that exist.
    """
    live = current()
    if live.others is None:
        layer = get_channel_layer()
        live.others = not (layer is None or isinstance(layer, InMemoryChannelLayer))
    return not live.others
