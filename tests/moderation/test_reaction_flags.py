"""Reaction-time flags (issue 42): a moderator sees a flagged account with its histogram and
clears it; until then the account is kept out of rated rooms, tournaments, ratings and every
leaderboard."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone, translation

from daily import board as daily_board
from daily import services as daily
from lobby import quickplay
from lobby import services as lobby_services
from moderation import services
from moderation.admin import histogram
from moderation.models import AuditEntry
from tables import history, ratings, reaction, signals
from tables.live import store
from tables.models import Match, Rating, ReactionProfile
from tests.conftest import client_for, make_user
from tests.daily.helpers import at, play_round
from tests.history.factories import played_match
from tests.moderation.helpers import make_moderator
from tests.moderation.test_admin import action_names, run_action
from tournaments import services as tournaments
from tournaments.models import Tournament


@pytest.fixture(autouse=True)
def _flags_on(settings):
    settings.REACTION_FLAGS = True  # off for the other tests' scripted players (tests/settings.py)


pytestmark = pytest.mark.django_db

FLAGS = "/admin/tables/reactionprofile/"


def flag(user, ms: int = 80, plays: int = 40, game: str = "ligretto") -> ReactionProfile:
    """Write `plays` samples of `ms` for `user` as the live rooms do; fast ones flag him."""
    (profile,) = store.write_reactions(game, {user.pk: [ms] * plays})
    return profile


def test_a_fast_account_is_flagged_and_a_human_one_is_not(alice, bob):
    assert flag(alice).flag == ReactionProfile.Flag.FAST
    assert flag(bob, ms=650).flagged_at is None
    assert reaction.held_out(alice) and not reaction.held_out(bob)
    assert reaction.held_among([alice.pk, bob.pk]) == {alice.pk}


def test_the_moderator_sees_the_flag_with_its_histogram_and_clears_it(alice, bob):
    mod = make_moderator("mod")
    flag(alice)
    flag(bob, ms=650)
    page = client_for(mod).get(FLAGS + "?flagged=yes")
    assert page.status_code == 200
    text = page.content.decode()
    assert "alice" in text and "bob" not in text
    assert "Reaction times of 40 plays" in text and '<progress value="40"' in text
    assert "Median reaction inhumanly short" in text
    profile = ReactionProfile.objects.get(user=alice)
    detail = client_for(mod).get(f"{FLAGS}{profile.pk}/change/").content.decode()
    assert "50–100" in detail and '<progress value="40" max="40">' in detail

    done = run_action(client_for(mod), FLAGS, "clear_reaction_flags", [profile], "a fast typist")
    assert done.status_code == 302
    profile.refresh_from_db()
    assert profile.flagged_at is None and profile.cleared_by == mod and profile.count == 0
    assert not reaction.held_out(alice)
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.user, entry.reason) == ("clear_reaction", alice, "a fast typist")
    # Measured afresh: the same timing flags him again.
    assert flag(alice).flagged_at is not None


def test_the_report_queue_shows_the_flagged_accounts_with_their_histograms(alice, bob):
    mod = make_moderator("mod")
    queue = client_for(mod).get("/admin/moderation/report/").content.decode()
    assert 'id="reaction-flags"' not in queue  # nobody flagged: nothing on top
    flag(alice)
    flag(bob, ms=650)
    queue = client_for(mod).get("/admin/moderation/report/").content.decode()
    assert 'id="reaction-flags"' in queue and 'data-username="alice"' in queue
    assert 'data-username="bob"' not in queue
    assert "Reaction times of 40 plays" in queue and "Ligretto" in queue
    profile = ReactionProfile.objects.get(user=alice)
    assert f"/admin/tables/reactionprofile/{profile.pk}/change/" in queue


def test_only_a_moderator_clears_and_only_a_flag(alice, bob):
    profile = flag(alice)
    staffer = make_user("staffer", is_staff=True)
    with pytest.raises(services.ModerationError) as refused:
        services.clear_reaction_flag(profile, staffer, "why not")
    assert refused.value.code == "not_moderator" and reaction.held_out(alice)
    mod = make_moderator("mod")
    with pytest.raises(services.ModerationError) as refused:
        services.clear_reaction_flag(profile, mod, "")
    assert refused.value.code == "reason_required"
    services.clear_reaction_flag(profile, mod, "checked")
    with pytest.raises(services.ModerationError) as refused:
        services.clear_reaction_flag(profile, mod, "again")
    assert refused.value.code == "not_flagged"
    listing = client_for(make_moderator("viewer", is_superuser=False)).get(FLAGS)
    assert "clear_reaction_flags" in action_names(listing)


def test_a_flagged_account_cannot_enter_a_rated_event(alice, bob):
    flag(alice)
    room = lobby_services.create_room(bob, "ligretto", 3)
    with pytest.raises(lobby_services.RoomError) as refused:
        lobby_services.join_room(room.pk, alice)
    assert refused.value.code == "held_out" and refused.value.status == 403
    with pytest.raises(lobby_services.RoomError) as refused:
        lobby_services.create_room(alice, "ligretto", 3)
    assert refused.value.code == "held_out"
    with pytest.raises(lobby_services.RoomError) as refused:
        quickplay.play_now(alice, "ligretto")
    assert refused.value.code == "held_out"
    # Unrated play stays open to him.
    unrated = lobby_services.create_room(bob, "ligretto", 3, rated=False)
    assert lobby_services.join_room(unrated.pk, alice).user == alice
    assert lobby_services.create_room(alice, "ligretto", 3, rated=False).host == alice
    event = Tournament.objects.create(
        game="ligretto-mini",
        seats=2,
        format=Tournament.Format.SWISS,
        rounds=1,
        match_rounds=1,
        creator=bob,
        starts_at=timezone.now() + timedelta(hours=1),
    )
    with pytest.raises(tournaments.TournamentError) as refused:
        tournaments.join(event.pk, alice)
    assert refused.value.code == "held_out"
    assert tournaments.join(event.pk, bob).user == bob


def test_a_flagged_account_is_on_no_leaderboard_and_not_rated(alice, bob, carol):
    signals.match_finished.send(
        sender=Match, match=played_match("ligretto", [alice, bob], [[10, 3]])
    )
    assert {u.username for u, _ in ratings.leaderboard("ligretto")} == {"alice", "bob"}
    assert {s.username for s in history.leaderboard("ligretto")} == {"alice", "bob"}
    flag(alice)
    assert [u.username for u, _ in ratings.leaderboard("ligretto")] == ["bob"]
    assert [s.username for s in history.leaderboard("ligretto")] == ["bob"]
    before = Rating.objects.get(user=alice).mu
    signals.match_finished.send(
        sender=Match, match=played_match("ligretto", [alice, carol], [[10, 3]])
    )
    assert Rating.objects.get(user=alice).mu == before  # held out: not rated meanwhile
    assert Rating.objects.filter(user=carol).exists()


def test_a_flagged_account_is_off_the_daily_challenges_board(alice, bob):
    noon = at("2026-12-05T12:00:00")
    for n, user in enumerate((alice, bob)):
        play_round(daily.play(user, noon).room_id, seed=n)
    day = noon().date()
    assert {r.name for r in daily_board.board(day)} == {"alice", "bob"}
    flag(alice)
    assert [r.name for r in daily_board.board(day)] == ["bob"]


@pytest.mark.parametrize("language", ["de", "ru", "ko"])
def test_the_refusal_and_the_evidence_speak_the_moderators_language(alice, bob, language):
    profile = flag(alice)
    room = lobby_services.create_room(bob, "ligretto", 3)
    with translation.override(language):
        with pytest.raises(lobby_services.RoomError) as refused:
            lobby_services.join_room(room.pk, alice)
        evidence = histogram(profile)
        flag_name = str(ReactionProfile.Flag(profile.flag).label)
    english = "Your account is held out of rated play"
    assert refused.value.message and english not in refused.value.message
    assert "Reaction times of" not in evidence and "40" in evidence
    assert flag_name != "Median reaction inhumanly short"
