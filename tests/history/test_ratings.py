"""Ratings: OpenSkill's Plackett-Luce per game, moved when a rated match with two humans ends."""

from __future__ import annotations

import random

import pytest

from lobby.models import Room
from tables import play, ratings, signals
from tables.driver import MatchBots
from tables.models import Match, Rating, RatingChange
from tests.conftest import make_user
from tests.history.factories import played_match
from tests.tables.helpers import started_room


def _finish(match: Match) -> None:
    """What the write path does when a match ends: the signal, inside a transaction."""
    signals.match_finished.send(sender=Match, match=match)


def _mu(user, game: str = "ligretto") -> float:
    return Rating.objects.get(user=user, game=game).mu


@pytest.mark.django_db
def test_the_winner_goes_up_and_the_loser_down(alice, bob):
    _finish(played_match("ligretto", [alice, bob], [[10, 3], [5, 4]]))
    assert _mu(alice) > ratings.START_MU > _mu(bob)
    change = RatingChange.objects.get(user=alice)
    assert change.rank == 1 and change.mu_before == ratings.START_MU
    assert RatingChange.objects.get(user=bob).rank == 2
    # Allegra: the lowest total wins, and so goes up.
    _finish(played_match("allegra", [alice, bob], [[30, 12]]))
    assert _mu(bob, "allegra") > _mu(alice, "allegra")


@pytest.mark.django_db
def test_six_players_move_by_their_rank():
    people = [make_user(f"p{i}") for i in range(6)]
    # Seats in a shuffled order of totals: the rank is the total's, not the seat's.
    _finish(played_match("ligretto", people, [[20, 60, 10, 40, 50, 30]]))
    mus = [_mu(p) for p in people]
    by_rank = [mus[1], mus[4], mus[3], mus[5], mus[0], mus[2]]
    assert by_rank == sorted(by_rank, reverse=True) and len(set(by_rank)) == 6
    assert by_rank[0] > ratings.START_MU > by_rank[-1]
    assert [RatingChange.objects.get(user=p).rank for p in people] == [5, 1, 6, 3, 2, 4]
    # Each moved: the rated match counts for all six.
    assert all(Rating.objects.get(user=p).matches == 1 for p in people)


@pytest.mark.django_db
def test_a_tie_shares_its_rank_and_its_change():
    people = [make_user(f"p{i}") for i in range(6)]
    _finish(played_match("ligretto", people, [[60, 50, 40, 40, 20, 10]]))
    assert [RatingChange.objects.get(user=p).rank for p in people] == [1, 2, 3, 3, 5, 6]
    assert _mu(people[2]) == pytest.approx(_mu(people[3]))
    assert _mu(people[0]) > _mu(people[1]) > _mu(people[2]) > _mu(people[5])


@pytest.mark.django_db
def test_an_unrated_room_and_a_one_human_match_move_nothing(alice, bob):
    match = played_match("ligretto", [alice, bob], [[10, 3]])
    Room.objects.filter(pk=match.room_id).update(rated=False)
    _finish(match)
    _finish(played_match("ligretto", [alice, "normal"], [[10, 3]]))
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


@pytest.mark.django_db
def test_an_abandoned_match_moves_nothing(alice, bob):
    room = started_room(alice, [bob], game="ligretto-mini", rounds=1)
    play.act(room.pk, 0, {"type": "flip"})
    play.close_match(room.pk, "Everyone went home.")
    match = Match.objects.get(room_id=room.pk)
    assert match.status == Match.Status.CLOSED
    assert ratings.rate_match(match) == []  # and the signal is never sent for it
    assert not Rating.objects.exists()


@pytest.mark.django_db
def test_a_match_with_bots_moves_a_human_at_most_half_as_much(alice, bob):
    match = played_match("ligretto", [alice, "easy", bob, "fast"], [[40, 30, 20, 10]])
    # What the model alone would do with these four at their ratings.
    teams = [
        [ratings.MODEL.rating()],
        [ratings.MODEL.rating(*ratings.bot_rating("easy"))],
        [ratings.MODEL.rating()],
        [ratings.MODEL.rating(*ratings.bot_rating("fast"))],
    ]
    full = ratings.MODEL.rate(teams, ranks=[1, 2, 3, 4])
    _finish(match)
    for user, seat in ((alice, 0), (bob, 2)):
        moved = _mu(user) - ratings.START_MU
        assert moved != 0
        assert abs(moved) <= 0.5 * abs(full[seat][0].mu - ratings.START_MU) + 1e-9
    assert _mu(alice) > ratings.START_MU  # first, ahead of both bots
    assert not Rating.objects.filter(user__isnull=True).exists()


@pytest.mark.django_db
def test_a_rating_is_provisional_until_enough_matches(alice, bob, settings):
    settings.RATING_PROVISIONAL_MATCHES = 2
    _finish(played_match("ligretto", [alice, bob], [[10, 3]]))
    assert str(ratings.shown(Rating.objects.get(user=alice))).endswith("?")
    _finish(played_match("ligretto", [alice, bob], [[10, 3]]))
    assert not ratings.shown(Rating.objects.get(user=alice)).provisional
    board = ratings.leaderboard("ligretto")
    assert [u.username for u, _ in board] == ["alice", "bob"]


@pytest.mark.django_db(transaction=True)
def test_ratings_are_written_in_the_transaction_that_finishes_the_match(settings, monkeypatch):
    settings.LEAVER_GRACE = 0  # both stand-ins play it out
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="ligretto-mini", rounds=1)

    def fail(match):
        raise RuntimeError("the ratings could not be written")

    monkeypatch.setattr(ratings, "rate_match", fail)
    bots = MatchBots(room.pk, rng=random.Random(1))
    with pytest.raises(RuntimeError):
        for _ in range(20_000):
            bots.step()
    # The finishing move rolled back with the ratings: the match is still being played.
    assert Match.objects.get(room_id=room.pk).status == Match.Status.PLAYING
    monkeypatch.undo()
    bots = MatchBots(room.pk, rng=random.Random(1))
    for _ in range(20_000):
        if bots.step() is None:
            break
    match = Match.objects.get(room_id=room.pk)
    assert match.status == Match.Status.FINISHED
    assert RatingChange.objects.filter(match=match).count() == 2


@pytest.mark.django_db
def test_pages_show_ratings_and_the_leaderboard_ranks_by_them(alice, bob, client):
    from tests.conftest import client_for

    _finish(played_match("ligretto", [alice, bob], [[10, 3]]))
    page = client.get("/players/alice/").content.decode()
    assert 'id="player-ratings"' in page and 'id="rating-chart-ligretto"' in page
    alice_shown = str(ratings.shown(Rating.objects.get(user=alice)))
    assert alice_shown.endswith("?") and alice_shown in page
    board = client.get("/leaderboard/ligretto/").content.decode()
    assert board.index('data-username="alice"') < board.index('data-username="bob"')
    assert 'class="rating provisional"' in board
    # The lobby's list says each open room's rating, or that it is unrated.
    from lobby import services

    services.create_room(alice, "ligretto", 3, None)
    services.create_room(bob, "ligretto", 3, None, rated=False)
    lobby = client_for(make_user("carol")).get("/").content.decode()
    assert f"rating {ratings.shown(Rating.objects.get(user=alice)).value}" in lobby
    assert '<span class="tag">unrated</span>' in lobby


@pytest.mark.django_db
def test_the_player_page_shows_paced_ratings_apart(alice, bob, client):
    _finish(played_match("ligretto-mini", [alice, bob], [[10, 3]]))
    _finish(played_match("ligretto-mini", [alice, bob], [[2, 9]], options={"pace": 1.5}))
    paced = Rating.objects.get(user=alice, game="ligretto-mini@1.5")
    page = client.get("/players/alice/").content.decode()
    # Two rows, the plain pool first: the paced one names its pace.
    plain_row = page.index('<tr data-game="ligretto-mini">')
    paced_row = page.index('<tr data-game="ligretto-mini@1.5">')
    assert plain_row < paced_row
    assert '<span class="tag paced">paced: 1.5 s</span>' in page[paced_row:]
    assert str(ratings.shown(paced)) in page[paced_row:]
    assert 'id="rating-chart-ligretto-mini"' in page
    assert 'id="rating-chart-ligretto-mini-paced-1-5"' in page
    # In the reader's language, the pace as his numbers write it.
    german = client.get("/players/alice/", headers={"accept-language": "de"}).content.decode()
    assert "1,5 s" in german


@pytest.mark.django_db
def test_the_table_shows_the_seated_peoples_ratings(alice, bob):
    from tests.conftest import client_for

    _finish(played_match("ligretto", [alice, bob], [[10, 3]]))
    room = started_room(alice, [bob], game="ligretto", bots=1)
    html = client_for(bob).get(f"/rooms/{room.pk}/").content.decode()
    assert 'id="table-ratings"' in html
    for user in (alice, bob):
        assert str(ratings.shown(Rating.objects.get(user=user))) in html


@pytest.mark.django_db
def test_the_room_form_opens_an_unrated_room_when_asked(alice):
    from tests.conftest import client_for

    me = client_for(alice)
    assert 'name="unrated"' in me.get("/rooms/new/").content.decode()
    me.post("/rooms/new/", {"game": "ligretto", "seats": "3", "unrated": "on"})
    me.post("/rooms/new/", {"game": "ligretto", "seats": "3"})
    assert list(Room.objects.order_by("pk").values_list("rated", flat=True)) == [False, True]
