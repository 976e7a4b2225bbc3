from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm

from games.registry import GAMES
from lobby.models import GAME_CHOICES
from lobby.services import RoomError, check_room


class SignupForm(UserCreationForm):
    pass


class RoomForm(forms.Form):
    game = forms.ChoiceField(choices=GAME_CHOICES, initial="ligretto")
    seats = forms.IntegerField(
        initial=2, help_text="Ligretto Mini: 2. Ligretto: 2 to 12. Allegra: 2 to 6."
    )
    rounds = forms.IntegerField(
        required=False,
        min_value=1,
        help_text="A fixed number of rounds (default: 1 for Ligretto Mini, 3 for Allegra; "
        "Ligretto plays to a target instead).",
    )
    target = forms.IntegerField(
        required=False, min_value=1, help_text="Ligretto only: points to win (default 99)."
    )
    row_variant = forms.BooleanField(
        required=False,
        label="Descending-row variant",
        help_text="Ligretto family only (rule L16).",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        game, seats = data.get("game"), data.get("seats")
        if game is None or seats is None:
            return data
        options: dict[str, Any] = {}
        if data.get("rounds") is not None:
            options["rounds"] = data["rounds"]
        if data.get("target") is not None:
            options["target"] = data["target"]
        if data.get("row_variant"):
            options["row_variant"] = True
        try:
            data["options"] = check_room(game, seats, options)
        except RoomError as refusal:
            field = "seats" if refusal.code == "invalid_seats" else None
            self.add_error(field, refusal.message)
        return data

    # Which option fields a game takes (rules.md L6, L16, A1); the page shows only these.
    GAME_FIELDS = {
        "ligretto-mini": ("rounds", "row_variant"),
        "ligretto": ("rounds", "target", "row_variant"),
        "allegra": ("rounds",),
    }

    def fields_for(self, game: str) -> list[forms.BoundField]:
        """Return the bound option fields that `game` takes."""
        return [self[name] for name in self.GAME_FIELDS.get(game, ())]

    @staticmethod
    def seat_limits(game: str) -> tuple[int, int]:
        info = GAMES.get(game) or GAMES["ligretto"]
        return info.min_seats, info.max_seats
