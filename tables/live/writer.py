"""Group commit: one writer per server loop writes every pending entry of every room at once.

A move is acknowledged to its sender and pushed to anyone only once its batch is durable: a
crash loses nothing anybody saw. The writer has no task of its own. A store that can commit a
batch in the loop itself (tables.live.store.SqliteStore, plain moves) does so once the loop has
read what this turn brought (every move in it joins the batch); otherwise the first move
submitted goes to the database thread at once. Either way what comes in meanwhile waits as the
next batch, and the answer comes back as one callback in the loop (`_written`), which publishes
the batch, acknowledges its moves and starts the next one (in the database thread: first, so
that its round trip overlaps the pushes).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from django.utils.translation import gettext_noop

from tables.errors import PlayError
from tables.live.room import Entry
from tables.live.store import Store

log = logging.getLogger(__name__)

Done = Callable[[Any, BaseException | None], None]
# Seconds between two checks of the writer thread's connection (Django's close_old_connections).
CHECK_EVERY = 1.0


class OneThread(concurrent.futures.Executor):
    """One thread that runs what it is handed, in order; started on first use.

    `call(fn, arg, done)` is the writer's way: the thread runs `fn(arg)` and then `done(result,
    error)`, with no Future between them (a ThreadPoolExecutor's futures, conditions and
    semaphore were a good part of each batch's cost in the thread, measured:
    docs/performance.md). `submit` is the Executor's, for `loop.run_in_executor`.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.jobs: queue.SimpleQueue[tuple[Callable[[Any], Any], Any, Done]] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.starting = threading.Lock()

    def call(self, fn: Callable[[Any], Any], arg: Any, done: Done) -> None:
        if self.thread is None:
            with self.starting:
                if self.thread is None:
                    self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                    self.thread.start()
        self.jobs.put((fn, arg, done))

    def submit[T](
        self, fn: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def run(_: Any) -> None:
            if not future.set_running_or_notify_cancel():
                return  # cancelled while it waited
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as error:
                future.set_exception(error)

        self.call(run, None, _nothing)
        return future

    def _run(self) -> None:
        jobs = self.jobs
        while True:
            fn, arg, done = jobs.get()
            try:
                result, error = fn(arg), None
            except BaseException as failure:
                result, error = None, failure
            try:
                done(result, error)
            except Exception:  # the thread must go on: every later write depends on it
                log.exception("%s: answering a job failed", self.name)


def _nothing(result: Any, error: BaseException | None) -> None:
    pass


# One thread for every database job of the live rooms: a batch, a touch, a rebuild, a lease.
DB = OneThread("live-rooms-db")


async def in_db_thread[T](fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` in the live rooms' database thread, which never waits for the loop (Channels'
    one database thread may: a bot driver's step waits there for a touch of the loop's)."""
    return await asyncio.get_running_loop().run_in_executor(DB, fn, *args)


class Writer:
    """The one writer of a loop: flushes every pending entry in one transaction, in order.

    `published(entries)` is called in the loop with the entries of each batch that are durable
    (refused plays included), before their senders are answered.
    """

    def __init__(self, store: Store, published: Callable[[list[Entry]], None]) -> None:
        self.store = store
        self.published = published
        self.pending: list[Entry] = []
        self.writing = False
        self.waiting: asyncio.Handle | None = None
        # When the thread last let Django check its connection (close_old_connections: with
        # CONN_HEALTH_CHECKS, one more round trip to the database), and whether a batch failed
        # since (then the next one checks first).
        self.checked = float("-inf")
        self.failed = False

    def submit(self, entry: Entry) -> None:
        self.pending.append(entry)
        if self.writing or self.waiting is not None:
            return
        loop = asyncio.get_running_loop()
        delay = settings.ACTION_FLUSH_DELAY
        if delay:  # gather what arrives in the next moments
            self.waiting = loop.call_later(delay, self._flush)
        elif self.store.in_loop:
            self.waiting = loop.call_soon(self._flush)  # after this turn's other frames
        else:
            self._flush()

    def _flush(self) -> None:
        self.waiting = None
        if not self.pending:
            self.writing = False
            return
        batch, self.pending = self.pending, []
        self.writing = True
        loop = asyncio.get_running_loop()
        try:
            again = self.store.write_in_loop(batch)
        except Exception as failure:
            loop.call_soon(self._written, batch, None, failure)
            return
        if again is not None:
            loop.call_soon(self._written, batch, again, None)
            return

        def back(stale: list[Entry] | None, error: BaseException | None) -> None:
            # RuntimeError: the loop has ended (a test's); nobody waits for these any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._written, batch, stale, error)

        DB.call(self._write, batch, back)

    def _write(self, batch: list[Entry]) -> list[Entry]:
        # Checked once a second, not once a batch: a batch is a few moves, and the check was one
        # round trip of the four or five each batch makes on PostgreSQL (docs/performance.md).
        now = time.monotonic()
        if self.failed or now - self.checked >= CHECK_EVERY:
            self.failed = False
            self.checked = now
            close_old_connections()
        try:
            return self.store.write(batch)
        except Exception:
            self.failed = True  # a broken connection is closed before the next batch
            raise

    def _written(
        self, batch: list[Entry], stale: list[Entry] | None, error: BaseException | None
    ) -> None:
        if not self.store.in_loop:
            # The next batch (what came in while this one was written) goes to the database
            # thread first: its round trip overlaps this batch's pushes, drawn here in the
            # loop, instead of waiting for them. Its answer comes back as a later callback, so
            # this batch is still published and acknowledged before it.
            self._flush()
            self._settle(batch, stale, error)
            return
        try:
            self._settle(batch, stale, error)
        finally:
            self._flush()  # the next batch, written here in the loop, after this one's pushes

    def _settle(
        self, batch: list[Entry], stale: list[Entry] | None, error: BaseException | None
    ) -> None:
        if error is not None or stale is None:
            log.error("writing %d moves failed", len(batch), exc_info=error)
            for entry in batch:
                if not entry.outdated:
                    entry.room.stale = True  # its memory is ahead of the database now
                if entry.future is not None and not entry.future.done():
                    entry.future.set_exception(
                        PlayError(
                            "unavailable",
                            gettext_noop("The move could not be saved; try again."),
                            503,
                        )
                    )
            return
        retry = {id(e) for e in stale}
        for entry in stale:
            if not entry.outdated:
                entry.room.stale = True  # rebuilt from the database before its move again
        try:
            self.published([e for e in batch if id(e) not in retry])
        except Exception:  # a push that fails must not lose the acknowledgements
            log.exception("push failed")
        for entry in batch:
            if entry.future is not None and not entry.future.done():
                entry.future.set_result(id(entry) not in retry)  # False: apply it again
