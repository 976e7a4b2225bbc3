"""Deliveries of room changes: one ordered route to this process's listeners, one publish for
the others, one relay for what the others publish, and the `Gate` every socket keeps its
versions with.

A change (tables.live.room.Delivery) reaches a listener of this process by `deliver` (awaited
in the order of the commits) or, when nothing is queued before it and it has no seat's own
part, by `deliver_now` in a plain call (a Board API stream writes its seat's text at once).
When the channel layer reaches other processes (Redis), each change is also published once to
the room's group, its room and its seats' own parts with it, tagged with this process's origin.
The publishes go out in order too, but after the sockets here, and a socket here never waits
for one (`Outbox.publishing`). No socket is in a room's group: each process's `Relay` is, and
hands what other processes published to the room's listeners here, once per process. Without a
server loop (a management command, a plain test) a change is delivered and waited for.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from tables import server
from tables.live.render import table_group
from tables.live.room import Delivery, Listener

log = logging.getLogger(__name__)
# This process, as the changes it publishes to other processes name it.
ORIGIN = secrets.token_hex(8)


def from_here(event: dict[str, Any]) -> bool:
    """Whether a group message is a change this process already delivered to its sockets."""
    return event.get("origin") == ORIGIN


class Outbox:
    """The deliveries of one server loop, in the order they were published.

    One published in the loop while nothing is queued goes out at once (usually without
    waiting for anything: every socket's frame is written right away); the others, and those
    published from a thread, queue for one sender task, which ends when the queue is empty
    (no task outlives its deliveries). A delivery that had to wait for something keeps the
    ones after it waiting (`order`), so that they still go out in order.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, alone: bool = True) -> None:
        self.loop = loop
        self.alone = alone  # no other process hears this one: nothing is published
        self.queue: collections.deque[tuple[Delivery, list[Listener], bool]] = collections.deque()
        self.sender: asyncio.Task[None] | None = None
        self.order = asyncio.Lock()
        self.queued = 0  # deliveries not sent yet (one being sent included)
        self.at_once: set[asyncio.Task[None]] = set()
        # What the other processes are still to hear of, in order, and the one task that
        # publishes it (none while there is nothing to publish).
        self.unpublished: collections.deque[Delivery] = collections.deque()
        self.publishing: asyncio.Task[None] | None = None

    def publish(self, delivery: Delivery, listeners: list[Listener]) -> None:
        """Deliver `delivery` to `listeners` (and to the other processes), after those before."""
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is self.loop:
            self._enqueue(delivery, listeners)
        else:
            self.loop.call_soon_threadsafe(self._enqueue, delivery, listeners)

    def relay(self, delivery: Delivery, listeners: list[Listener]) -> None:
        """Deliver a change another process made (`Relay`) to `listeners`, in the same order
        as this process's own; never published again (in the loop)."""
        self._enqueue(delivery, listeners, mine=False)

    def _enqueue(self, delivery: Delivery, listeners: list[Listener], mine: bool = True) -> None:
        if self.queued == 0 and not self.order.locked():
            listeners = _deliver_now(delivery, listeners)
            if not listeners:  # every socket here took it at once
                if mine:
                    self._publish(delivery)
                return
        self.queued += 1
        if self.queued == 1 and not self.order.locked():
            # Nothing before it: sent now, up to the first thing it must wait for (if any).
            # In a context of its own, as the sender's: not the one of whoever committed (a
            # thread inside asgiref's sync_to_async, whose marks would refuse the sockets'
            # database calls).
            task = asyncio.Task(
                self._send_in_order(delivery, listeners, mine),
                loop=self.loop,
                context=contextvars.Context(),
                eager_start=True,
            )
            if not task.done():
                self.at_once.add(task)
                task.add_done_callback(self.at_once.discard)
            return
        self.queue.append((delivery, listeners, mine))
        if self.sender is None:
            self.sender = self.loop.create_task(self._send_queued(), context=contextvars.Context())

    async def _send_queued(self) -> None:
        try:
            while self.queue:
                delivery, listeners, mine = self.queue.popleft()
                await self._send_in_order(delivery, listeners, mine)
        finally:
            self.sender = None

    async def _send_in_order(
        self, delivery: Delivery, listeners: list[Listener], mine: bool = True
    ) -> None:
        async with self.order:
            try:
                await deliver(delivery, listeners)
            finally:
                self.queued -= 1
                if mine:
                    self._publish(delivery)

    def _publish(self, delivery: Delivery) -> None:
        """Publish `delivery` to the other processes after those before it, without making
        anything here wait for Redis."""
        if self.alone:
            return
        self.unpublished.append(delivery)
        if self.publishing is None:
            self.publishing = self.loop.create_task(
                self._publish_queued(), context=contextvars.Context()
            )

    async def _publish_queued(self) -> None:
        try:
            while self.unpublished:
                await publish(self.unpublished.popleft())
        finally:
            self.publishing = None

    def busy(self) -> bool:
        """Whether a change is still to be delivered here or published to the others."""
        return bool(self.queued or self.at_once or self.publishing)


def _deliver_now(delivery: Delivery, listeners: list[Listener]) -> list[Listener]:
    """Hand `delivery` to the listeners that take it in a plain call; return the others.

    Only for a change without a seat's own part (a seat's part comes before its frame).
    """
    if delivery.private:
        return listeners
    rest = []
    for listener in listeners:
        try:
            if listener.deliver_now(delivery):
                continue
        except Exception:  # one broken socket must not keep the frame from the others
            log.exception("push to a socket failed")
            continue
        rest.append(listener)
    return rest


async def deliver(delivery: Delivery, listeners: list[Listener]) -> None:
    """Deliver to `listeners` here, in order; one that fails does not stop the others."""
    for listener in listeners:
        try:
            await listener.deliver(delivery)
        except Exception:  # one broken socket must not keep the frame from the others
            log.exception("push to a socket failed")


async def publish(delivery: Delivery) -> None:
    """Publish `delivery` to the room's group for the other processes: one message, with the
    seats' own parts (each socket there takes its seat's only, as here); never raises."""
    layer = get_channel_layer()
    if layer is None or server.alone():
        return
    seats = {str(seat): part for seat, part in delivery.private.items()}
    try:
        message = {**delivery.public, "room": delivery.room_id, "seats": seats, "origin": ORIGIN}
        await layer.group_send(table_group(delivery.room_id), message)
    except Exception:  # the others redraw from the next change (or on reconnect)
        log.exception("publishing a change failed")


async def send(delivery: Delivery, listeners: list[Listener]) -> None:
    """Deliver to `listeners` here, then publish to the other processes."""
    await deliver(delivery, listeners)
    await publish(delivery)


def send_inline(delivery: Delivery, listeners: list[Listener]) -> None:
    """Without a server loop (a management command, a plain test): deliver and wait."""
    async_to_sync(send)(delivery, listeners)


def notice(room_id: int, message: dict[str, Any]) -> None:
    """Send a note outside the versioned parts (a rematch was opened) to the room's group:
    every process's relay hands it to its sockets there (this one's too)."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(table_group(room_id), {**message, "room": room_id})


def remote(event: dict[str, Any], room_id: int) -> Delivery:
    """A change another process published (a group message), as a delivery here."""
    seats = event.get("seats") or {}
    return Delivery(room_id, event["version"], event, {int(s): part for s, part in seats.items()})


# --------------------------------------------------------------------------- the relay


class Relay:
    """This process's one subscriber to its rooms' groups: what other processes publish of a
    room (its changes, its notes) reaches this process once, not once per socket.

    A room's group is joined when the room gets its first listener here (`join`, awaited
    before that socket draws its table, so that no change falls between the two) and left
    when its last one goes. A change comes in once per process: one made here (it came back
    from Redis) is dropped at once, one made elsewhere is handed to the room's listeners
    through the outbox, in order with this process's own; a note (a rematch was opened) goes
    to each listener's `table_notice`.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        outbox: Outbox,
        listeners: Callable[[int], list[Listener]],
    ) -> None:
        self.loop = loop
        self.outbox = outbox
        self.listeners = listeners  # a room's listeners here, now
        self.channel: str | None = None
        self.joined: set[int] = set()
        self.task: asyncio.Task[None] | None = None
        self.leaving: set[asyncio.Task[None]] = set()

    async def join(self, room_id: int) -> None:
        """Hear what other processes publish of `room_id` from now on."""
        if room_id in self.joined:
            return
        layer = get_channel_layer()
        if layer is None:
            return
        if self.channel is None:
            self.channel = await layer.new_channel("relay.")
            self.task = self.loop.create_task(self._run(layer, self.channel))
        self.joined.add(room_id)
        try:
            await layer.group_add(table_group(room_id), self.channel)
        except Exception:
            self.joined.discard(room_id)
            raise

    def leave(self, room_id: int) -> None:
        """No listener of `room_id` is left here: stop hearing its group (in the loop)."""
        if room_id not in self.joined or self.channel is None:
            return
        self.joined.discard(room_id)
        task = self.loop.create_task(self._leave(room_id, self.channel))
        self.leaving.add(task)
        task.add_done_callback(self.leaving.discard)

    async def _leave(self, room_id: int, channel: str) -> None:
        if room_id in self.joined:
            return  # a listener came back meanwhile
        try:
            await get_channel_layer().group_discard(table_group(room_id), channel)
        except Exception:
            log.exception("leaving the group of room %s failed", room_id)

    def stop(self) -> None:
        """End the relay's task (its loop ends: a test's, or a stopping server's)."""
        if self.task is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.task.cancel)

    async def _run(self, layer: Any, channel: str) -> None:
        while True:
            try:
                message = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer may be away for a moment; never let the relay die
                log.exception("the relay's receive failed")
                await asyncio.sleep(0.5)
                continue
            try:
                await self._hand_on(message)
            except Exception:
                log.exception("relaying a message failed")

    async def _hand_on(self, message: dict[str, Any]) -> None:
        room_id = message.get("room")
        if not isinstance(room_id, int):
            return
        kind = message.get("type")
        if kind == "table.public":
            if from_here(message):
                return  # this process delivered it to its sockets already
            listeners = self.listeners(room_id)
            if listeners:
                self.outbox.relay(remote(message, room_id), listeners)
        elif kind == "table.notice":
            for listener in self.listeners(room_id):
                try:
                    await listener.table_notice(message)
                except Exception:
                    log.exception("a note to a socket failed")


# --------------------------------------------------------------------------- the gate

# What a socket's `frame` returns: the version shown and its text; NOTHING: nothing to send yet
# (a seat's own part waiting for its public frame); None: something is missing (draw it whole).
Frame = tuple[int, str]
NOTHING: Frame = (0, "")


class Gated(Protocol):
    """What a socket gives its gate: how to draw the whole table, how to frame a change."""

    async def whole(self) -> Frame: ...
    async def frame(self, delivery: Delivery, shown: int) -> Frame | None: ...
    async def send_text(self, text: str) -> None: ...


class Gate:
    """A socket's versions, in one place for the browser's table socket and the API stream.

    It sends a change only if it is newer than what the socket shows, draws the whole table
    when the socket's `frame` says something went missing, and while the whole table is drawn
    and sent, holds every change and hands those newer than it over afterwards: a frame never
    goes out before an older whole table.
    """

    def __init__(self, socket: Gated) -> None:
        self.socket = socket
        self.version = 0
        self.drawing = False
        self.redraw = False
        self.held: list[Delivery] = []

    def shows(self, version: int) -> bool:
        """Whether a change at `version` is already shown (or is being drawn)."""
        return version <= self.version

    async def offer(self, delivery: Delivery) -> None:
        if self.drawing:
            self.held.append(delivery)
            return
        if not await self._send(delivery):
            await self.draw()  # something went missing: the whole table again

    async def _send(self, delivery: Delivery) -> bool:
        """Send `delivery` if it is newer than what the socket shows; False: it cannot be
        framed (something went missing), the caller draws the whole table."""
        if delivery.version <= self.version:
            return True  # already shown (a whole table overtook it)
        framed = await self.socket.frame(delivery, self.version)
        if framed is None:
            return False
        version, text = framed
        if text:
            self.version = max(self.version, version)
            await self.socket.send_text(text)
        return True

    def take_now(self, version: int) -> bool:
        """Whether a change may be sent in a plain call now (nothing drawn, it is newer)."""
        return not self.drawing and version > self.version

    def sent_now(self, version: int) -> None:
        self.version = version

    async def resume(
        self,
        shown: int,
        missed: list[Delivery],
        send: Callable[[str], Awaitable[None]],
        first: str,
    ) -> None:
        """The socket already shows version `shown` (a page that reconnected): send `first`
        with `send` (the accept), then each change it missed, in order; what comes meanwhile
        waits as while drawing. A change that cannot be framed draws the whole table."""
        self.drawing = True
        self.version = shown
        whole = False
        try:
            await send(first)
            for delivery in missed:
                if not await self._send(delivery):
                    whole = True
                    break
        finally:
            self.drawing = False
        if whole:
            await self.draw()  # offers what was held once the whole table is out
            return
        held, self.held = self.held, []
        for delivery in held:
            if delivery.version > self.version:
                await self.offer(delivery)

    async def draw(self, send: Callable[[str], Awaitable[None]] | None = None) -> None:
        """Draw and send the whole table; `send` sends the first one (the socket's accept)."""
        if self.drawing:
            # Already drawing (a sync, a seat change meanwhile): it draws once more when that
            # is out, with what is true then.
            self.redraw = True
            return
        self.drawing = True
        try:
            while True:
                self.redraw = False
                version, text = await self.socket.whole()
                # Nothing newer than what it shows (a stream's redraw right after a draw):
                # nothing is sent, and what it shows stays as it was. The first draw (`send`,
                # the accept) always goes out.
                if text or send is not None:
                    self.version = version
                    await (send or self.socket.send_text)(text)
                send = None
                if not self.redraw:
                    break
        finally:
            self.drawing = False
            held, self.held = self.held, []
        for delivery in held:
            if delivery.version > self.version:
                await self.offer(delivery)
