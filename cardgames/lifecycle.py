"""A server process's start and its graceful stop (cardgames.server calls both, in its loop).

`start()` runs as soon as the server listens: this process's live rooms, its inbox and its bot
driver start at once (not with the first request), so the rooms a stopped process handed over
are claimed and rebuilt as soon as its successor is up.

`stop()` runs on SIGTERM, before Daphne cancels its applications, within `SHUTDOWN_GRACE`:

1. the process takes no room any more (`owners.leave`; it no longer listens already);
2. every open table, room, lobby socket and API stream is told, in its reader's language,
   that the server restarts and its game goes on, and is closed with 1012 (reconnect): the
   pages and streams come back at once, to another process or to this one's successor;
3. its bot driver stops; every move already taken is written and pushed (`rooms.settle`);
4. its sockets are uncounted at once (tables.presence.leave_process) and its leases released
   with the moment of the handover, and every other process is told (owners.released) so
   that one of them claims each room at once, without waiting for the lease to run out; the
   next owner charges nobody for the time between (tables.driver.resume);
5. any thread still waiting for the loop is answered `unavailable`, so the process exits.

Alone, the same: what the rooms hold is durable already (their log), and the successor
claims the released leases on start. A SIGKILL skips all of it and stays safe: the leases
run out and the presence rows go stale (docs/architecture.md, "Takeover").
"""

from __future__ import annotations

import asyncio
import logging
import time

from django.conf import settings
from django.db import close_old_connections

from tables import driver, play, presence
from tables.live import owners, rooms, stream
from tables.live.store import in_db_thread

log = logging.getLogger(__name__)


async def start() -> None:
    """The process is up: its rooms, inbox and driver start now."""
    driver.ensure_started()
    # Tournaments' schedules live in the database: this process runs what is due from now on.
    from tournaments import scheduler

    scheduler.ensure_started()


async def stop() -> None:
    """Hand everything over and let go (see the module's docstring); never raises."""
    started = time.monotonic()
    grace = settings.SHUTDOWN_GRACE
    owners.leave()
    try:
        told = await stream.restart_all(timeout=min(1.0, grace / 3))
        held = await asyncio.wait_for(driver.stop(release=False), grace / 3)
        settled = await rooms.settle(timeout=max(grace / 3, 0.1))
        # Every move another process forwarded here is answered before the rooms go: after
        # that, none is applied here (owners.released).
        settled = await owners.answered(timeout=max(grace / 6, 0.1)) and settled
        owners.let_go()
        # Leases and presence in one go, then the others hear of it and claim at once.
        held = await in_db_thread(_release, held)
        await owners.released(held)
    except Exception:
        log.exception("stopping: handing the rooms over failed; their leases run out instead")
        return
    finally:
        # A request that came in just before the port closed gets its answer if it can.
        await _answered(timeout=min(0.5, grace / 6))
        abandoned = play.abandon()
    log.info(
        "stopped in %.2f s: %d sockets told, %d rooms handed over%s%s",
        time.monotonic() - started,
        told,
        len(held),
        "" if settled else ", some moves still being written",
        f", {abandoned} waiting threads answered" if abandoned else "",
    )


async def _answered(timeout: float) -> None:
    """Wait until no thread waits for the loop (or `timeout` seconds)."""
    deadline = time.monotonic() + timeout
    while play.waiting() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)


def _release(held: list[int]) -> list[int]:
    """Release this process's leases as handed over and uncount its sockets."""
    close_old_connections()
    presence.leave_process()
    return sorted(set(held) | set(driver.release_all(owners.me())))
