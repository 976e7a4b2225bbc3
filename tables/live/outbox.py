"""Deliveries of room changes: one ordered route to this process's listeners, one publish for
the others, one relay for what the others publish, and the `Gate` every socket keeps its
versions with.

A change (tables.live.room.Delivery) reaches a listener of this process by `deliver` (awaited
in the order of the commits) or, when nothing is queued before it and it has no seat's own
part, by `deliver_now` in a plain call (a Board API stream writes its seat's text at once).
When the channel layer reaches other processes (Redis) and another process listens to the
room, each change is also published once to the room's group, its room and its seats' own parts
with it, tagged with this process's origin. The publishes go out in order too, but after the
sockets here, and a socket here never waits for one (`Outbox.publishing`). No socket is in a
room's group: each process's `Relay` is, and hands what other processes published to the room's
listeners here, once per process. The relays tell each other which rooms they hear (`LISTENING`),
so that a room nobody hears elsewhere (with the proxy's room hash, nearly every room) costs no
publish at all. Without a server loop (a management command, a plain test) a change is delivered,
published and waited for.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from tables import server
from tables.live.render import table_group
from tables.live.room import Delivery, Listener

log = logging.getLogger(__name__)
# This process, as the changes it publishes to other processes name it.
ORIGIN = secrets.token_hex(8)
# Where every process's relay says which rooms it hears (`Relay`).
LISTENING = "tables.listening"
# A relay says again every REFRESH seconds which rooms it hears (a lost message is mended by the
# next one); what a process said is forgotten EXPIRE seconds after it last said it (it died).
REFRESH = 2.0
EXPIRE = 7.0


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
        # The process's relay (it hands itself in): which rooms other processes hear. None:
        # every change is published.
        self.listening: Relay | None = None

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

    def _publish(self, delivery: Delivery, again: bool = False) -> None:
        """Publish `delivery` to the other processes after those before it, without making
        anything here wait for Redis; not at all when no other process hears its room
        (`Relay.needs`). `again`: a change published once more for a process that just
        started to listen (`Relay`), whatever was decided for it before."""
        if self.alone:
            return
        listening = self.listening
        if not again and listening is not None and not listening.needs(delivery):
            return
        self.unpublished.append(delivery)
        if self.publishing is None:
            self.publishing = self.loop.create_task(
                self._publish_queued(), context=contextvars.Context()
            )

    def publish_again(self, delivery: Delivery) -> None:
        """Publish a change made here once more (in the loop): a process that just said it
        hears its room may have missed it (`Relay`)."""
        self._publish(delivery, again=True)

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
    room (its changes, its notes) reaches this process once, not once per socket; and what
    tells this process's outbox whether any other process hears a room at all (`needs`).

    A room's group is joined when the room gets its first listener here (`join`, awaited
    before that socket draws its table, so that no change falls between the two) and left
    when its last one goes. A change comes in once per process: one made here (it came back
    from Redis) is dropped at once, one made elsewhere is handed to the room's listeners
    through the outbox, in order with this process's own; a note (a rematch was opened) goes
    to each listener's `table_notice`.

    Who hears which room: every relay is also in the `LISTENING` group, where it says which
    rooms it hears: one it joined (once its group is joined, before the socket draws), one it
    left, and all of them every REFRESH seconds and when it starts (asking the others for
    theirs, `ask`). The outbox publishes a change only while another process's relay said it
    hears the room: a set lookup per change, never a round trip to Redis.

    No change is lost by it: a change skipped before this process heard of a new listener
    elsewhere is never newer than the room's last change here, which is published again the
    moment it hears (`_heard`); the socket there shows it, or draws its whole table when
    something is missing (`Gate`). A change of a room this process does not hold (it could not
    be published again) is always published. Joins, leaves and what is said of them go one at
    a time (`membership`), so the others hear them in the order they happened.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        outbox: Outbox,
        listeners: Callable[[int], list[Listener]],
        latest: Callable[[int], Delivery | None] = lambda room_id: None,
    ) -> None:
        self.loop = loop
        self.outbox = outbox
        self.listeners = listeners  # a room's listeners here, now
        self.latest = latest  # a room's last change made here, while its room is held here
        self.channel: str | None = None
        self.opening: asyncio.Task[str] | None = None
        self.joined: set[int] = set()
        self.membership = asyncio.Lock()
        self.task: asyncio.Task[None] | None = None
        self.ticking: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[Any]] = set()
        # The rooms each other process's relay said it hears, and when it last said anything.
        self.heard: dict[str, tuple[frozenset[int], float]] = {}
        outbox.listening = self

    def needs(self, delivery: Delivery) -> bool:
        """Whether a change made here must be published: another process hears its room, or
        its room is not held here (nothing could publish it again when one says it hears)."""
        room_id = delivery.room_id
        for rooms, _ in self.heard.values():
            if room_id in rooms:
                return True
        if self.opening is None:
            self._open()  # from now on this process hears who listens
        last = self.latest(room_id)
        return last is None or last.version < delivery.version

    async def join(self, room_id: int) -> None:
        """Hear what other processes publish of `room_id` from now on, and tell them."""
        if room_id in self.joined:
            return
        layer = get_channel_layer()
        if layer is None:
            return
        channel = await asyncio.shield(self._open())
        async with self.membership:
            if room_id in self.joined:
                return  # another socket's join did it meanwhile
            await layer.group_add(table_group(room_id), channel)
            self.joined.add(room_id)
            await self._say(layer, "table.listening", [room_id])

    def leave(self, room_id: int) -> None:
        """No listener of `room_id` is left here: stop hearing its group (in the loop)."""
        if room_id in self.joined:
            self._background(self._leave(room_id))

    async def _leave(self, room_id: int) -> None:
        async with self.membership:
            if room_id not in self.joined or self.listeners(room_id):
                return  # a listener came back meanwhile
            self.joined.discard(room_id)
            layer = get_channel_layer()
            try:
                if self.channel is not None:
                    await layer.group_discard(table_group(room_id), self.channel)
            except Exception:
                log.exception("leaving the group of room %s failed", room_id)
            await self._say(layer, "table.unlistening", [room_id])

    def stop(self) -> None:
        """End the relay's tasks (its loop ends: a test's, or a stopping server's)."""
        if self.loop.is_closed():
            return
        for task in (self.opening, self.task, self.ticking, *self.tasks):
            if task is not None:
                self.loop.call_soon_threadsafe(task.cancel)

    def _background(self, work: Coroutine[Any, Any, Any]) -> None:
        task = self.loop.create_task(work, context=contextvars.Context())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _open(self) -> asyncio.Task[str]:
        """The relay's channel, made the first time: in the `LISTENING` group, the others asked
        which rooms they hear."""
        if self.opening is None:
            self.opening = self.loop.create_task(self._make(), context=contextvars.Context())
            self.opening.add_done_callback(self._opened)
        return self.opening

    def _opened(self, task: asyncio.Task[str]) -> None:
        if task.cancelled():
            return
        if task.exception() is not None:
            log.error("the relay could not start", exc_info=task.exception())
            self.opening = None  # the layer was away: tried again at the next join or change

    async def _make(self) -> str:
        layer = get_channel_layer()
        if self.channel is None:
            self.channel = await layer.new_channel("relay.")
        channel = self.channel
        if self.task is None:
            self.task = self.loop.create_task(self._run(layer, channel))
        if self.outbox.alone:
            return channel  # nobody else to tell, or to hear from
        await layer.group_add(LISTENING, channel)
        if self.ticking is None:
            self.ticking = self.loop.create_task(self._tick(layer))
        async with self.membership:
            await self._say(layer, "table.listening", sorted(self.joined), whole=True, ask=True)
        return channel

    async def _say(
        self, layer: Any, kind: str, rooms: list[int], whole: bool = False, ask: bool = False
    ) -> None:
        """Tell the other processes' relays which rooms this one hears (`table.listening`) or
        no longer hears (`table.unlistening`); `whole`: all of them. Never raises: the next
        REFRESH says it again."""
        if self.outbox.alone:
            return
        message = {"type": kind, "origin": ORIGIN, "rooms": rooms, "whole": whole, "ask": ask}
        try:
            await layer.group_send(LISTENING, message)
        except Exception:
            log.exception("telling the others which rooms this process hears failed")

    async def _tick(self, layer: Any) -> None:
        """Say every room heard here again every REFRESH seconds; forget a process that said
        nothing for EXPIRE seconds (it died without leaving its rooms)."""
        while True:
            await asyncio.sleep(REFRESH)
            now = time.monotonic()
            for origin, (_, said) in list(self.heard.items()):
                if now - said > EXPIRE:
                    del self.heard[origin]
            if self.joined:
                async with self.membership:
                    await self._say(layer, "table.listening", sorted(self.joined), whole=True)

    def _heard(self, message: dict[str, Any]) -> None:
        """Another process's relay said which rooms it hears (or no longer hears): from now
        on its rooms' changes are published, and each room it newly hears gets its last
        change here once more (one skipped before this moment is not newer than it)."""
        origin = message.get("origin")
        if not isinstance(origin, str) or origin == ORIGIN:
            return
        said = frozenset(r for r in message.get("rooms") or () if isinstance(r, int))
        known = self.heard.get(origin, (frozenset(), 0.0))[0]
        if message.get("type") == "table.unlistening":
            rooms = known - said
        else:
            rooms = said if message.get("whole") else known | said
            for room_id in sorted(rooms - known):
                last = self.latest(room_id)
                if last is not None:
                    self.outbox.publish_again(last)
        if rooms:
            self.heard[origin] = (rooms, time.monotonic())
        else:
            self.heard.pop(origin, None)
        if message.get("ask") and self.joined:
            # A process that just started: it hears this one's rooms now, not at the next
            # REFRESH.
            self._background(self._say_all())

    async def _say_all(self) -> None:
        async with self.membership:
            rooms = sorted(self.joined)
            await self._say(get_channel_layer(), "table.listening", rooms, whole=True)

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
        kind = message.get("type")
        if kind in ("table.listening", "table.unlistening"):
            self._heard(message)
            return
        room_id = message.get("room")
        if not isinstance(room_id, int):
            return
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
