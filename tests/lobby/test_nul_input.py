"""No NUL character reaches a view (issue 18): PostgreSQL refuses them in text, as a 500."""

from __future__ import annotations

import logging

import pytest

from lobby import services
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path", ["/players/al%00ice/", "/?game=lig%00retto", "/invite/ab%00cd/", "/rooms/new/?x%00=1"]
)
def test_a_nul_in_an_address_is_a_plain_bad_request(client, caplog, path):
    with caplog.at_level(logging.WARNING):
        response = client.get(path)
    assert response.status_code in (400, 404)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_a_nul_in_a_form_is_refused_before_the_view(caplog):
    alice = make_user("alice")
    room = services.create_room(alice, "ligretto-mini", 2)
    client = client_for(alice)
    with caplog.at_level(logging.WARNING):
        closed = client.post(f"/rooms/{room.pk}/close/", {"reason": "bye\x00now"})
        named = client.post("/accounts/profile/", {"token_name": "bot\x00"})
    assert closed.status_code == 400 and named.status_code == 400
    room.refresh_from_db()
    assert room.status == room.Status.OPEN and alice.api_tokens.count() == 0
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_revoke_of_no_number_is_a_404_not_a_500():
    alice = make_user("alice")
    response = client_for(alice).post("/accounts/profile/", {"revoke": "١"})
    assert response.status_code == 404
