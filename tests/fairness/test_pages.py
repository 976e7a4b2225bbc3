"""The verifier page (/verify/), GET /api/v1/verify's refusals, and the replay's shuffle section."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from games.engine import commitment, mixed_seed
from games.registry import GAMES
from lobby import services
from lobby.models import Room
from lobby.verify_views import deal_lines
from tables import fairness, play, replay
from tables.models import Match
from tests.api.helpers import Api, error_code
from tests.conftest import client_for, make_user
from tests.tables.helpers import started_room
from tests.test_every_word import english_in

pytestmark = pytest.mark.django_db

SERVER = "5e" * 32


def _query(**kw) -> str:
    return "/verify/?" + urlencode(kw)


def test_the_page_rebuilds_a_deal_and_checks_its_seeds(client):
    seed = mixed_seed(SERVER, ["bob", "alice"])
    page = client.get(
        _query(
            game="ligretto",
            seats=3,
            seed=seed,
            server_seed=SERVER,
            client_seeds="bob,alice",
            commitment=commitment(SERVER),
        )
    )
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="verify-form"' in html and 'id="verify-result"' in html
    assert 'id="verify-commitment-check" data-ok="true"' in html
    assert 'id="verify-seed-check" data-ok="true"' in html
    # Every seat's cards, as the engine dealt them from that seed.
    cards = GAMES["ligretto"].dealt(GAMES["ligretto"].deal(3, seed))
    seats = deal_lines(cards)[0][1]
    assert len(seats) == 3
    for line in seats:
        assert line in html
    wrong = client.get(
        _query(game="ligretto", seats=3, seed=seed + 1, server_seed=SERVER, client_seeds="bob")
    ).content.decode()
    assert 'id="verify-seed-check" data-ok="false"' in wrong


def test_the_form_swaps_its_result_alone_with_htmx(client):
    part = client.get(_query(game="allegra", seats=2, seed=7), headers={"HX-Request": "true"})
    html = part.content.decode()
    assert html.lstrip().startswith('<section id="verify-result"') and "<html" not in html
    assert "HX-Request" in part["Vary"]


def test_bad_input_gets_one_sentence_and_400(client):
    page = client.get(_query(game="ligretto-mini", seats=5, seed=1))
    assert page.status_code == 400
    assert "That game is not played with that many seats." in page.content.decode()
    assert client.get("/verify/").status_code == 200  # no seed: the form alone


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("en", "Check a deal"),
        ("de", "Ein Blatt prüfen"),
        ("ru", "Проверить раздачу"),
        ("ko", "패 확인하기"),
    ],
)
def test_the_page_speaks_the_readers_language(client, code, words):
    page = client.get("/verify/", headers={"Accept-Language": code}).content.decode()
    assert words in page


def test_the_api_answers_a_deal_and_refuses_bad_input_with_a_code():
    public = Api()
    ok = public.client.get(
        "/api/v1/verify?" + urlencode({"seed": 9, "game": "allegra", "seats": 3})
    )
    assert ok.status_code == 200
    body = ok.json()
    assert body["cards"] == GAMES["allegra"].dealt(GAMES["allegra"].deal(3, 9))
    assert body["seed_matches"] is None and body["commitment_matches"] is None
    for query, code in [
        # What the schema refuses (not a game, not digits) is the API's bad_request; what
        # only the verifier can judge has its own code.
        ({"seed": 1, "game": "chess", "seats": 2}, "bad_request"),
        ({"seed": "x", "game": "allegra", "seats": 2}, "bad_request"),
        ({"seed": 2**53, "game": "allegra", "seats": 2}, "invalid_seed"),
        ({"seed": 1, "game": "allegra", "seats": 9}, "invalid_seats"),
        ({"seed": 1, "game": "allegra", "seats": 2, "server_seed": "zz"}, "bad_request"),
        (
            {
                "seed": 1,
                "game": "allegra",
                "seats": 2,
                "server_seed": SERVER,
                "client_seeds": "a b",
            },
            "bad_request",
        ),
    ]:
        answer = public.client.get("/api/v1/verify?" + urlencode(query))
        assert answer.status_code == 400, query
        assert error_code(answer) == code
    missing = public.client.get("/api/v1/verify?game=allegra&seats=2")
    assert missing.status_code == 400


def test_the_replay_shows_the_rounds_seeds_and_links_to_the_verifier(alice, bob):
    room = started_room(alice, [bob], game="ligretto-mini", rounds=1)
    play.act(room.pk, 0, {"type": "flip"})
    play.close_match(room.pk, "Stopped for the test.")
    match = Match.objects.get(room=room)
    html = client_for(make_user("eve")).get(f"/rooms/{room.pk}/replay?round=1").content.decode()
    server = fairness.server_seed(match.fair_secret, 1)
    assert f'id="replay-commitment" class="hash">{commitment(server)}<' in html
    assert f'id="replay-server-seed" class="hash">{server}<' in html
    assert f'id="replay-seed">{match.seed}<' in html
    assert f"seed={match.seed}&amp;server_seed={server}" in html
    dealt = GAMES["ligretto-mini"].dealt(replay.replay_round(match, 1).states[0])
    assert dealt == GAMES["ligretto-mini"].dealt(GAMES["ligretto-mini"].deal(2, match.seed))


def test_a_running_round_shows_its_commitment_and_no_seed_on_the_table(alice, bob):
    room = started_room(alice, [bob], game="ligretto-mini", rounds=2)
    match = Match.objects.get(room=room)
    html = client_for(alice).get(f"/rooms/{room.pk}/").content.decode()
    server = fairness.server_seed(match.fair_secret, 1)
    assert commitment(server) in html and 'id="fair-commitment"' in html
    assert server not in html and str(match.seed) not in html
    view = Api(alice).get(f"rooms/{room.pk}/view").json()
    assert view["fairness"]["commitment"] == commitment(server)
    assert view["fairness"]["server_seed"] is None and view["fairness"]["seed"] is None
    assert server not in str(view) and str(match.seed) not in str(view)


def test_a_fixed_deal_has_no_commitment(alice, bob):
    # A fixed deal (the daily challenge, a duplicate round) was committed by whoever fixed it.
    room = services.create_room(alice, "ligretto-mini", 2, None)
    Room.objects.filter(pk=room.pk).update(deal_seed=12345)
    services.join_room(room.pk, bob)
    services.start_room(room.pk, alice)
    assert Match.objects.get(room=room).seed == 12345
    view = Api(alice).get(f"rooms/{room.pk}/view").json()
    assert view["fairness"] is None


@pytest.mark.parametrize("code", ["de", "ru", "ko"])
def test_the_verifier_and_the_replays_shuffle_speak_only_the_readers_language(
    code, alice, bob, client
):
    room = started_room(alice, [bob], game="ligretto-mini", rounds=1)
    play.act(room.pk, 0, {"type": "flip"})
    play.close_match(room.pk, "Stopped for the test.")
    match = Match.objects.get(room=room)
    server = fairness.server_seed(match.fair_secret, 1)
    pages = {
        "verify": client.get(
            _query(
                game="ligretto-mini",
                seats=2,
                seed=match.seed,
                server_seed=server,
                commitment=commitment(server),
            ),
            headers={"Accept-Language": code},
        ),
        "verify, refused": client.get(
            _query(game="ligretto", seats=1, seed=1), headers={"Accept-Language": code}
        ),
        "replay": client_for(bob).get(
            f"/rooms/{room.pk}/replay?round=1", headers={"Accept-Language": code}
        ),
        "table": client_for(alice).get(f"/rooms/{room.pk}/", headers={"Accept-Language": code}),
    }
    for name, page in pages.items():
        assert page["Content-Language"] == code, name
        assert not english_in(page.content.decode(), code), (
            name,
            english_in(page.content.decode(), code),
        )
