"""Moderation in real browsers: a ban mid-match, and a report from a room to the audit log."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.test_ligretto_table import at_table, join, open_room
from tests.browser.test_lobby_flow import sign_up

LIVE = 'data-connected="true"'
MODERATOR_RIGHTS = [
    "moderate",
    "view_user",
    "view_room",
    "view_report",
    "view_mute",
    "view_auditentry",
]


def make_moderator(site_shell, username: str) -> None:
    """Give a signed-up person the staff flag and the moderator's permissions."""
    site_shell(
        "from django.contrib.auth import get_user_model\n"
        "from django.contrib.auth.models import Permission\n"
        f"user = get_user_model().objects.get(username={username!r})\n"
        "user.is_staff = True\n"
        "user.save()\n"
        "user.user_permissions.add(*Permission.objects.filter(codename__in="
        f"{MODERATOR_RIGHTS!r}))\n"
    )


def wait_until(page: Page, check, what: str) -> None:  # noqa: ANN001
    """Wait for `check()` (about socket events, which `expect` cannot watch) to come true."""
    for _ in range(200):
        if check():
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"never happened: {what}")


def test_a_staff_user_bans_a_player_mid_match_and_a_bot_continues_his_seat(person, site_shell):
    ava, ben, moira = person(), person(), person()
    sign_up(ava, "ban_ava")
    sign_up(ben, "ban_ben")
    sign_up(moira, "ban_moira")
    make_moderator(site_shell, "ban_moira")

    room_id = open_room(ava, "ligretto-mini", 2)
    table_sockets: list = []
    connected: list = []  # ben's table sockets, each time one got the whole table (live)

    def track(ws) -> None:  # noqa: ANN001
        if "/table/" in ws.url:
            table_sockets.append(ws)
            ws.on("framereceived", lambda frame: connected.append(ws) if LIVE in frame else None)

    ben.on("websocket", track)
    join(ben, room_id)
    ava.click("#start-button")
    at_table(ava)
    at_table(ben)
    wait_until(ben, lambda: table_sockets, "ben's table opened a socket")
    seat = ava.locator("#lg-seat-1")
    expect(seat.locator(".name")).to_have_text("ban_ben")
    bot_tag = seat.locator(".tag", has_text="bot")
    expect(bot_tag).to_have_count(0)  # a person
    counts_before = seat.locator(".counts").inner_text()
    open_sockets = [ws for ws in table_sockets if not ws.is_closed()]
    assert len(open_sockets) == 1
    bens_socket = open_sockets[0]

    # The moderator watches the table and bans ben from the panel.
    moira.goto(f"/rooms/{room_id}/")
    at_table(moira)
    panel = moira.locator("#moderate-panel")
    expect(panel).to_be_visible()
    expect(ava.locator("#moderate-panel")).to_have_count(0)
    row = panel.locator('.moderate-user[data-user="ban_ben"]')
    row.locator("input[name=reason]").fill("cheating with a script")
    row.locator(".moderate-ban").click()
    expect(moira.locator(".messages")).to_contain_text("ban_ben is banned")

    # Ben's table socket is closed by the server; his page reconnects as nobody: a spectator.
    if not bens_socket.is_closed():
        bens_socket.wait_for_event("close")
    # htmx reconnected, and the server sent the whole table to the new socket.
    wait_until(
        ben, lambda: any(ws is not bens_socket for ws in connected), "ben's table reconnected"
    )
    # His own cards left his page with the seat: he only watches now, and his page says why.
    expect(ben.locator("#site-error")).to_contain_text("A moderator banned your account")
    expect(ben.locator("#lg-me.me")).to_have_count(0)
    expect(ben.locator("#lg-me.watching")).to_contain_text("You are watching this table")

    # A bot holds his seat and plays on, live on the other player's table.
    expect(bot_tag).to_be_visible()
    expect(seat.locator(".counts")).not_to_have_text(counts_before)

    # He is signed out everywhere and cannot sign in again.
    ben.reload()
    expect(ben.locator("header.site")).to_contain_text("Log in")
    expect(ben.locator(".spectating")).to_be_visible()
    ben.goto("/accounts/login/")
    ben.fill("#id_username", "ban_ben")
    ben.fill("#id_password", "correct horse battery staple")
    ben.click("main button[type=submit]")
    # Issue 17: the right password of a banned account is told so, not "wrong password".
    expect(ben.locator("main")).to_contain_text("This account was banned by a moderator")
    expect(ben.locator("header.site")).to_contain_text("Log in")

    # The audit log has it: who, what, why.
    moira.goto("/admin/moderation/auditentry/")
    entry = moira.locator("#result_list tbody tr").first
    expect(entry).to_contain_text("ban_moira")
    expect(entry).to_contain_text("Ban")
    expect(entry).to_contain_text("ban_ben")
    expect(entry).to_contain_text("cheating with a script")


def test_a_report_reaches_the_admin_queue_and_its_resolution_lands_in_the_audit_log(
    person, site_shell
):
    ivy, rex, otto = person(), person(), person()
    sign_up(ivy, "rep_ivy")
    sign_up(rex, "rep_rex")
    sign_up(otto, "rep_otto")
    make_moderator(site_shell, "rep_otto")

    room_id = open_room(ivy, "ligretto", 3)
    join(rex, room_id)
    ivy.reload()  # the report buttons list the players the page was loaded with
    players = ivy.locator("#report-players")
    expect(players.locator("li")).to_have_count(1)  # rex, not herself
    report = players.locator('li[data-user="rep_rex"] details.report')
    report.locator("summary").click()
    report.locator("textarea[name=reason]").fill("He keeps <b>insulting</b> everyone.")
    report.locator("button[type=submit]").click()
    expect(ivy.locator(".messages")).to_contain_text("your report of rep_rex is in the")

    # The queue in the admin.
    otto.goto("/admin/moderation/report/?status__exact=open")
    row = otto.locator("#result_list tbody tr", has_text="insulting")
    expect(row).to_contain_text("He keeps <b>insulting</b> everyone.")  # escaped, as typed
    expect(row).to_contain_text("rep_rex")
    expect(row).to_contain_text("rep_ivy")
    row.locator("input.action-select").check()
    otto.select_option("select[name=action]", "resolve_reports")
    otto.click("button[name=index]")
    otto.fill("#id_reason", "Warned him; muted for a day.")
    otto.click("#moderation-reason input[type=submit]")
    expect(otto.locator(".messagelist")).to_contain_text("Resolve: done for 1.")

    otto.goto("/admin/moderation/report/?status__exact=resolved")
    expect(otto.locator("#result_list")).to_contain_text("insulting")

    otto.goto("/admin/moderation/auditentry/?action__exact=resolve_report")
    entry = otto.locator("#result_list tbody tr").first
    expect(entry).to_contain_text("rep_otto")
    expect(entry).to_contain_text("Resolve report")
    expect(entry).to_contain_text("Warned him; muted for a day.")
    expect(entry).to_contain_text("rep_rex")
