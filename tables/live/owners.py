"""One owner process per live room: moves that reach another process are forwarded to it.

The owner of a playing match is the process holding its bot driver's lease (`tables.driver`):
the driver reads every playing match's (room, driver, lease end) once a second and hands them
to `note`, so knowing the owner costs no query per move. A move for a room owned by another
process whose lease is still running goes to that process's inbox on the channel layer
(`forward`); the owner applies it through its room actor, exactly as one of its own, and
answers with the new version (and the seat's view, when asked) or the refusal, which the
sender raises as its own (`Refused`), so every transport answers as for a local move. No
answer in `settings.MOVE_FORWARD_TIMEOUT` seconds: the move is refused as `unavailable`.

Without an owner (none yet, or its lease ran out: it died) or with one process (the in-memory
layer), moves are applied where they arrive; the fence on the match row's version
(`tables.live.store`) keeps two writers correct either way, only slower.

The owners know nothing of the rooms: the live server is built with the registry's function
that applies a forwarded move handed in (`Owners(apply=tables.live.rooms.apply_here)`, in
tables.apps.build_live_server), and the driver that reads the leases hands the registry the
rooms whose owner changed (`note` returns them).
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import secrets
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_noop

from games.engine import Action, IllegalAction, Sentence, ngettext, term
from tables import server
from tables.errors import PlayError
from tables.live import store
from tables.live.room import Check, Entry, Holder
from tables.live.store import in_db_thread

# How this process applies a move forwarded to it (tables.live.rooms.apply_here).
Apply = Callable[[int, int, Action, bool, str, Check | None], Awaitable[Entry]]

log = logging.getLogger(__name__)

# This server process, as its presence rows, its bot driver's leases and its inbox name it.
PROCESS = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"[:64]

# The group every process's inbox is in: a stopping process tells the others which rooms it
# handed over, so that one of them claims each at once (`released`).
EVERYONE = "owners.everyone"


class Owners:
    """What this process knows of the rooms' owners: the live server's part (tables.server),
    handed the registry's `apply` (how a move forwarded here is applied) when it is built."""

    def __init__(self, apply: Apply) -> None:
        self.apply = apply
        # room id -> (owning process, its lease's end), as the driver last read them. Replaced
        # whole (never changed in place), so that a reader in the loop never sees half of one.
        self.owners: dict[int, tuple[str, datetime | None]] = {}
        # Whether this process runs a bot driver (tables.driver.ensure_started sets it).
        self.drives_here = False
        # Whether this process is stopping (cardgames.lifecycle): it takes no room any more;
        # and whether it has let its rooms go (it applies no forwarded move after that).
        self.leaving = False
        self.handed_over = False
        # What this process does when another hands rooms over (the driver claims them).
        self.on_released: list[Callable[[list[int]], None]] = []
        self.inbox: _Inbox | None = None  # this process's forwarded-move inbox, once served


def here() -> Owners:
    """This process's knowledge of the owners (the live server's)."""
    return server.current().part(Owners)


def leaving() -> bool:
    """Whether this process is stopping: it takes no room any more (cardgames.lifecycle)."""
    return here().leaving


def leave() -> None:
    """This process stops: it takes no room from now on."""
    here().leaving = True


def when_released(callback: Callable[[list[int]], None]) -> None:
    """Call `callback(room_ids)` in the loop when another process hands these rooms over."""
    state = here()
    if callback not in state.on_released:
        state.on_released.append(callback)


def me() -> str:
    return PROCESS


def inbox(process: str) -> str:
    """The channel a process receives forwarded moves (and answers to its own) on."""
    return "owners.inbox." + re.sub(r"[^A-Za-z0-9_.-]", "_", process)


def reaches_others() -> bool:
    """Whether the channel layer carries messages to other processes (Redis, not memory)."""
    return not server.alone()


def note(rows: Iterable[tuple[int, str, datetime | None]]) -> list[int]:
    """Keep each playing room's lease holder (the driver's read, in a database thread).

    Returns the rooms whose live room here must go: one this process holds for a room owned
    by another process goes out of date with that process's moves, and one for a room this
    process has just taken over must see every move its old owner wrote (both are rebuilt
    from the database on their next use).
    """
    state = here()
    now = timezone.now()
    old, new = state.owners, {room: (driver, until) for room, driver, until in rows}
    state.owners = new
    mine = me()
    rebuild: list[int] = []
    if not reaches_others():
        return rebuild  # one process: every room is this one's
    for room, (driver, until) in new.items():
        running = bool(driver) and until is not None and until > now
        if not running:
            continue
        if driver != mine or old.get(room, ("", None))[0] != mine:
            rebuild.append(room)
    return rebuild


def first_lease() -> dict[str, Any]:
    """A new match's lease fields: held by this process when it drives (`Match.create`).

    The process that starts a room is the one the proxy sends that room's requests to
    (affinity by room, docs/operations.md); owning the match from its first move keeps the
    owner and the proxy's choice the same, instead of whichever driver claims first.
    """
    state = here()
    if not state.drives_here or state.leaving:
        return {}
    return {
        "driver": me(),
        "driver_until": timezone.now() + timedelta(seconds=settings.DRIVER_LEASE),
    }


def owner(room_id: int) -> str | None:
    """The process holding the room's lease now, if any (this one included)."""
    row = here().owners.get(room_id)
    if row is None or not row[0] or row[1] is None or row[1] <= timezone.now():
        return None
    return row[0]


def elsewhere(room_id: int) -> str | None:
    """The room's owner when its moves must go there: another process, its lease running."""
    process = owner(room_id)
    if process is None or process == me() or not reaches_others():
        return None
    return process


async def elsewhere_now(room_id: int) -> str | None:
    """`elsewhere`, with what the last read cannot tell read again from the database first.

    The owner renews its lease every second and this process reads the leases every second,
    so the lease end last read can pass while the owner is alive and has renewed it: the owner
    is only known to be gone once the database says so. And a match started by another process
    in the last second is not in the last read at all. One query for a move in either case
    (the answer is kept), never on the common path: a room owned here or elsewhere, as read.
    """
    process = elsewhere(room_id)
    if process is not None or not reaches_others():
        return process
    state = here()
    row = state.owners.get(room_id)
    if row is not None and (not row[0] or owner(room_id) == me()):
        return None  # nobody holds it (applied here, the fence keeps it right), or this one
    fresh = await in_db_thread(store.lease_of, room_id)
    state.owners = {**state.owners, room_id: fresh}  # replaced whole, as `note` does
    return elsewhere(room_id)


# --------------------------------------------------------------------------- the inbox


@dataclass
class _Inbox:
    process: str
    name: str
    loop: asyncio.AbstractEventLoop
    task: asyncio.Task[None] | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    waiting: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    # request id -> (the process it went to, its room): what a handover fails at once
    sent_to: dict[str, tuple[str, int]] = field(default_factory=dict)
    applying: set[asyncio.Task[None]] = field(default_factory=set)


def ensure_serving(process: str | None = None) -> _Inbox:
    """Serve this process's inbox in the running loop, once (cheap when it already runs).

    `process` names another inbox to serve in this loop (tests play both processes).
    """
    state = here()
    loop = asyncio.get_running_loop()
    box = state.inbox
    mine = process in (None, me())
    if mine and box is not None and box.loop is loop and box.task and not box.task.done():
        return box
    process = process or me()
    served = _Inbox(process=process, name=inbox(process), loop=loop)
    served.task = loop.create_task(_serve(served), name=f"inbox {served.name}")
    if process == me():
        state.inbox = served
    return served


async def _serve(box: _Inbox) -> None:
    layer = get_channel_layer()
    # A pub/sub layer subscribes on the first receive: the inbox is ready once its own ping
    # comes back, and senders wait for that before they expect an answer here.
    pinger = asyncio.create_task(_ping(layer, box))
    try:
        while True:
            try:
                message = await layer.receive(box.name)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer may be away for a moment; never let the inbox die
                log.exception("owners: receiving on %s failed", box.name)
                await asyncio.sleep(0.5)
                continue
            kind = message.get("type")
            if kind == "owners.move":
                # Each move in its own task (a move waits for its write), held until done.
                task = asyncio.create_task(_apply(layer, box.process, message))
                box.applying.add(task)
                task.add_done_callback(box.applying.discard)
            elif kind == "owners.answer":
                future = box.waiting.get(message.get("id", ""))
                if future is not None and not future.done():
                    future.set_result(message)
            elif kind == "owners.ping":
                box.ready.set()
            elif kind == "owners.released" and message.get("by") != box.process:
                _forget_owners(message.get("rooms", []), message.get("by", ""), box)
    finally:
        pinger.cancel()


async def _ping(layer: Any, box: _Inbox) -> None:
    while not box.ready.is_set():
        try:
            await layer.send(box.name, {"type": "owners.ping"})
        except Exception:
            log.exception("owners: pinging %s failed", box.name)
        try:
            await asyncio.wait_for(box.ready.wait(), 0.2)
        except TimeoutError:
            continue
    if box.process == me():
        # Once the layer knows the inbox (a pub/sub layer: after its first receive).
        try:
            await layer.group_add(EVERYONE, box.name)
        except Exception:
            log.exception("owners: joining %s failed", EVERYONE)


async def _apply(layer: Any, process: str, message: dict[str, Any]) -> None:
    """Apply a move forwarded here, as one of this process's own, and answer it."""
    answer: dict[str, Any] = {"type": "owners.answer", "id": message["id"]}
    check = message.get("check")
    seat = message["seat"]
    state = here()
    if state.handed_over:
        answer["moved"] = True  # not applied: the sender takes it to the room's door again
        await _answer(layer, message, answer)
        return
    try:
        # Applied here whoever owns the room now: a forwarded move is never forwarded again.
        entry = await state.apply(
            message["room"],
            seat,
            message["action"],
            message["by_bot"],
            message["driver"] or process,  # the log says who applied it
            Holder.of(check) if check is not None else None,
        )
        answer.update(version=entry.version, events=encode(entry.events))
        if message.get("view"):
            answer["view"] = entry.table.view(seat)
    except IllegalAction as refusal:
        answer["refused"] = {
            "code": refusal.code,
            "template": refusal.template,
            "params": encode(refusal.params),
            "message": refusal.message,
            "status": refusal.status if isinstance(refusal, PlayError) else 409,
        }
    except Exception:
        log.exception("owners: a forwarded move to room %s failed", message.get("room"))
        answer["refused"] = unavailable().data()
    await _answer(layer, message, answer)


async def _answer(layer: Any, message: dict[str, Any], answer: dict[str, Any]) -> None:
    try:
        await layer.send(message["reply"], answer)
    except Exception:
        log.exception("owners: answering %s failed", message["reply"])


def _forget_owners(room_ids: list[int], by: str = "", box: _Inbox | None = None) -> None:
    """Another process handed these rooms over: nobody owns them until a driver claims them.

    A move forwarded to it for one of them and not answered yet was not applied there (it
    answered every move it applied before it let go, and applies none after): it is sent
    back to its sender's door at once (`Moved`), instead of waiting out the timeout.
    """
    if not room_ids:
        return
    state = here()
    state.owners = {**state.owners, **dict.fromkeys(room_ids, ("", None))}
    rooms = set(room_ids)
    if box is not None:
        for request, (process, room) in list(box.sent_to.items()):
            future = box.waiting.get(request)
            if process == by and room in rooms and future is not None and not future.done():
                future.set_result({"moved": True})
    for callback in list(state.on_released):
        try:
            callback(room_ids)
        except Exception:
            log.exception("owners: a callback for released rooms failed")


def forget(room_id: int) -> None:
    """The room's owner answered that it no longer has it: nobody owns it, as far as known."""
    _forget_owners([room_id])


async def answered(timeout: float) -> bool:
    """Wait until every move forwarded here has been answered (a stopping process, before it
    lets its rooms go); False after `timeout` seconds."""
    box = here().inbox
    if box is None:
        return True
    deadline = asyncio.get_running_loop().time() + timeout
    while box.applying and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    return not box.applying


def let_go() -> None:
    """From now on a move forwarded here is answered `moved` without being applied: its sender
    takes it to the room's door again (a stopping process, once `answered`)."""
    here().handed_over = True


async def released(room_ids: list[int]) -> None:
    """Tell every other process that this one handed `room_ids` over (their leases are free)."""
    if not room_ids or not reaches_others():
        return
    message = {"type": "owners.released", "rooms": room_ids, "by": me()}
    await get_channel_layer().group_send(EVERYONE, message)


# --------------------------------------------------------------------------- the sender


class Moved(Exception):
    """The owner a move was forwarded to let the room go without applying it: take the move
    to the room's door again (tables.live.rooms.act)."""


class Refused(PlayError):
    """The owner's refusal of a forwarded move, raised here as if it had been refused here."""

    def __init__(
        self, code: str, template: str, params: dict[str, Any], status: int, message: str = ""
    ) -> None:
        # The owner's English sentence as it was; the template and params word it anew.
        message = message or (template % params if params else template)
        Exception.__init__(self, message or code)
        self.code, self.template, self.params, self.status = code, template, params, status
        self.message = message or code.replace("_", " ").capitalize() + "."

    def data(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "template": self.template,
            "params": encode(self.params),
            "message": self.message,
            "status": self.status,
        }


def unavailable() -> Refused:
    return Refused(
        "unavailable",
        gettext_noop("The table did not answer in time; look at it again and retry."),
        {},
        503,
    )


@dataclass
class Answer:
    """An accepted forwarded move: the version it made, its events, the seat's view if asked."""

    version: int
    events: list[dict[str, Any]]
    view: dict[str, Any] | None


async def forward(
    process: str,
    room_id: int,
    seat: int,
    action: Action,
    by_bot: bool = False,
    driver: str = "",
    check: Holder | None = None,
    view: bool = True,
    reply: _Inbox | None = None,
) -> Answer:
    """Send a move to the room's owner `process`; return its answer or raise its refusal.

    `reply` is the inbox the answer comes to (this process's own unless a test plays two).
    """
    box = reply or ensure_serving()
    timeout = settings.MOVE_FORWARD_TIMEOUT
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    request = secrets.token_hex(8)
    future = loop.create_future()
    box.waiting[request] = future
    box.sent_to[request] = (process, room_id)
    try:
        await asyncio.wait_for(box.ready.wait(), timeout)
        await get_channel_layer().send(
            inbox(process),
            {
                "type": "owners.move",
                "id": request,
                "reply": box.name,
                "room": room_id,
                "seat": seat,
                "action": action,
                "by_bot": by_bot,
                "driver": driver,
                "check": check.data() if check is not None else None,
                "view": view,
            },
        )
        answer = await asyncio.wait_for(future, max(deadline - loop.time(), 0.001))
    except TimeoutError:
        raise unavailable() from None
    except Exception:
        log.exception("owners: forwarding a move to %s failed", process)
        raise unavailable() from None
    finally:
        box.waiting.pop(request, None)
        box.sent_to.pop(request, None)
    if answer.get("moved"):
        raise Moved(room_id)
    refused = answer.get("refused")
    if refused is not None:
        raise Refused(
            refused["code"],
            refused["template"],
            decode(refused["params"]),
            refused["status"],
            refused["message"],
        )
    return Answer(
        version=answer["version"], events=decode(answer["events"]), view=answer.get("view")
    )


# --------------------------------------------------------------------------- on the wire


def encode(value: Any) -> Any:
    """`value` as plain data, a Sentence (nested in params and events) kept as its parts."""
    if isinstance(value, Sentence):
        return {
            "__sentence__": value.template,
            "params": encode(value.params),
            "plural": value.plural,
            "amount": value.amount,
        } | ({"context": value.context} if value.context else {})
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    """The reverse of `encode`: the Sentences again, wordable in the reader's language."""
    if isinstance(value, dict):
        if "__sentence__" in value:
            params = decode(value["params"])
            if value.get("plural") is not None:
                return ngettext(value["__sentence__"], value["plural"], value["amount"], **params)
            if value.get("context"):
                return term(value["context"], value["__sentence__"])
            return Sentence(value["__sentence__"], **params)
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value
