"""Allegra bots (G3): "easy" and "normal", choosing from a player's view only (A5-A9), pure.
They read `player_view` plus `"seat"`, never the state, and answer through the same validation."""

from __future__ import annotations

import random
from typing import Any

LEVELS = ("easy", "normal")

H = "h"  # a face-down card in the bot's model of the table; None is an empty place
UNKNOWN = 5.0  # the mean card of the A2 deck (600 / 120)

Place = tuple[int, int, int]
Grid = list[list[list[Any]]]


def choose(
    view: dict[str, Any], level: str, rng: random.Random
) -> tuple[dict[str, Any] | None, float]:
    """Return the next action for `view["seat"]` (None: nothing to do) and a delay in seconds."""
    legal = view.get("legal") or []
    if not legal:
        return None, 0.0
    bot = _Bot(view, rng)
    action = bot.easy() if level == "easy" else bot.normal()
    if action is None:
        return None, 0.0
    base = 1.5 if level == "easy" else 1.0
    if action["type"] == "knock":
        base *= 0.6  # a knock is a reflex, quicker than a decision
    elif action["type"] == "ready":
        base *= 0.5
    return action, round(base * rng.uniform(0.7, 1.4), 3)


def _key(p: dict[str, int]) -> Place:
    return (p["seat"], p["row"], p["col"])


def _pd(p: Place | None) -> dict[str, int]:
    assert p is not None  # a best place exists whenever the bot has places to choose from
    return {"seat": p[0], "row": p[1], "col": p[2]}


class _Bot:
    """One decision: the view turned into a small model of the table."""

    def __init__(self, view: dict[str, Any], rng: random.Random) -> None:
        self.view = view
        self.rng = rng
        self.me: int = view["seat"]
        self.legal: list[dict[str, Any]] = view["legal"]
        self.g: Grid = [
            [
                [(H if c.get("hidden") else c["value"]) if c else None for c in row]
                for row in gr["cells"]
            ]
            for gr in view["grids"]
        ]
        self.rows: dict[int, list[list[Place]]] = {
            a["seat"]: [[_key(p) for p in row] for row in a["places"]] for a in view["areas"]
        }
        self.kinds = {a["type"] for a in self.legal}

    # -- the model -----------------------------------------------------------------------------

    def at(self, p: Place) -> Any:
        return self.g[p[0]][p[1]][p[2]]

    def put(self, p: Place, v: Any) -> None:
        self.g[p[0]][p[1]][p[2]] = v

    def cost(self, seat: int) -> float:
        """Estimate `seat`'s area sum, removing the triples the model shows."""
        rows = self.rows[seat]
        g = self.g
        vals = [[g[s][r][c] for (s, r, c) in row] for row in rows]
        marked: set[tuple[int, int]] = set()
        for r, row in enumerate(vals):
            for k in range(3):
                a, b, c = row[k], row[k + 1], row[k + 2]
                if type(a) is int and a == b == c:
                    marked.update(((r, k), (r, k + 1), (r, k + 2)))
        for col in range(5):
            a, b, c = vals[0][col], vals[1][col], vals[2][col]
            if type(a) is int and a == b == c:
                marked.update(((0, col), (1, col), (2, col)))
        total = 0.0
        for r, row in enumerate(vals):
            for col, v in enumerate(row):
                if v is None or (r, col) in marked:
                    continue
                total += UNKNOWN if v == H else v
        return total

    def hidden_left(self, seat: int) -> int:
        return sum(1 for row in self.rows[seat] for p in row if self.at(p) == H)

    def risk(self, seat: int) -> float:
        """Return the expected doubling cost if `seat` ended the round now."""
        if self.view.get("ender") is not None or self.hidden_left(seat):
            return 0.0
        mine = self.cost(seat)
        others = min(self.cost(s) for s in self.rows if s != seat)
        return mine if mine > 0 and mine > others - 1 else 0.0

    def score_after_swap(self, seat: int, p: Place, value: Any, hidden: int | None = None) -> float:
        """Return the estimated cost of `seat`'s area with `value` at `p` (doubling risk added)."""
        if hidden is None:
            hidden = self.hidden_left(seat)
        old = self.at(p)
        self.put(p, value)
        c = self.cost(seat)
        # Only a move that turns the last face-down card can end the round.
        if hidden - (old == H) <= 0:
            c += self.risk(seat)
        self.put(p, old)
        return c

    def best_swap(self, seat: int, value: int, places: list[Place]) -> tuple[float, Place | None]:
        """Return (gain, place) of the best swap of `value` into one of `places`."""
        base = self.cost(seat)
        hidden = self.hidden_left(seat)
        best: tuple[float, Place | None] = (float("-inf"), None)
        for p in places:
            gain = base - self.score_after_swap(seat, p, value, hidden)
            gain += self.rng.random() * 1e-3  # break ties without a bias to the first place
            if gain > best[0]:
                best = (gain, p)
        return best

    def places_of(self, kind: str, key: str = "place") -> list[Place]:
        return [_key(a[key]) for a in self.legal if a["type"] == kind]

    def own_area_places(self) -> list[Place]:
        return [p for row in self.rows[self.me] for p in row if self.at(p) is not None]

    # -- normal -------------------------------------------------------------------------------

    def normal(self) -> dict[str, Any] | None:
        v = self.view
        if "ready" in self.kinds:
            return {"type": "ready"}
        if "knock" in self.kinds:
            return self.maybe_knock()
        if v["phase"] == "opening":
            return self.opening_reveal()
        if "draw" in self.kinds:
            return self.draw_normal()
        if "place" in self.kinds:
            _, p = self.best_swap(self.me, v["drawn"]["value"], self.places_of("place"))
            return {"type": "place", "place": _pd(p)}
        if "take" in self.kinds:
            return self.take_normal()
        if "swap" in self.kinds:
            return self.decide_normal()
        if "reveal" in self.kinds:
            return self.reveal_normal()
        return None

    def opening_reveal(self) -> dict[str, Any]:
        # Own columns 0-2 belong to nobody else, so what they show helps only this seat.
        places = self.places_of("reveal")
        private = [p for p in places if p[0] == self.me and p[2] < 3]
        return {"type": "reveal", "place": _pd(self.rng.choice(private or places))}

    def draw_normal(self) -> dict[str, Any]:
        top = self.view["discard_top"]
        sources = {a["source"] for a in self.legal if a["type"] == "draw"}
        if top is not None and "discard" in sources:
            gain, _ = self.best_swap(self.me, top["value"], self.own_area_places())
            if gain >= 4 or (top["value"] <= 2 and gain > 1) or "deck" not in sources:
                return {"type": "draw", "source": "discard"}
        return {"type": "draw", "source": "deck"}

    def decide_normal(self) -> dict[str, Any]:
        drawn = self.view["drawn"]["value"]
        gain, p = self.best_swap(self.me, drawn, self.places_of("swap"))
        gives = [a["to"] for a in self.legal if a["type"] == "give"]
        if gives:
            k, take_gain = self.best_give(gives)
            # Giving also hands the knocker a good card; count that against the take.
            if take_gain - max(0.0, UNKNOWN - drawn) / 2 > max(gain, 0.0) + 1:
                return {"type": "give", "to": k}
        # Discarding forces a reveal; if the last face-down card would end the round badly,
        # a swap is safer.
        if (
            "discard" in self.kinds
            and gain < 1.5
            and (self.hidden_left(self.me) > 1 or self.reveal_risk() <= max(0.0, -gain))
        ):
            return {"type": "discard"}
        return {"type": "swap", "place": _pd(p)}

    def reveal_risk(self) -> float:
        hidden = [p for row in self.rows[self.me] for p in row if self.at(p) == H]
        if len(hidden) != 1:
            return 0.0
        return self.score_after_swap(self.me, hidden[0], int(UNKNOWN)) - self.cost(self.me)

    def best_give(self, knockers: list[int]) -> tuple[int, float]:
        mine = {p for row in self.rows[self.me] for p in row}
        targets = self.own_area_places()
        best = (knockers[0], float("-inf"))
        gains: dict[int, float] = {}  # the gain depends only on the value taken
        for k in knockers:
            froms = [
                p for row in self.rows[k] for p in row if p not in mine and self.at(p) is not None
            ]
            for f in froms:
                v = self.at(f)
                value = int(UNKNOWN) if v == H else v
                if value not in gains:
                    gains[value] = self.best_swap(self.me, value, targets)[0]
                gain = gains[value]
                if gain > best[1]:
                    best = (k, gain)
        return best

    def take_normal(self) -> dict[str, Any]:
        base = self.cost(self.me)
        hidden = self.hidden_left(self.me)
        best: tuple[float, dict[str, Any] | None] = (float("-inf"), None)
        for a in self.legal:
            f, t = _key(a["from"]), _key(a["to"])
            v = self.at(f)
            value = int(UNKNOWN) if v == H else v
            gain = base - self.score_after_swap(self.me, t, value, hidden)
            # Prefer robbing the knocker of a low card when the gain is the same.
            gain += (11 - value) * 0.01 + self.rng.random() * 1e-3
            if gain > best[0]:
                best = (gain, a)
        assert best[1] is not None
        return best[1]

    def reveal_normal(self) -> dict[str, Any]:
        places = self.places_of("reveal")

        # A card in a column or row next to face-up pairs may complete a triple: reveal those
        # first; otherwise prefer private places.
        def score(p: Place) -> float:
            s = 0.0
            if p[0] == self.me and p[2] < 3:
                s += 1
            return s + self.rng.random()

        return {"type": "reveal", "place": _pd(max(places, key=score))}

    def maybe_knock(self) -> dict[str, Any] | None:
        drawn = self.view["drawn"]["value"]
        gain, _ = self.best_swap(self.me, drawn, self.own_area_places())
        # The active player then takes one of my cards, so knock only for a clear win.
        if gain >= 7 or (drawn <= 0 and gain >= 5):
            return {"type": "knock"}
        return None

    # -- easy ---------------------------------------------------------------------------------

    def easy(self) -> dict[str, Any] | None:
        v = self.view
        rng = self.rng
        if "ready" in self.kinds:
            return {"type": "ready"}
        if "knock" in self.kinds:
            drawn = v["drawn"]["value"]
            return {"type": "knock"} if drawn <= 0 and rng.random() < 0.3 else None
        if "reveal" in self.kinds:
            return {"type": "reveal", "place": _pd(rng.choice(self.places_of("reveal")))}
        if "draw" in self.kinds:
            top = v["discard_top"]
            sources = {a["source"] for a in self.legal if a["type"] == "draw"}
            take = top is not None and top["value"] <= 3 and rng.random() < 0.8
            if "discard" in sources and (take or "deck" not in sources):
                return {"type": "draw", "source": "discard"}
            return {"type": "draw", "source": "deck"}
        if "place" in self.kinds:
            return {"type": "place", "place": _pd(self.worst(self.places_of("place")))}
        if "take" in self.kinds:
            return rng.choice(self.legal)
        if "swap" in self.kinds:
            drawn = v["drawn"]["value"]
            places = self.places_of("swap")
            worst = self.worst(places)
            worst_v = self.at(worst)
            if type(worst_v) is int and worst_v > drawn:
                return {"type": "swap", "place": _pd(worst)}
            hidden = [p for p in places if self.at(p) == H]
            if drawn <= 4 and hidden:
                return {"type": "swap", "place": _pd(rng.choice(hidden))}
            if "discard" in self.kinds:
                return {"type": "discard"}
            return {"type": "swap", "place": _pd(worst if type(worst_v) is int else places[0])}
        return None

    def worst(self, places: list[Place]) -> Place:
        """Return the place with the highest face-up card (a random one if none is face up)."""
        up = [p for p in places if type(self.at(p)) is int]
        if not up:
            return self.rng.choice(places)
        return max(up, key=lambda p: (self.at(p), self.rng.random()))
