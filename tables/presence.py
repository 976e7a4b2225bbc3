"""Who is at the table: sockets coming and going, leavers replaced by bots and given back.

Connections are counted per seat in the database, so every Daphne process sees them; a seat
whose human has had no socket for `settings.LEAVER_GRACE` seconds gets a stand-in bot (the
bot driver checks), and his next socket gives the seat back to him. Each process also keeps
its own count per seat (`Presence`) and renews it every second (`heartbeat`): when a process
dies, its sockets are counted as gone once its rows are `DRIVER_LEASE` seconds old (`sweep`).
A table nobody is at any more (no person's socket for the grace, no spectator) ends, abandoned
(`end_unwatched`), rather than its bots playing on for nobody under "Being played".
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tables import claims, current, play
from tables.live import owners, rooms, store
from tables.models import Match, Player

# Kept in English on the match (its closed reason); the site words it in its reader's language.
ABANDONED = gettext_noop("Everyone left the table: the match was abandoned and counts for no one.")

# This server process, as its presence rows and its bot driver's leases name it (and the
# inbox its room owners' forwarded moves come to: tables.live.owners).
PROCESS = owners.PROCESS


def seat_for(room_id: int, user: Any) -> int | None | bool:
    """Return the seat `user` plays at the room's table, None to watch, False if none is there."""
    return store.seat_of_user(room_id, user)


def connected(room_id: int, seat: int) -> None:
    """Count a socket of `seat`; his first one (or any while a stand-in plays for him) shows
    him connected and ends the stand-in."""

    def change(table: current.Table) -> bool:
        player = _player(table, seat)
        store.count_socket(player, PROCESS, 1)
        # A new socket of a seat with a stand-in (timed out while here: tables.clocks) is the
        # player asking for his seat back, even beside a socket he already had.
        # So is any socket of a player marked away while here (idle for a round).
        if player.connections > 1 and not player.stand_in and player.away_since is None:
            return False
        player.away_since = None
        player.stand_in = False
        store.save_player(player, "away_since", "stand_in")
        return True

    play.touch(room_id, change)


def disconnected(room_id: int, seat: int) -> None:
    """Uncount a socket of `seat`; when his last one goes, his grace period starts.

    Not while this process stops (`owners.leaving`): `leave_process` uncounts all of its
    sockets at once, and the rooms are being handed over (cardgames.lifecycle)."""
    if owners.leaving():
        return

    def change(table: current.Table) -> bool:
        player = _player(table, seat)
        store.count_socket(player, PROCESS, -1)
        if player.connections > 0:
            return False
        player.away_since = timezone.now()
        store.save_player(player, "away_since")
        return table.match.status == Match.Status.PLAYING

    play.touch(room_id, change)


def leave_process(process: str = PROCESS) -> list[int]:
    """This process stops: its sockets are gone, all at once (one transaction, no room's turn).

    A seat left with no socket elsewhere is away from now (its grace period runs; the player's
    page reconnects to another process within moments and ends it). Each changed match's
    version grows, so that no process serves its players from memory. Returns their rooms.
    """
    now = timezone.now()
    with transaction.atomic():
        changed: dict[int, int] = {}
        for row in store.drop_presence(process):
            player = row.player
            before = player.connections
            store.recount(player)
            if player.connections == 0 and before > 0 and player.human and not player.left:
                player.away_since = player.away_since or now
                store.save_player(player, "away_since")
            if player.connections != before:
                changed[player.match.pk] = player.match.room_id
        store.bump_versions(list(changed))
    return sorted(changed.values())


def replace_absent(
    room_id: int,
    now: Any = None,
    table: current.Table | None = None,
    stale: bool | None = None,
) -> list[int] | None:
    """Give a stand-in bot to every human seat away longer than the grace period (no socket
    for that long, or marked away for a round he sat out: tables.clocks).

    `table`: the room's table as the caller just read it (no need to read it again); `stale`:
    whether the room has presence rows of a dead process, as the caller just read it
    (`stale_rooms`; None: read it here). Returns the seats given a stand-in, or None when
    nothing needed the room's turn (nothing changed).
    """
    now = now or timezone.now()
    grace = settings.LEAVER_GRACE
    replaced: list[int] = []

    def due(player: Player) -> bool:
        return (
            player.human
            and not player.left
            and not player.stand_in
            and player.away_since is not None
            and (now - player.away_since).total_seconds() >= grace
        )

    def change(table: current.Table) -> bool:
        swept = _sweep(table, now)
        for player in table.players:
            if due(player):
                player.stand_in = True
                player.bot_level = player.bot_level or "normal"
                store.save_player(player, "stand_in", "bot_level")
                replaced.append(player.seat)
        return bool(replaced) or swept

    # Looked at every second for every room: only a room with something to do takes the
    # room's turn (a transaction on its match, moves waiting), the rest cost one read.
    table = table or rooms.read(room_id)
    if table is None:
        return None
    if stale is None:
        stale = _stale_presence(table, now)
    if not any(due(p) for p in table.players) and not stale:
        return None
    play.touch(room_id, change)
    return replaced


def nobody_there(table: current.Table, now: Any, grace: float, last_play: Any = None) -> bool:
    """Whether no person holds the table any more: every human seat given up, or without a
    socket for `grace` seconds (a seat whose person never opened the table counts from the
    match's start, or from `last_play`, a person's last action: the Board API's HTTP moves
    need no socket). A table with no human seat at all is nobody's to abandon."""
    humans = [p for p in table.players if p.human]
    start = max(table.match.created_at, last_play or table.match.created_at)

    def gone(player: Player) -> bool:
        if player.left:
            return True
        if player.connections > 0:
            return False
        since = player.away_since or start
        return (now - since).total_seconds() >= grace

    return bool(humans) and all(gone(p) for p in humans)


def end_unwatched(room_id: int, table: current.Table, now: Any = None) -> bool:
    """End the match, abandoned, if nobody is at its table: no person for the away grace
    (`LEAVER_GRACE`), and the caller saw no spectator either (the bot driver, which watches
    the room's sockets for as long). Through the room's `touch`, judged again on the locked
    table; its closed result counts for no one, as when everyone leaves (lobby.services).
    Returns whether it ended it."""
    now = now or timezone.now()
    grace = settings.LEAVER_GRACE
    if not nobody_there(table, now, grace):
        return False  # no query, no room's turn: the usual answer
    last_play = store.last_human_play(table.match.pk)
    if not nobody_there(table, now, grace, last_play):
        return False
    ended = [False]

    def change(table: current.Table) -> bool:
        ended[0] = nobody_there(table, now, grace, last_play) and play.close(table, ABANDONED)
        return ended[0]

    play.touch(room_id, change)
    return ended[0]


def stale_rooms(now: Any = None) -> set[int]:
    """The playing rooms with a presence row its process stopped renewing: one read for all."""
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.DRIVER_LEASE)
    return store.stale_rooms(cutoff, PROCESS)


def _stale_presence(table: current.Table, now: Any) -> bool:
    cutoff = now - timedelta(seconds=settings.DRIVER_LEASE)
    return store.has_stale_presence(table.match, cutoff, PROCESS)


def left_for_good(room_id: int, user: Any) -> None:
    """A player gave his seat up during the match: a bot plays it to the end."""

    def change(table: current.Table) -> bool:
        for player in table.players:
            if player.user_id == user.pk and not player.left:
                player.left = True
                player.bot_level = player.bot_level or "normal"
                store.save_player(player, "left", "bot_level")
                return True
        return False

    play.touch(room_id, change)


def claim_seat(room_id: int, seat: int, user: Any) -> str:
    """`user` takes bot seat `seat` of the match in progress at its next deal (tables.claims).

    Recorded on the locked table, in the room's order: "" when it is, else why not:
    `not_a_bot` (the seat is no longer a bot's, or a human held it), `claimed` (someone else
    takes it at the next deal), `seated` (he plays or takes a seat at this table already),
    `no_match` (the room is not being played).
    """
    outcome = ["no_match"]

    def change(table: current.Table) -> bool:
        if table.match.status != Match.Status.PLAYING:
            return False
        if any(
            (p.user_id == user.pk and not p.left) or p.claimed_by_id == user.pk
            for p in table.players
        ):
            outcome[0] = "seated"
            return False
        player = next((p for p in table.players if p.seat == seat), None)
        if player is None or player.user_id is not None or player.left:
            outcome[0] = "not_a_bot"
            return False
        if not claims.open_seat(player):
            outcome[0] = "claimed"
            return False
        player.claimed_by = user
        player.claimed_name = user.username
        store.save_player(player, "claimed_by", "claimed_name")
        outcome[0] = ""
        return True

    play.touch(room_id, change)
    return outcome[0]


def drop_claims(user: Any) -> list[int]:
    """Forget every seat `user` would take at a next deal (he is banned, or deleted his
    account); returns their rooms."""
    room_ids = store.claimed_rooms(user)

    def change(table: current.Table) -> bool:
        dropped = False
        for player in table.players:
            if player.claimed_by_id == user.pk:
                player.claimed_by = None
                player.claimed_name = ""
                store.save_player(player, "claimed_by", "claimed_name")
                dropped = True
        return dropped

    for room_id in room_ids:
        play.touch(room_id, change)
    return room_ids


def _sweep(table: current.Table, now: Any) -> bool:
    """Count as gone the sockets of processes that stopped renewing their presence (died).

    Never this process's own rows: its sockets are open as long as it runs, even when its
    heartbeat is late. The heartbeat shares the driver's database thread, so a takeover's
    recovery can hold it past the lease, and a sweep that judged its own rows by their age
    then marked its own connected players away (the handover test's SIGKILL case)."""
    cutoff = now - timedelta(seconds=settings.DRIVER_LEASE)
    changed = False
    for row in store.take_stale_presence(table.match, cutoff, PROCESS):
        player = next(p for p in table.players if p.pk == row.player_id)
        before = player.connections
        # What the player's other processes count stays (a page that already reconnected
        # elsewhere keeps him here): only the dead process's sockets go.
        store.recount(player)
        if player.connections == 0 and before > 0:
            player.away_since = player.away_since or row.seen_at  # gone with the process
            store.save_player(player, "away_since")
            changed = True
    return changed


def heartbeat() -> None:
    """Renew this process's presence rows (every second, from the server's loop)."""
    close_old_connections()
    store.heartbeat(PROCESS)


def _player(table: current.Table, seat: int) -> Player:
    return next(p for p in table.players if p.seat == seat)
