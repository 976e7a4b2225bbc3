"""Room actors: moves applied in memory, acknowledged once durable, rebuilt from snapshot + log."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings as django_settings
from django.db import connection
from django.db.models import F

from games.engine import IllegalAction
from tables import play
from tables.live import rooms, store
from tables.models import ActionLog, Match
from tests.conftest import make_user
from tests.tables.helpers import started_room

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def _room(game: str = "ligretto", bots: int = 3, **options):
    alice = await sync_to_async(make_user)("alice")
    room = await sync_to_async(started_room)(alice, game=game, bots=bots, **options)
    rooms.bind(asyncio.get_running_loop())
    return room


def _recovered(room_id: int):
    """The match row, its last snapshot's version, and its table rebuilt from the database."""
    match = Match.objects.get(room_id=room_id)
    rnd = match.rounds.order_by("-number").first()
    return match, rnd.version, store.recover(match)


async def _bot_moves(room_id: int, rng: random.Random, rounds: int) -> int:
    """Let every seat play as a bot, all at once, for `rounds` rounds of choices."""
    accepted = 0
    for _ in range(rounds):
        room = await rooms.room_for(room_id)
        table = room.table
        if table.match.status != Match.Status.PLAYING:
            break
        moves = []
        for p in table.players:
            action, _ = table.game.bot_choose(table.view(p.seat), "normal", rng)
            if action is not None:
                moves.append(rooms.act(room_id, p.seat, action, by_bot=True))
        results = await asyncio.gather(*moves, return_exceptions=True)
        for result in results:
            if isinstance(result, IllegalAction):
                continue
            if isinstance(result, BaseException):
                raise result
            accepted += 1
    return accepted


async def test_replaying_the_log_after_the_last_snapshot_arrives_at_the_live_state(monkeypatch):
    # No snapshot but at round ends: recovery has a long log to replay.
    monkeypatch.setattr(django_settings, "SNAPSHOT_EVERY", 10_000)
    monkeypatch.setattr(django_settings, "SNAPSHOT_SECONDS", 10_000.0)
    room = await _room(rounds=10)  # long enough that the match cannot end (a final snapshot)
    rng = random.Random(7)
    accepted = await _bot_moves(room.pk, rng, 60)
    assert accepted > 20

    def snapshot_version() -> int:
        return Match.objects.get(room_id=room.pk).rounds.order_by("-number").first().version

    # The deal is random: the last move may have ended a round (a snapshot). Play on a little
    # until the live state is ahead of the last snapshot, so recovery must replay the log.
    for _ in range(10):
        live = (await rooms.room_for(room.pk)).table
        if await sync_to_async(snapshot_version)() < live.version:
            break
        await _bot_moves(room.pk, rng, 1)
    live = (await rooms.room_for(room.pk)).table
    match, snapshot_at, table = await sync_to_async(_recovered)(room.pk)
    assert match.version == live.version
    assert snapshot_at < live.version  # the state came from the log, not from a snapshot
    assert table.game.dump(table.state) == live.game.dump(live.state)
    assert table.view(0) == live.view(0)


async def test_snapshots_written_between_round_ends_recover_the_live_state(monkeypatch):
    # A snapshot every few moves: most are written by the writer's own SQLite connection.
    monkeypatch.setattr(django_settings, "SNAPSHOT_EVERY", 3)
    room = await _room(rounds=10)
    before = rooms.here().store.written["raw"]
    await _bot_moves(room.pk, random.Random(11), 25)
    live = (await rooms.room_for(room.pk)).table
    match, snapshot_at, table = await sync_to_async(_recovered)(room.pk)
    assert match.version == live.version
    # The last snapshot is at most two moves old: written between round ends, not only at them.
    assert live.version - snapshot_at < 3
    assert (rooms.here().store.written["raw"] > before) is (connection.vendor == "sqlite")
    assert table.game.dump(table.state) == live.game.dump(live.state)


async def test_a_move_is_acknowledged_only_once_its_log_row_is_durable():
    room = await _room()
    table = (await rooms.room_for(room.pk)).table
    action, _ = table.game.bot_choose(table.view(1), "normal", random.Random(1))
    outcome = await rooms.act(room.pk, 1, action, by_bot=True)
    logged = await sync_to_async(
        lambda: list(
            ActionLog.objects.filter(match__room_id=room.pk).values_list("version", flat=True)
        )
    )()
    assert logged == [outcome.table.version]
    version = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
    assert version == outcome.table.version


async def test_moves_from_many_seats_at_once_are_written_in_order_and_once():
    # On SQLite plain moves are committed by the loop's own sqlite3 connection (the writer
    # thread's while another holds the lock; a round's end always goes through Django's).
    room = await _room(game="ligretto", bots=3)
    before = rooms.here().store.written.copy()
    await _bot_moves(room.pk, random.Random(3), 30)
    # (On PostgreSQL, the scale run, a batch's plain moves are one statement, sent by the loop
    # on its own connection once that is open, through the thread before.)
    sqlite = connection.vendor == "sqlite"
    written = rooms.here().store.written
    assert (written["raw"] > before["raw"]) is sqlite
    assert (written["loop"] > before["loop"]) is sqlite
    assert (written["postgres"] > before["postgres"]) is (not sqlite)
    assert (written["postgres-loop"] > before["postgres-loop"]) is (not sqlite)
    rows = await sync_to_async(
        lambda: list(
            ActionLog.objects.filter(match__room_id=room.pk, refused="").values_list(
                "version", flat=True
            )
        )
    )()
    live = (await rooms.room_for(room.pk)).table
    assert rows == sorted(set(rows)) and rows[-1] == live.version


async def test_a_log_row_holds_the_text_django_would_store_whichever_way_it_was_written():
    room = await _room(game="ligretto", bots=3)
    await _bot_moves(room.pk, random.Random(5), 4)

    def stored():
        rows = list(ActionLog.objects.filter(match__room_id=room.pk).order_by("pk"))
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT action, CAST(created_at AS TEXT) FROM games_actionlog"
                " WHERE match_id = %s ORDER BY id",
                [rows[0].match_id],
            )
            return rows, cursor.fetchall()

    rows, texts = await sync_to_async(stored)()
    assert len(rows) == len(texts) > 0
    if connection.vendor != "sqlite":
        # The scale run: every batch went through Django's cursor; jsonb comes back as text.
        for row, (action, _) in zip(rows, texts, strict=True):
            assert json.loads(action) == row.action and row.action.get("type")
        return
    field = ActionLog._meta.get_field("action")
    for row, (action, created_at) in zip(rows, texts, strict=True):
        # What the ORM would write for the value read back is, text for text, what is there.
        assert action == field.get_db_prep_value(row.action, connection)
        assert created_at == connection.ops.adapt_datetimefield_value(row.created_at)
        assert row.created_at.tzinfo is not None


async def test_a_move_waits_in_the_writer_thread_while_another_connection_holds_the_lock():
    # The loop's own connection never waits for SQLite's write lock: while another connection
    # holds it (a lobby write, say), the batch goes to the writer thread, which waits, and the
    # move is acknowledged only once its row is in.
    room = await _room()
    table = (await rooms.room_for(room.pk)).table
    rng = random.Random(5)
    action, _ = table.game.bot_choose(table.view(1), "normal", rng)
    before = rooms.here().store.written.copy()
    first = await rooms.act(room.pk, 1, action, by_bot=True)
    if connection.vendor != "sqlite":  # the scale run: PostgreSQL, always the thread
        assert rooms.here().store.written["loop"] == before["loop"]
        return
    assert rooms.here().store.written["loop"] == before["loop"] + 1
    blocker = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
    try:
        blocker.execute("BEGIN IMMEDIATE")
        action, _ = first.table.game.bot_choose(first.table.view(2), "normal", rng)
        move = asyncio.ensure_future(rooms.act(room.pk, 2, action, by_bot=True))
        for _ in range(100):
            await asyncio.sleep(0.01)
            if rooms.here().store.written["busy"] > before["busy"]:
                break
        assert rooms.here().store.written["busy"] == before["busy"] + 1
        await asyncio.sleep(0.05)
        assert not move.done()  # not acknowledged while its row cannot be written
        blocker.execute("COMMIT")
        second = await asyncio.wait_for(move, 5)
    finally:
        blocker.close()
    assert second.table.version == first.table.version + 1
    rows = await sync_to_async(
        lambda: list(
            ActionLog.objects.filter(match__room_id=room.pk).values_list("version", flat=True)
        )
    )()
    assert rows == [first.table.version, second.table.version]
    # The second went through the thread.
    assert rooms.here().store.written["loop"] == before["loop"] + 1


async def test_a_table_changed_behind_the_actor_is_read_again_and_the_move_applied_there():
    room = await _room()
    table = (await rooms.room_for(room.pk)).table
    # Another process (or an operator) made a change the actor did not see: a new version.
    await sync_to_async(
        lambda: Match.objects.filter(room_id=room.pk).update(version=F("version") + 5)
    )()
    action, _ = table.game.bot_choose(table.view(1), "normal", random.Random(2))
    outcome = await rooms.act(room.pk, 1, action, by_bot=True)
    assert outcome.table.version == table.version + 6  # applied after that change, not beside it
    version = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
    assert version == outcome.table.version


async def test_a_move_whose_write_fails_is_refused_and_the_next_is_applied_on_the_truth(
    monkeypatch,
):
    # The database refuses one batch (a full disk, say): that move is answered "unavailable",
    # and the actor, now ahead of the database, is rebuilt from it before the next move, which
    # takes the version the failed one would have had and is the only one logged.
    # Whether the batch is committed in the loop or in the writer thread, it runs
    # store.write_all, or on PostgreSQL (plain moves) store.write_one or store.write_fenced in
    # the thread, or the same statements sent by the loop (store.LoopConnection.send).
    room = await _room()
    table = (await rooms.room_for(room.pk)).table
    writes = {
        (owner, name): getattr(owner, name)
        for owner, name in [
            (store, "write_all"),
            (store, "write_one"),
            (store, "write_fenced"),
            (store.LoopConnection, "send"),
        ]
    }

    def refuse_once(*args):
        for (owner, name), write in writes.items():
            monkeypatch.setattr(owner, name, write)
        raise OSError("disk full")

    for owner, name in writes:
        monkeypatch.setattr(owner, name, refuse_once)
    action, _ = table.game.bot_choose(table.view(1), "normal", random.Random(4))
    with pytest.raises(play.PlayError) as refused:
        await rooms.act(room.pk, 1, action, by_bot=True)
    assert refused.value.code == "unavailable" and refused.value.status == 503
    outcome = await rooms.act(room.pk, 1, action, by_bot=True)
    assert outcome.table.version == table.version + 1
    rows = await sync_to_async(
        lambda: list(ActionLog.objects.filter(match__room_id=room.pk).values_list("version"))
    )()
    assert rows == [(table.version + 1,)]


async def test_moves_after_the_loops_own_connection_broke_are_refused_or_durable_never_lost():
    # On PostgreSQL the loop sends plain moves on a connection of its own. Its backend is killed
    # (a restart, a network cut): the move in flight, if any, is refused "unavailable", the next
    # go through the thread until the store has opened another, and play goes on. Every move
    # acknowledged is in the log, at its version. (On SQLite the same moves, without the cut.)
    room = await _room(bots=3)
    here = rooms.here().store
    rng = random.Random(5)
    await _bot_moves(room.pk, rng, 4)
    postgres = connection.vendor == "postgresql"
    if postgres:
        for _ in range(100):  # opened in the background after the first batch
            if getattr(here, "loop_db", None) is not None:
                break
            await _bot_moves(room.pk, rng, 1)
            await asyncio.sleep(0.01)
        before = here.written["postgres-loop"]
        await _bot_moves(room.pk, rng, 1)
        assert here.written["postgres-loop"] > before  # the loop's connection took the batch
        backend = here.loop_db.pgconn.backend_pid

        def kill() -> None:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(%s)", [backend])

        await sync_to_async(kill)()
    acknowledged: list[int] = []
    for _ in range(40):
        room_now = await rooms.room_for(room.pk)
        table = room_now.table
        if table.match.status != Match.Status.PLAYING:
            break
        action, _ = table.game.bot_choose(table.view(1), "normal", rng)
        if action is None:
            continue
        try:
            outcome = await rooms.act(room.pk, 1, action, by_bot=True)
        except play.PlayError as refused:
            assert refused.code == "unavailable"
            continue
        except IllegalAction:
            continue
        acknowledged.append(outcome.table.version)
    assert len(acknowledged) > 20
    logged = await sync_to_async(
        lambda: set(
            ActionLog.objects.filter(match__room_id=room.pk, refused="").values_list(
                "version", flat=True
            )
        )
    )()
    assert set(acknowledged) <= logged
    if postgres:
        assert here.loop_db is not None and not here.loop_db.broken  # opened again


async def test_a_sync_caller_in_a_thread_hands_its_move_to_the_loop_and_waits():
    room = await _room()
    table = (await rooms.room_for(room.pk)).table
    action, _ = table.game.bot_choose(table.view(2), "normal", random.Random(4))
    outcome = await sync_to_async(play.act, thread_sensitive=False)(room.pk, 2, action)
    assert (await rooms.room_for(room.pk)).table.version == outcome.table.version


async def test_the_bot_driver_reads_the_table_its_actor_holds_without_the_database(
    django_assert_num_queries,
):
    from tables.driver import MatchBots

    room = await _room(bots=3)
    held = await rooms.room_for(room.pk)
    assert rooms.live_table(room.pk) is held.table
    bots = MatchBots(room.pk)

    def step_reads() -> None:
        with django_assert_num_queries(0):
            assert bots._table() is held.table

    await sync_to_async(step_reads, thread_sensitive=False)()
    await sync_to_async(rooms.forget)(room.pk)  # changed behind its back: the database rules
    assert rooms.live_table(room.pk) is None
