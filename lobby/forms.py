from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.http import QueryDict
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from games.engine import IllegalAction
from games.registry import GAMES
from lobby.models import GAME_CHOICES
from lobby.services import RoomError, check_room
from lobby.usernames import validate_username
from tables.words import describe_end_text, refusal_text


class SignupForm(UserCreationForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = _(
            "Letters, digits, _ and - only, from one alphabet. At most 150 characters."
        )

    def clean_username(self) -> str:
        # The field has already stripped and NFKC-normalised the name; Django's own check
        # (case-insensitive uniqueness) runs after ours so its message stays the same.
        validate_username(self.cleaned_data.get("username", ""))
        return super().clean_username()


# The option fields a GET may carry, so the page can say how a match with them ends.
OPTION_NAMES = ("seats", "rounds", "target", "no_target", "row_variant")

# Each game's rounds, in words (rules.md L6, A1).
ROUNDS_HELP = {
    "ligretto-mini": _("How many rounds (default 1)."),
    "ligretto": _("The most rounds (default 10); the match may end sooner at the target."),
    "allegra": _("How many rounds (default 3)."),
}


class RoomForm(forms.Form):
    game = forms.ChoiceField(label=_("Game"), choices=GAME_CHOICES, initial="ligretto")
    seats = forms.IntegerField(
        label=_("Seats"),
        initial=2,
        help_text=_("Ligretto Mini: 2. Ligretto: 2 to 12. Allegra: 2 to 6."),
    )
    rounds = forms.IntegerField(
        label=_("Rounds"), required=False, min_value=1, help_text=ROUNDS_HELP["ligretto"]
    )
    target = forms.IntegerField(
        label=_("Target"),
        required=False,
        min_value=1,
        help_text=_("Points that end the match (default 99)."),
    )
    no_target = forms.BooleanField(
        required=False,
        label=_("No target"),
        help_text=_("Play the rounds out; the highest total wins."),
    )
    row_variant = forms.BooleanField(
        required=False,
        label=_("Descending-row variant"),
        help_text=_("Ligretto family only (rule L16)."),
    )
    private = forms.BooleanField(
        required=False,
        label=_("Private room"),
        help_text=_("Not listed in the lobby: seats and watching only through the invite link."),
    )

    @staticmethod
    def initial_from(query: QueryDict) -> dict[str, Any]:
        """Return initial values from a GET, so a re-rendered form keeps what was typed."""
        initial: dict[str, Any] = {"game": query.get("game", "ligretto")}
        initial.update({name: query[name] for name in OPTION_NAMES if query.get(name)})
        return initial

    def _raw_options(self, values: dict[str, Any]) -> dict[str, Any]:
        """Return the options a host asked for, as the rules take them."""
        options: dict[str, Any] = {}
        if values.get("rounds") not in (None, ""):
            options["rounds"] = values["rounds"]
        # L6+: "no target" wins over a number typed before it was ticked.
        if values.get("no_target"):
            options["target"] = None
        elif values.get("target") not in (None, ""):
            options["target"] = values["target"]
        if values.get("row_variant"):
            options["row_variant"] = True
        return options

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        game, seats = data.get("game"), data.get("seats")
        if game is None or seats is None:
            return data
        try:
            data["options"] = check_room(game, seats, self._raw_options(data))
        except RoomError as refusal:
            field = "seats" if refusal.code == "invalid_seats" else None
            self.add_error(field, refusal.message)
        return data

    # Which option fields a game takes (rules.md L6, L16, A1); the page shows only these.
    GAME_FIELDS = {
        "ligretto-mini": ("rounds", "row_variant"),
        "ligretto": ("target", "no_target", "rounds", "row_variant"),
        "allegra": ("rounds",),
    }

    def fields_for(self, game: str) -> list[forms.BoundField]:
        """Return the bound option fields that `game` takes."""
        if game in ROUNDS_HELP:
            self.fields["rounds"].help_text = ROUNDS_HELP[game]
        return [self[name] for name in self.GAME_FIELDS.get(game, ())]

    @staticmethod
    def seat_limits(game: str) -> tuple[int, int]:
        info = GAMES.get(game) or GAMES["ligretto"]
        return info.min_seats, info.max_seats

    def match_end(self) -> str:
        """Say in words how a match with the values now in the form ends (L6, L6+, A1)."""
        if self.is_bound:
            values: dict[str, Any] = {name: self.data.get(name) for name in self.fields}
        else:
            values = {name: self.initial.get(name) for name in self.fields}
        game = values.get("game") if values.get("game") in GAMES else "ligretto"
        options = self._raw_options(values)
        # Typed text arrives as strings: whole numbers become ints, anything else is left for
        # the rules to refuse in their own words.
        for name in ("rounds", "target"):
            if isinstance(options.get(name), str) and options[name].strip().lstrip("-").isdigit():
                options[name] = int(options[name])
        if game == "allegra":
            options.pop("row_variant", None)
        info = GAMES[game]
        try:
            # The seat count does not change how a match ends: judge the options alone.
            checked = info.check_options(info.min_seats, options)
        except IllegalAction as refusal:
            return refusal_text(refusal)
        if game == "allegra":
            rounds = checked["rounds"]
            if rounds == 1:
                return gettext("One round; the lowest score wins.")
            return ngettext(
                "A fixed %(rounds)d round; the lowest total wins.",
                "A fixed %(rounds)d rounds; the lowest total wins.",
                rounds,
            ) % {"rounds": rounds}
        return describe_end_text(checked)
