"""Ratings per game: OpenSkill's Plackett-Luce model over a match's final ranking (2-12 seats).

A finished match with at least two humans moves its humans' ratings in the transaction that
finished it (the lobby calls `rate_match` from its `match_finished` receiver, unless the room
was created unrated; a closed match never finishes, so it is never rated). Bots take part with
fixed ratings per level and never change; a human's change in a match with bots is halved. A
player who left for good ranks last. Shown as `display(mu)`: 1500 for a newcomer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Sum
from openskill.models import PlackettLuce

from games.registry import pace_of
from tables import guests, reaction
from tables.history import lowest_wins
from tables.models import Match, Player, Rating, RatingChange, RoundScore

MODEL = PlackettLuce()
START_MU, START_SIGMA = MODEL.mu, MODEL.sigma
SCALE = 1500 / START_MU  # shown ratings: 1500 for a newcomer, as players are used to
BOT_SHARE = 0.5  # a match against bots moves a human's rating half as much


@dataclass(frozen=True)
class Shown:
    """A rating as pages show it: a whole number, "?" while it is provisional."""

    value: int
    provisional: bool
    matches: int = 0

    def __str__(self) -> str:
        return f"{self.value}{'?' if self.provisional else ''}"


def display(mu: float) -> int:
    return round(mu * SCALE)


def shown(rating: Rating | None) -> Shown:
    """How `rating` is shown (a newcomer's when None)."""
    if rating is None:
        return Shown(display(START_MU), True, 0)
    provisional = rating.matches < settings.RATING_PROVISIONAL_MATCHES
    return Shown(display(rating.mu), provisional, rating.matches)


def bot_rating(level: str) -> tuple[float, float]:
    """The fixed (mu, sigma) of a bot of `level` (settings.BOT_RATINGS)."""
    levels = settings.BOT_RATINGS
    return tuple(levels.get(level) or levels["normal"])  # type: ignore[return-value]


def ranks(game: str, players: list[Player], totals: dict[int, int]) -> dict[int, int]:
    """Seat -> rank (1 best, ties share) by final total under the game's rule; leavers last."""
    sign = 1 if lowest_wins(game) else -1

    def key(p: Player) -> tuple[int, int]:
        return (1 if p.left else 0, sign * totals.get(p.seat, 0))

    ordered = sorted(players, key=key)
    result: dict[int, int] = {}
    for i, p in enumerate(ordered):
        if i and key(p) == key(ordered[i - 1]):
            result[p.seat] = result[ordered[i - 1].seat]
        else:
            result[p.seat] = i + 1
    return result


def rating_key(game: str, options: dict[str, Any] | None) -> str:
    """The key a match's ratings are kept under: its game's slug, with the pace of a paced
    table after it ("<slug>@1.5"): paced players are rated among themselves."""
    pace = pace_of(options)
    return f"{game}@{pace:g}" if pace else game


def game_of_key(key: str) -> str:
    """The game slug of a rating key."""
    return key.partition("@")[0]


def pace_of_key(key: str) -> float:
    """The pace of a rating key (0: not paced)."""
    return float(key.partition("@")[2] or 0)


def rate_match(match: Match) -> list[RatingChange]:
    """Rate a match that just finished (inside its transaction); [] when it is not rated."""
    if match.status != Match.Status.FINISHED:
        return []
    players = list(match.players.order_by("seat"))
    humans = [p for p in players if p.user_id is not None]
    if len(humans) < 2 or RatingChange.objects.filter(match=match).exists():
        return []
    totals = dict(
        RoundScore.objects.filter(round__match=match)
        .values("seat")
        .annotate(total=Sum("points"))
        .values_list("seat", "total")
    )
    order = ranks(match.game, players, totals)
    key = rating_key(match.game, match.options)
    # Every human's row exists first (a newcomer's at the start), then all are locked in one
    # order: two matches finishing at once with a player in common neither clash on the
    # insert nor wait on each other's locks the other way round.
    ids = sorted({p.user_id for p in humans if p.user_id is not None})
    Rating.objects.bulk_create(
        [Rating(user_id=uid, game=key, mu=START_MU, sigma=START_SIGMA) for uid in ids],
        ignore_conflicts=True,
    )
    current = {
        r.user_id: r
        for r in Rating.objects.select_for_update()
        .filter(game=key, user_id__in=ids)
        .order_by("user_id")
    }
    teams = []
    for p in players:
        if p.user_id is None:
            mu, sigma = bot_rating(p.bot_level)
        else:
            mu, sigma = current[p.user_id].mu, current[p.user_id].sigma
        teams.append([MODEL.rating(mu=mu, sigma=sigma)])
    rated = MODEL.rate(teams, ranks=[order[p.seat] for p in players])
    share = BOT_SHARE if len(humans) < len(players) else 1.0
    changes = []
    held = reaction.held_among(ids)  # flagged by their reaction times: not rated meanwhile
    for p, before, after in zip(players, teams, rated, strict=True):
        if p.user_id is None or p.user_id in held:
            continue  # a bot's rating is fixed
        old, new = before[0], after[0]
        mu = old.mu + share * (new.mu - old.mu)
        sigma = old.sigma + share * (new.sigma - old.sigma)
        rating = current[p.user_id]
        rating.mu, rating.sigma, rating.matches = mu, sigma, rating.matches + 1
        rating.save()
        changes.append(
            RatingChange(
                match=match,
                user_id=p.user_id,
                game=key,
                rank=order[p.seat],
                mu_before=old.mu,
                sigma_before=old.sigma,
                mu_after=mu,
                sigma_after=sigma,
            )
        )
    return RatingChange.objects.bulk_create(changes)


# --------------------------------------------------------------------------- reading


def ratings_of(user_ids: list[int], game: str) -> dict[int, Shown]:
    """user id -> his shown rating in `game` (newcomers too), in one query."""
    found = {
        r.user_id: r for r in Rating.objects.filter(game=game, user_id__in=list(set(user_ids)))
    }
    return {uid: shown(found.get(uid)) for uid in user_ids}


def player_ratings(user: Any) -> list[tuple[str, Shown, list[int]]]:
    """Per game he is rated in: the slug, his rating, and his shown rating after each match."""
    rows = RatingChange.objects.filter(user=user).values_list("game", "mu_after")
    history: dict[str, list[int]] = {}
    for game, mu in rows:
        history.setdefault(game, []).append(display(mu))
    ratings = {r.game: r for r in Rating.objects.filter(user=user)}
    return [(game, shown(ratings.get(game)), history.get(game, [])) for game in ratings]


def leaderboard(game: str, limit: int = 50) -> list[tuple[Any, Shown]]:
    """The best rated people in `game`: (user, shown rating), highest first."""
    rows = (
        Rating.objects.filter(game=game, user__is_active=True)
        .exclude(user__groups__name=guests.GROUP)  # guests are never listed
        .exclude(user__in=reaction.held_out_users())  # nor accounts held out of rated play
        .select_related("user")
        .order_by("-mu", "sigma", "user__username")[:limit]
    )
    return [(r.user, shown(r)) for r in rows]
