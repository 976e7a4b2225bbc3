"""Tournament pages: the list and create form, an event's page, the lobby's and the player
page's sections (loaded by htmx from here: lobby/ is below this app and never imports it)."""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from games.registry import GAMES
from tables.words import game_name
from tournaments import describe, scheduler, services
from tournaments.models import Tournament, TournamentTable


class TournamentForm(forms.Form):
    game = forms.ChoiceField(label=_("Game"), choices=[])
    seats = forms.IntegerField(label=_("Seats at a table"), min_value=2, initial=4)
    format = forms.ChoiceField(label=_("Format"), choices=Tournament.Format.choices)
    rounds = forms.IntegerField(label=_("Rounds (Swiss)"), min_value=1, required=False, initial=3)
    minutes = forms.IntegerField(label=_("Minutes (Arena)"), min_value=1, required=False)
    duplicate = forms.BooleanField(
        label=_("Duplicate deals"),
        required=False,
        help_text=_(
            "Swiss: every table of a round plays the same deals. Arena: each table plays a deal"
            " from a pool, never one a player held before."
        ),
    )
    private = forms.BooleanField(label=_("Private (invite link)"), required=False)
    starts_in = forms.IntegerField(label=_("Starts in (minutes)"), min_value=0, initial=5)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        game = self.fields["game"]
        assert isinstance(game, forms.ChoiceField)
        game.choices = [(slug, game_name(slug)) for slug in GAMES]


def index(request: HttpRequest) -> HttpResponse:
    scheduler.run_due()  # what a lost timer (a restart) left due
    form = TournamentForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect("login")
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            swiss = data["format"] == Tournament.Format.SWISS
            try:
                t = services.create(
                    request.user,
                    data["game"],
                    data["seats"],
                    data["format"],
                    rounds=data["rounds"] if swiss else None,
                    minutes=None if swiss else data["minutes"],
                    duplicate=data["duplicate"],
                    private=data["private"],
                    starts_in=data["starts_in"] * 60,
                )
            except services.TournamentError as refusal:
                form.add_error(None, refusal.message)
                status = refusal.status
            else:
                return redirect("tournaments:page", t.pk)
    context = {"form": form, "tournaments": [describe.summary(t) for t in services.listed()]}
    return render(request, "tournaments/index.html", context, status=status)


def page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    scheduler.run_due()
    invite = request.GET.get("invite")
    try:
        t = services.get_visible(tournament_id, request.user, invite)
    except services.TournamentError:
        return render(request, "404.html", status=404)
    if invite:  # the page's socket reads it (a private event's invite link)
        request.session[f"tournament-invite-{tournament_id}"] = invite
    context = {"t": describe.detail(t, request.user), "invite": invite or ""}
    template = (
        "tournaments/page.html#live"
        if request.headers.get("HX-Request")
        else "tournaments/page.html"
    )
    return render(request, template, context)


@login_required
@require_POST
def join(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _entry_change(request, tournament_id, services.join, request.POST.get("invite"))


@login_required
@require_POST
def withdraw(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _entry_change(request, tournament_id, services.withdraw)


def _entry_change(
    request: HttpRequest, tournament_id: int, change: Callable[..., object], *args: object
) -> HttpResponse:
    """Join or withdraw; htmx gets the page's live part again (with the refusal, if any)."""
    refusal = ""
    try:
        change(tournament_id, request.user, *args)
    except services.TournamentError as refused:
        refusal = refused.message
        if not request.headers.get("HX-Request"):
            messages.error(request, refusal)
    if not request.headers.get("HX-Request"):
        return redirect("tournaments:page", tournament_id)
    t = get_object_or_404(Tournament, pk=tournament_id)
    context = {"t": describe.detail(t, request.user), "refusal": refusal}
    return render(request, "tournaments/page.html#live", context)


def event_of_room(request: HttpRequest, room_id: int) -> HttpResponse:
    """The tournament page of a tournament table's room (its players go back there when the
    match ends, static/js/table.js); `{"url": null}` for any other room, which every finished
    table asks: a 404 there would put an error in every player's console."""
    table = TournamentTable.objects.filter(room_id=room_id).select_related("tournament").first()
    if table is None or not services.may_see(table.tournament, request.user):
        return JsonResponse({"url": None})
    return JsonResponse({"url": reverse("tournaments:page", args=[table.tournament_id])})
