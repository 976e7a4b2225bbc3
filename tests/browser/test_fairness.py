"""A shuffle anyone can check, in Chromium (issue 42, docs/fairness.md): the table shows the
round's commitment while it is played and its seed once it is over, a player adds her own seed
with "ready", and the verifier the table links to finds the seeds and the commitment agree."""

from __future__ import annotations

import hashlib
import re

from playwright.sync_api import expect

from tests.browser.test_ligretto_table import at_table, get_ready, open_room
from tests.browser.test_lobby_flow import sign_up
from tests.browser.test_score_sheet import _play_round

HEX = re.compile(r"^[0-9a-f]{64}$")


def test_the_table_shows_the_commitment_before_and_the_seed_after_a_round(person, site_shell):
    amy = person()
    sign_up(amy, "fairamy")
    room_id = open_room(amy, "ligretto-mini", 2, rounds=2)
    amy.select_option("#bots-form select", "fast")
    amy.click("#bots-form button[type=submit]")
    expect(amy.locator("#seat-1")).to_contain_text("bot")
    amy.click("#start-button")
    at_table(amy)

    # While round 1 is played: its commitment, no seed.
    commitment = amy.locator("#fair-commitment")
    expect(commitment).to_be_visible()
    first = commitment.inner_text().strip()
    assert HEX.match(first)
    expect(amy.locator("#fair-server-seed")).to_have_count(0)

    _play_round(amy, 1)
    # Over: the server seed whose SHA-256 was shown, and the next round's commitment.
    revealed = amy.locator("#fair-server-seed")
    expect(revealed).to_be_visible()
    server = revealed.inner_text().strip()
    assert hashlib.sha256(server.encode()).hexdigest() == first
    following = amy.locator("#fair-next-commitment").inner_text().strip()
    assert HEX.match(following) and following != first
    check = amy.locator("#fair-verify").get_attribute("href")

    # Her own seed goes with her ready; round 2 is dealt under the commitment shown before it.
    amy.click(".client-seed summary")  # folded away beside the Ready button
    amy.fill("#me-seed", "amy-was-here")
    get_ready(amy)
    expect(amy.locator("#lg-status")).to_have_attribute("data-round", "2")
    expect(amy.locator("#fair-commitment")).to_have_text(following)
    expect(amy.locator("#fair-server-seed")).to_have_count(0)
    # Round 2's seed is its committed server seed mixed with hers (the bot sends none).
    code = (
        "from games.engine import mixed_seed\n"
        "from tables import fairness\n"
        "from tables.models import Match\n"
        f"m = Match.objects.get(room_id={int(room_id)})\n"
        "server = fairness.server_seed(m.fair_secret, 2)\n"
        "print(m.rounds.get(number=2).seed == mixed_seed(server, ['amy-was-here']))\n"
    )
    assert site_shell(code).strip() == "True"

    # The verifier rebuilds round 1's deal from what the table revealed.
    amy.goto(check)
    expect(amy.locator("#verify-commitment-check")).to_have_attribute("data-ok", "true")
    expect(amy.locator("#verify-seed-check")).to_have_attribute("data-ok", "true")
    expect(amy.locator("#verify-deal li")).to_have_count(2)  # one line per seat
