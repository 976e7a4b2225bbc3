"""Score history in a real browser: a two-round match, its live chart, its sheet, the rematch."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from tests.browser.test_ligretto_table import at_table, get_ready, open_room, play_a_little, status
from tests.browser.test_lobby_flow import sign_up, wait_live


def _play_round(page: Page, round_no: int) -> None:
    """Play along with the bot (by key, at a person's pace) until the round is over."""
    section = page.locator("#lg-status")
    expect(section).to_have_attribute("data-round", str(round_no))
    for _ in range(400):
        if status(page) == "round_over":
            break
        if status(page) == "playing":
            play_a_little(page)
        page.wait_for_timeout(400)  # a socket refuses floods (too_fast)
    expect(section).to_have_attribute("data-status", "round_over")


def _rows_in_database(site_shell, room_id: str) -> dict[str, object]:
    """The match's RoundScore rows as the database has them: {"rounds": [[...], ...], "names"}."""
    code = (
        "import json\n"
        "from tables.models import Match, RoundScore\n"
        f"m = Match.objects.get(room_id={int(room_id)})\n"
        "rounds = {}\n"
        "for r in RoundScore.objects.filter(round__match=m).order_by('round__number', 'seat'):\n"
        "    rounds.setdefault(r.round.number, []).append(r.points)\n"
        "print(json.dumps({'rounds': [rounds[n] for n in sorted(rounds)],"
        " 'names': [p.name for p in m.players.order_by('seat')], 'status': m.status}))\n"
    )
    return json.loads(site_shell(code))


def test_the_score_sheet_after_a_two_round_match_shows_the_right_numbers_and_the_chart(
    person, site_shell
):
    amy = person()
    sign_up(amy, "sheetamy")
    room_id = open_room(amy, "ligretto-mini", 2, rounds=2)
    amy.select_option("#bots-form select", "fast")
    amy.click("#bots-form button[type=submit]")
    expect(amy.locator("#seat-1")).to_contain_text("bot")
    amy.click("#start-button")
    at_table(amy)

    # Amy plays along with the fast bot; she says ready after each round.
    _play_round(amy, 1)
    # The sheet grows live: round 1's row, and a chart with her running total in its legend.
    expect(amy.locator('#lg-scores tbody tr[data-round="1"]')).to_be_visible()
    expect(amy.locator("#lg-chart svg.totals-chart")).to_be_visible()
    first_total = amy.locator('#lg-scores tfoot td[data-seat="0"]').inner_text()
    expect(amy.locator("#lg-chart .legend")).to_contain_text(f"sheetamy ({first_total})")
    get_ready(amy)
    _play_round(amy, 2)
    get_ready(amy)  # "Show the result"
    expect(amy.locator("#lg-status")).to_have_attribute("data-status", "finished")
    expect(amy.locator("#match-result")).to_be_visible()

    # The table's rematch button opens a new room (same game and options, the same bot).
    amy.click("#match-result button.rematch")
    amy.wait_for_url(re.compile(rf"/rooms/(?!{room_id}/)\d+/$"))
    wait_live(amy)
    rematch_url = amy.url
    expect(amy.locator("#seat-0")).to_contain_text("sheetamy")
    expect(amy.locator("#seat-1")).to_contain_text("bot")

    amy.goto(f"/rooms/{room_id}/")
    at_table(amy)
    expect(amy.locator("#table-rematch")).to_contain_text("sheetamy opened a rematch")
    amy.click("#match-result a:text('Score sheet')")
    expect(amy).to_have_url(re.compile(rf"/rooms/{room_id}/sheet/$"))
    db = _rows_in_database(site_shell, room_id)
    assert db["status"] == "finished" and len(db["rounds"]) == 2
    # Each round's row on the page is the database's RoundScore rows, seat by seat.
    for number, points in enumerate(db["rounds"], start=1):
        cells = amy.locator(f'#sheet-table tr[data-round="{number}"] td')
        assert [int(c.get_attribute("data-points")) for c in cells.all()] == points
    totals = [sum(column) for column in zip(*db["rounds"], strict=True)]
    shown = amy.locator("#sheet-table tfoot td")
    assert [int(c.get_attribute("data-total")) for c in shown.all()] == totals
    # The winner is the highest total (Ligretto), and the chart draws each running total.
    best = max(totals)
    winners = [name for name, t in zip(db["names"], totals, strict=True) if t == best]
    assert [w.inner_text() for w in amy.locator("#sheet-result .winner").all()] == winners
    chart = amy.locator("#sheet-chart svg.totals-chart")
    expect(chart).to_be_visible()
    expect(chart.locator("g.series polyline")).to_have_count(2)
    for seat, name in enumerate(db["names"]):
        running = [0, db["rounds"][0][seat], totals[seat]]
        dots = chart.locator(f'g.series.s{seat}[data-label="{name}"] circle title')
        assert [d.text_content() for d in dots.all()] == [f"{name}: {v}" for v in running]

    # The sheet's rematch button leads to the same rematch room: never a second one.
    amy.click("#rematch")
    expect(amy).to_have_url(rematch_url)
