"""A tournament as plain data: what the Board API answers and the pages show (one source)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from tables.words import game_name
from tournaments import scheduler
from tournaments.models import Entry, Tournament, TournamentTable


def summary(t: Tournament) -> dict[str, Any]:
    """The fields a list shows."""
    return {
        "id": t.pk,
        "game": t.game,
        "seats": t.seats,
        "format": t.format,
        "rounds": t.rounds,  # in the detail: the rounds themselves (`round_count` their number)
        "round_count": t.rounds,
        "minutes": t.minutes,
        "match_rounds": t.match_rounds,
        "duplicate": t.duplicate,
        "private": t.private,
        "status": t.status,
        "starts_at": t.starts_at.isoformat(),
        "ends_at": t.ends_at.isoformat() if t.ends_at else None,
        "creator": t.creator.get_username(),
        "players": t.entries.filter(status=Entry.Status.ACTIVE).count(),
        "current_round": t.current_round,
        "version": t.version,
        "url": reverse("tournaments:page", args=[t.pk]),
        # In the reader's language (the page's words; the API's clients read the codes above).
        "game_name": str(game_name(t.game)),
        "format_name": str(Tournament.Format(t.format).label),
        "status_name": str(Tournament.Status(t.status).label),
    }


def detail(t: Tournament, user: Any = None) -> dict[str, Any]:
    """Everything: players, rounds with their tables and seats, standings."""
    entries = {e.pk: e for e in t.entries.select_related("user")}
    lines = scheduler.standings(t)
    standings = [
        {
            "rank": line.rank,
            "entry": line.key,
            "name": entries[line.key].name,  # type: ignore[index]
            "bot": entries[line.key].is_bot,  # type: ignore[index]
            "status": entries[line.key].status,  # type: ignore[index]
            "points": round(line.points, 4),
            "against_cards": round(line.against_cards, 4),
            "opponents": round(line.opponents, 4),
            "head_to_head": line.head_to_head,
            "matches": line.matches,
        }
        for line in lines
    ]
    rounds: list[dict[str, Any]] = []
    tables = t.tables.select_related("round").prefetch_related("seat_set").order_by("number")
    by_round: dict[int, list[TournamentTable]] = {}
    for table in tables:
        by_round.setdefault(table.round.number if table.round else 0, []).append(table)
    for number, group in sorted(by_round.items()):
        rounds.append(
            {
                "number": number,
                "status": group[0].round.status if group[0].round else "arena",
                "tables": [_table(table, entries, t.duplicate) for table in group],
            }
        )
    mine = None
    if user is not None and getattr(user, "is_authenticated", False):
        own = next((e for e in entries.values() if e.user_id == user.pk), None)
        if own is not None:
            playing = next(
                (
                    table.room_id
                    for table in tables
                    if table.status == TournamentTable.Status.PLAYING
                    and any(s.entry_id == own.pk for s in table.seat_set.all())
                ),
                None,
            )
            mine = {"entry": own.pk, "status": own.status, "table_room": playing}
    answer = {
        **summary(t),
        "entrants": [
            {
                "entry": e.pk,
                "name": e.name,
                "bot": e.is_bot,
                "level": e.bot_level or None,
                "status": e.status,
            }
            for e in entries.values()
        ],
        "rounds": rounds,
        "standings": standings,
        "you": mine,
    }
    if t.status == Tournament.Status.FINISHED:
        answer["secret"] = t.secret  # the deals' seeds can now be checked
    if user is not None and getattr(user, "pk", None) == t.creator_id and t.private:
        answer["invite"] = t.invite_code
    return answer


def _table(table: TournamentTable, entries: dict[int, Entry], duplicate: bool) -> dict[str, Any]:
    seats = list(table.seat_set.all())
    return {
        "number": table.number,
        "room": table.room_id,
        "status": table.status,
        "deal_sha256": table.digest,
        "deal": table.deal,  # Arena duplicate: the pool deal's number (the same cards)
        # Duplicate: scored on the plain points, too few tables having held its deal for a par.
        "plain_placing": duplicate
        and any(s.share is not None for s in seats)
        and all(s.par is None for s in seats),
        "seats": [
            {
                "seat": s.index,
                "entry": s.entry_id,
                "name": entries[s.entry_id].name if s.entry_id else None,
                "filler": s.entry_id is None,
                "deal_sha256": s.digest,
                "points": s.points,
                "missed": s.missed,
                "par": s.par,
                "adjusted": s.adjusted,
                "share": s.share,
                "round_points": s.round_points,
                "on_fire": s.on_fire,
                "deal_beaten": s.deal_beaten,
                "deal_holders": s.deal_holders,
            }
            for s in seats
        ],
    }
