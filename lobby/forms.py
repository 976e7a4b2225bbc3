from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.http import QueryDict
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.engine import IllegalAction
from games.registry import BOT_SPEEDS, DEFAULT_GAME, GAMES, PACES, Game
from lobby.models import game_choices
from lobby.services import RoomError, check_room
from lobby.usernames import GUEST_PREFIX, validate_username
from tables.live import stream
from tables.words import describe_end_text, game_name, refusal_text, seats_in_words


class SignupForm(UserCreationForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = _(
            "Letters, digits, _ and - only, from one alphabet. At most 150 characters."
        )

    def clean_username(self) -> str:
        # The field has already stripped and NFKC-normalised the name; Django's own check
        # (case-insensitive uniqueness) runs after ours so its message stays the same.
        name = self.cleaned_data.get("username", "")
        validate_username(name)
        if name.casefold().startswith(GUEST_PREFIX):
            raise forms.ValidationError(
                _("Names that begin with “guest-” are kept for guests; choose another."),
                code="invalid_username",
            )
        return super().clean_username()


# The option fields a GET may carry, so the page can say how a match with them ends.
OPTION_NAMES = ("seats", "rounds", "target", "no_target", "best_of", "row_variant", "clock")


def _game(slug: Any) -> Game:
    """The registered game `slug` names, or the default one for anything else."""
    return GAMES[slug] if isinstance(slug, str) and slug in GAMES else GAMES[DEFAULT_GAME]


def _seats_help() -> str:
    # In the reader's language: the game's name and its seat counts ("2 bis 6").
    return " ".join(f"{game_name(slug)}: {seats_in_words(game)}." for slug, game in GAMES.items())


def _pace_choices() -> list[tuple[str, str]]:
    # Read when a form is built: the words follow the request's language.
    return [("", gettext("Not paced"))] + [
        (f"{p:g}", gettext("%(seconds)s s between one player’s plays") % {"seconds": f"{p:g}"})
        for p in PACES
    ]


class RoomForm(forms.Form):
    # Choices and words come from the registry, read when a form is built, so a game
    # registered at start-up (EXTRA_GAMES) is offered like the site's own.
    game = forms.ChoiceField(label=_("Game"), choices=game_choices, initial=DEFAULT_GAME)
    seats = forms.IntegerField(label=_("Seats"), initial=2)
    rounds = forms.IntegerField(label=_("Rounds"), required=False, min_value=1)
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
    # The words under these are the game's (`Game.field_help`), set when a game is chosen.
    best_of = forms.IntegerField(label=_("Best of"), required=False, min_value=3)
    row_variant = forms.BooleanField(required=False, label=_("Descending-row variant"))
    clock = forms.IntegerField(label=_("Clock"), required=False, min_value=0)
    # A paced table (issue 41): the site's options, offered for every game.
    pace = forms.TypedChoiceField(
        label=_("Pace"),
        required=False,
        coerce=float,
        empty_value=None,
        choices=_pace_choices,
        help_text=_(
            "A paced table: a play made sooner than this after your last one waits for its "
            "turn. Paced tables have ratings of their own."
        ),
    )
    bot_speed = forms.TypedChoiceField(
        label=_("Bot speed"),
        required=False,
        coerce=float,
        empty_value=None,
        choices=[(f"{s:g}", f"{s:g}×") for s in reversed(BOT_SPEEDS)],
        help_text=_("On a paced table, bots play at this fraction of their usual speed."),
    )
    # Latency equalisation (issue 42, docs/fairness.md): the site's option, for every game.
    equalise = forms.BooleanField(
        required=False,
        label=_("Latency equalisation"),
        help_text=_(
            "Plays that reach the server within 40 ms of each other are ordered by when they "
            "were sent, as the server estimates it from each connection's measured delay."
        ),
    )
    private = forms.BooleanField(
        required=False,
        label=_("Private room"),
        help_text=_("Not listed in the lobby: seats and watching only through the invite link."),
    )
    # Ticked to opt out: a room is rated unless its host says otherwise.
    unrated = forms.BooleanField(
        required=False,
        label=_("Unrated"),
        help_text=_("The match moves nobody's rating."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["seats"].help_text = _seats_help()
        self._help_for(_game(DEFAULT_GAME))

    def _help_for(self, info: Game) -> None:
        # The words under a game's option fields are its own (Mini has no target by default).
        for name in info.option_fields:
            words = info.field_help(name)
            if words and name in self.fields:
                self.fields[name].help_text = gettext(words)

    @staticmethod
    def initial_from(query: QueryDict) -> dict[str, Any]:
        """Return initial values from a GET, so a re-rendered form keeps what was typed."""
        initial: dict[str, Any] = {"game": query.get("game", DEFAULT_GAME)}
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
        if values.get("best_of") not in (None, ""):
            options["best_of"] = values["best_of"]
        if values.get("row_variant"):
            options["row_variant"] = True
        if values.get("clock") not in (None, ""):
            options["clock"] = values["clock"]
        if values.get("pace") not in (None, "", 0, 0.0):
            options["pace"] = values["pace"]
            options["bot_speed"] = values.get("bot_speed") or 1.0
        if values.get("equalise"):
            options["equalise"] = True
        return options

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        game, seats = data.get("game"), data.get("seats")
        if game is None or seats is None:
            return data
        try:
            data["options"] = check_room(game, seats, self._raw_options(data))
        except RoomError as refusal:
            field = "seats" if refusal.code == "invalid_seats" else None
            self.add_error(field, refusal.message)
        return data

    def fields_for(self, game: str) -> list[forms.BoundField]:
        """Return the bound option fields that `game` takes (its registry entry says which)."""
        info = _game(game)
        self._help_for(info)
        return [self[name] for name in info.option_fields]

    @staticmethod
    def seat_limits(game: str) -> tuple[int, int]:
        info = _game(game)
        return info.min_seats, info.max_seats

    def match_end(self) -> str:
        """Say in words how a match with the values now in the form ends (the game's words)."""
        if self.is_bound:
            values: dict[str, Any] = {name: self.data.get(name) for name in self.fields}
        else:
            values = {name: self.initial.get(name) for name in self.fields}
        info = _game(values.get("game"))
        # Only the options this game takes: a box ticked for another game before the switch
        # does not change how this one ends.
        takes = set(info.option_fields) | (
            {"target"} if "no_target" in info.option_fields else set()
        )
        options = {k: v for k, v in self._raw_options(values).items() if k in takes}
        # Typed text arrives as strings: whole numbers become ints, anything else is left for
        # the rules to refuse in their own words.
        for name in ("rounds", "target", "best_of", "clock"):
            # ASCII digits only: "²" is a digit to str.isdigit but no number to int().
            value = options.get(name)
            text = value.strip() if isinstance(value, str) else None
            number = stream.ascii_int(text, -999999, 9999999)
            if number is not None:
                options[name] = number
        try:
            # The seat count does not change how a match ends: judge the options alone.
            checked = info.check_options(info.min_seats, options)
        except IllegalAction as refusal:
            return refusal_text(refusal)
        return describe_end_text(info, checked)
