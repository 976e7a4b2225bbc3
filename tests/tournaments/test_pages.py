"""The tournament pages: the list with its form, an event's page with join and withdraw, the
lobby's and the player page's sections, and a table's way back to its event."""

from __future__ import annotations

import pytest
from django.test import Client

from tournaments import scheduler, services

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_member_creates_an_event_and_another_joins_and_withdraws_on_its_page(alice, bob):
    page = _client(alice).post(
        "/tournaments/",
        {"game": "ligretto", "seats": 4, "format": "swiss", "rounds": 2, "starts_in": 5},
    )
    assert page.status_code == 302
    url = page["Location"]
    bob_client = _client(bob)
    shown = bob_client.get(url)
    assert shown.status_code == 200 and b'id="join"' in shown.content
    assert b"data-countdown" in shown.content
    joined = bob_client.post(url + "join/", headers={"HX-Request": "true"})
    assert b'id="withdraw"' in joined.content and b'id="tournament-live"' in joined.content
    again = bob_client.post(url + "join/", headers={"HX-Request": "true"})
    assert b"already in this tournament" in again.content
    bob_client.post(url + "withdraw/")  # without htmx: back to the page
    assert b'id="join"' in bob_client.get(url).content
    listed = Client().get("/tournaments/lobby/")
    assert url.encode() in listed.content


def test_a_finished_table_leads_back_to_its_event_and_the_player_page_lists_it(
    alice, bob, settings
):
    settings.TOURNAMENT_BREAK = 0
    t = services.create(alice, "ligretto-mini", 2, "swiss", rounds=1, starts_in=0)
    services.join(t.pk, bob)
    services.add_bots(t.pk, alice, 1, "easy")
    scheduler.run_due()
    table = t.tables.get()
    back = _client(bob).get(f"/rooms/{table.room_id}/event/")
    assert back.json() == {"url": f"/tournaments/{t.pk}/"}
    assert Client().get("/rooms/999999/event/").json() == {"url": None}  # no event: stay
    played = Client().get("/tournaments/played/bob/")
    assert f"/tournaments/{t.pk}/".encode() in played.content
    on_page = _client(bob).get(f"/tournaments/{t.pk}/")
    assert f'href="/rooms/{table.room_id}/"'.encode() in on_page.content
