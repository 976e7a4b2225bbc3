"""Replays: a round rebuilt from the match's seed and its action log, step by step (G1).

Nothing is stored twice: the deal comes from the seed, every later state from applying the
logged actions in version order with the game's own rules. A row with `refused` set is a play
the server refused (L12's `too_slow`): it is shown, marked, and never applied. A spectator's
view (`player_view(state, None)`) is all a step ever shows, drawn by the game's layout.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import statistics
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from games.engine import IllegalAction, State
from games.registry import GAMES
from tables import fairness, server
from tables.current import Table
from tables.live import render
from tables.live.equalise import window_us
from tables.models import ActionLog, Match, Player, Round
from tables.words import player_name

# A play refused as too slow is a race lost (a contested moment) when it reached the server
# within this many ms of the play that took its card; a later one came after the card was
# plainly gone, and is shown as a refused step only (docs/fairness.md).
RACE_WINDOW_MS = 1000
# Which rule settled a race (docs/fairness.md): the order the plays reached the server, or
# on a latency-equalised table (plays received within its window) their estimated sending.
ARRIVAL = "arrival"
EQUALISED = "equalised"


class ReplayError(Exception):
    """The log and the rules disagree: a logged action the rules refuse on replay."""


@dataclass(frozen=True)
class Step:
    """One logged action of a round, with what a spectator learns of it."""

    number: int  # 1.. in the round (0 is the deal)
    seat: int
    name: str
    action: dict[str, Any]
    version: int
    at: datetime
    offset: float  # seconds since the round started
    by_bot: bool
    refused: str  # the refusal's code; "" if applied
    text: str  # who did what, in words (the Board API's: the stored names)
    who: str = ""  # the name a page shows (tables.words.player_name: a bot's worded per reader)
    said: str = ""  # `text` with the names a page shows
    deals_next: bool = False  # this ready dealt the next round (shown in that round's replay)
    why: str = ""  # the refusal in words (a Sentence, worded when the page is drawn)


@dataclass(frozen=True)
class Loss:
    """A play that lost a race: its step, its seat, and how much later than the winner's it
    reached the server (whole ms; None when the log kept no receipt times then)."""

    step: int
    seat: int
    later_ms: int | None


@dataclass(frozen=True)
class Race:
    """A contested moment: the play that took a card (its step and seat, the pile it went
    to) and the plays that wanted the same card and lost, with the rule that settled it."""

    step: int
    seat: int
    card: dict[str, Any]
    pile: int | None
    losses: tuple[Loss, ...]
    rule: str = ARRIVAL


@dataclass
class Replay:
    """A round as a list of steps and the state after each (`states[0]` is the deal)."""

    match: Match
    round: Round
    players: list[Player]
    steps: list[Step]
    states: list[State]
    events: list[list[dict[str, Any]]] = field(default_factory=list)  # per state, as pushed
    races: list[Race] = field(default_factory=list)  # its fairness log (docs/fairness.md)

    @property
    def final_state(self) -> State:
        return self.states[-1]

    @property
    def gaps(self) -> list[float]:
        """Seconds from each step to the next, as recorded (for playing in real time)."""
        offsets = [0.0, *(s.offset for s in self.steps)]
        return [max(b - a, 0.0) for a, b in zip(offsets, offsets[1:], strict=False)]


def available(match: Match, rnd: Round) -> bool:
    """Whether the round may be replayed: it has ended, or its match is over."""
    return rnd.ended_at is not None or match.status != Match.Status.PLAYING


MEMO_SIZE = 16


class Replays(OrderedDict[tuple[int, int, int, int], Replay]):
    """The last MEMO_SIZE replays built, per process (a page asks for one step at a time): the
    live server's part (tables.server). Keyed by the match's version: an ended round can still
    get its players' readies until the next one is dealt."""


def _memo() -> Replays:
    return server.current().part(Replays)


def replay_round(match: Match, number: int) -> Replay:
    """Rebuild round `number` of `match` from the seed and the log (ReplayError if they differ)."""
    memo = _memo()
    key = (match.pk, match.seed, match.version, number)
    if key in memo:
        memo.move_to_end(key)
        return memo[key]
    replay = _build(match, number)
    memo[key] = replay
    while len(memo) > MEMO_SIZE:
        memo.popitem(last=False)
    return replay


def forget(match_ids: set[int]) -> None:
    """Drop this process's replays of these matches (a seat's name changed: social.data)."""
    memo = _memo()
    for key in [key for key in memo if key[0] in match_ids]:
        memo.pop(key, None)


def replay_match(match: Match) -> list[Replay]:
    """Every round of `match`, in order."""
    numbers = match.rounds.order_by("number").values_list("number", flat=True)
    return [replay_round(match, n) for n in numbers]


def _build(match: Match, number: int) -> Replay:
    game = GAMES[match.game]
    players = list(match.players.order_by("seat"))
    rnd = match.rounds.defer("state").get(number=number)
    state = game.new_match(len(players), match.options, match.seed)
    rows = (
        ActionLog.objects.filter(match=match, round__number__lte=number)
        .select_related("round")
        .only(
            "seat",
            "action",
            "version",
            "by_bot",
            "refused",
            "created_at",
            "received",
            "sent",
            "round__number",
        )
        .order_by("version", "pk")
    )
    names = {p.seat: p.name for p in players}
    shown = {p.seat: player_name(p) for p in players}
    mine = []
    for row in rows:
        if row.round.number < number:
            state, _ = _apply(game, state, row, match)  # the rounds before: only to get here
        else:
            mine.append(row)
    states: list[State] = [state]  # the deal of this round, as the ready before it left it
    events: list[list[dict[str, Any]]] = [[]]
    steps: list[Step] = []
    races = Races()
    for row in mine:
        if row.refused:
            races.lost(len(steps) + 1, row, _contested(game, state, row))
        new, evs = _apply(game, state, row, match)
        deals = game.progress(new).round != game.progress(state).round
        steps.append(
            Step(
                number=len(steps) + 1,
                seat=row.seat,
                name=names.get(row.seat, f"seat {row.seat}"),
                action=dict(row.action),
                version=row.version,
                at=row.created_at,
                offset=max((row.created_at - rnd.started_at).total_seconds(), 0.0),
                by_bot=row.by_bot,
                refused=row.refused,
                text=describe(match.game, row.action, names),
                who=shown.get(row.seat, f"seat {row.seat}"),
                said=describe(match.game, row.action, shown),
                deals_next=deals,
                why=game.refusal(row.refused) if row.refused else "",
            )
        )
        # The ready that deals the next round ends this one as it stood (its stored state).
        states.append(state if deals else new)
        events.append([] if deals else evs)
        if not row.refused:
            races.played(len(steps), row, evs)
        state = new
    return Replay(
        match=match,
        round=rnd,
        players=players,
        steps=steps,
        states=states,
        events=events,
        races=races.found(),
    )


def _contested(game: Any, state: State, row: ActionLog) -> Any:
    """What a refused play raced for (`IllegalAction.contested`), judged again on the state
    it was refused on; None for a refusal that names nothing."""
    try:
        game.apply(state, row.seat, row.action)
    except IllegalAction as refusal:
        return refusal.contested
    return None  # the rules take it now: not a race (nothing to say of it)


class Races:
    """The contested moments of a round, found while it is replayed: each refused play is
    matched with the newest earlier play of another seat whose events name what it wanted."""

    def __init__(self) -> None:
        self.plays: list[tuple[int, ActionLog, list[dict[str, Any]]]] = []
        self.races: dict[int, Race] = {}

    def played(self, step: int, row: ActionLog, events: list[dict[str, Any]]) -> None:
        self.plays.append((step, row, events))

    def lost(self, step: int, row: ActionLog, wanted: Any) -> None:
        if wanted is None:
            return
        for won_step, won, events in reversed(self.plays):
            took = [e for e in events if e.get("card") == wanted]
            if won.seat == row.seat or not took:
                continue
            later = None
            rule = ARRIVAL
            if row.received is not None and won.received is not None:
                later = max(0, row.received - won.received) // 1000
                if later > RACE_WINDOW_MS:
                    return  # the card was long gone: no race
                if (
                    row.sent is not None
                    and won.sent is not None
                    and abs(row.received - won.received) <= window_us()
                ):
                    # Ordered by estimated sending: the margin is by it too.
                    rule, later = EQUALISED, max(0, row.sent - won.sent) // 1000
            race = self.races.get(won_step) or Race(
                step=won_step,
                seat=won.seat,
                card=wanted,
                pile=took[0].get("pile"),
                losses=(),
                rule=rule,
            )
            if rule == EQUALISED:
                race = dataclasses.replace(race, rule=EQUALISED)
            loss = Loss(step=step, seat=row.seat, later_ms=later)
            self.races[won_step] = dataclasses.replace(race, losses=(*race.losses, loss))
            return

    def found(self) -> list[Race]:
        return [self.races[step] for step in sorted(self.races)]


def race_summary(replay: Replay) -> list[dict[str, Any]]:
    """Each player's races of the round: won, lost, and the median margin (ms) of the races
    he was in (None without any with receipt times)."""
    rows = []
    for p in replay.players:
        won = [r for r in replay.races if r.seat == p.seat]
        lost = [loss for r in replay.races for loss in r.losses if loss.seat == p.seat]
        margins = [loss.later_ms for r in won for loss in r.losses]
        margins += [loss.later_ms for loss in lost]
        known = [m for m in margins if m is not None]
        rows.append(
            {
                "seat": p.seat,
                "name": p.name,
                "who": player_name(p),
                "won": len(won),
                "lost": len(lost),
                "median_ms": statistics.median(known) if known else None,
            }
        )
    return rows


def _apply(game: Any, state: State, row: ActionLog, match: Match) -> tuple[State, list[Any]]:
    if row.refused:
        return state, []  # refused by the server then: shown, never applied
    try:
        new, events = game.apply(state, row.seat, row.action)
        return fairness.next_deal(game, match.fair_secret, game.progress(state), new), events
    except IllegalAction as refusal:
        raise ReplayError(
            f"match {match.pk} v{row.version}: {row.action} refused on replay ({refusal.code})"
        ) from refusal


# --------------------------------------------------------------------------- showing a step


def table_at(replay: Replay, index: int) -> Table:
    """The table as a spectator saw it after step `index` (0: the deal)."""
    match = copy.copy(replay.match)
    # A replayed moment is never counting down nor closed: its status is the rules' own.
    match.status, match.starts_at = Match.Status.PLAYING, None
    match.version = replay.steps[index - 1].version if index else _first_version(replay)
    players = []
    for p in replay.players:
        p = copy.copy(p)
        # Who was away then is not recorded, and a replay shows no live timer: nobody is away
        # (not even who is away now, whose "a bot plays in … s" would never count).
        p.connections, p.stand_in, p.away_since = 1, False, None
        players.append(p)
    return Table(match=match, players=players, state=replay.states[index], round=replay.round)


def _first_version(replay: Replay) -> int:
    first = replay.steps[0].version if replay.steps else replay.round.version
    return max(first - 1, 1)


_NUMBERED = re.compile(r"-\d+$")


def render_step(replay: Replay, index: int) -> str:
    """The board after step `index`: every public part, drawn from the spectator's view only."""
    table = table_at(replay, index)
    view = table.view(None)
    layout = render.layout_for(replay.match.game)
    events = replay.events[index]
    names = render.outer(layout, layout.public_parts(view))
    # The players' parts ("seat-2", "grid-0", ...) side by side, the shared ones around them.
    seats = [n for n in names if _NUMBERED.search(n)]
    side = [n for n in names if n == "scores"]
    head = [n for n in names if n == "status"]
    middle = [n for n in names if n not in seats and n not in side and n not in head]
    html = [render.render_part(table, view, n, None, events) for n in head]
    html.append('<div class="replay-players">')
    html += [render.render_part(table, view, n, None, events) for n in seats]
    html.append("</div>")
    html += [render.render_part(table, view, n, None, events) for n in middle + side]
    return "".join(html)


# --------------------------------------------------------------------------- words


def describe(game: str, action: dict[str, Any], names: dict[int, str]) -> str:
    """Say what an action did, from the action alone (it is what the seat sent: public): the
    game's words (`Game.describe_action`), `names` naming the seats.

    A Sentence: the English str, kept with its template so that the page words it in its
    reader's language (`say`); a replay is cached for every reader, whatever his language.
    """
    return GAMES[game].describe_action(action, names)


def moves(replay: Replay) -> list[dict[str, Any]]:
    """The round's public move list (Board API): who sent what when, refused ones marked."""
    return [
        {
            "step": s.number,
            "seat": s.seat,
            "name": s.name,
            "bot": s.by_bot,
            "action": s.action,
            "version": s.version,
            "at": s.at.isoformat(),
            "offset": round(s.offset, 3),
            "refused": s.refused or None,
            "text": s.text,
        }
        for s in replay.steps
    ]


def races(replay: Replay) -> list[dict[str, Any]]:
    """The round's fairness log (Board API): every contested moment, who won, by how much."""
    names = {p.seat: p.name for p in replay.players}
    return [
        {
            "step": r.step,
            "seat": r.seat,
            "name": names.get(r.seat, f"seat {r.seat}"),
            "card": r.card,
            "pile": r.pile,
            "rule": r.rule,
            "lost": [
                {
                    "step": loss.step,
                    "seat": loss.seat,
                    "name": names.get(loss.seat, f"seat {loss.seat}"),
                    "later_ms": loss.later_ms,
                }
                for loss in r.losses
            ],
        }
        for r in replay.races
    ]
