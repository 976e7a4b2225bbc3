"""Whole matches with the keyboard only, on paced tables against bots at half speed, read from
the accessibility tree and the live region (issue 41); typed commands and single-switch scan."""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_languages_and_access import AXE
from tests.conftest import PASSWORD

# Every mouse or pointer event the page gets, and every text the live region says.
RECORD = """() => {
  window.__mouse = 0;
  for (const kind of ["mousedown", "mouseup", "pointerdown", "pointerup"]) {
    document.addEventListener(kind, (e) => { if (e.isTrusted) window.__mouse += 1; }, true);
  }
  window.__said = [];
  // The whole page is watched: a full redraw (a reconnect) brings a new live region.
  new MutationObserver((changes) => {
    for (const change of changes) {
      const node = change.target.nodeType === 1 ? change.target : change.target.parentElement;
      if (node && node.id === "table-announce" && change.type === "childList") {
        window.__said.push(node.textContent);
      }
    }
  }).observe(document.body, {childList: true, characterData: true, subtree: true});
}"""
PILE_SAID = re.compile(r"(?:^|[.:;] |\. )?([^:.;]+?): (red|green|blue|yellow) (\d+)")
MATCH_TIME = 300  # seconds: two cores shared with other work, a paced table


def practise_paced(page: Page, game: str, level: str = "normal") -> str:
    """From the lobby, by keyboard: a paced (0.5 s) practice table of `game`; its room id."""
    page.goto("/")
    page.locator(f"#practise-pace-{game}").select_option("0.5")
    page.locator(f"#practise-level-{game}").select_option(level)
    page.locator(f"#practise-{game}").press("Enter")
    page.wait_for_url(re.compile(r"/rooms/\d+/"))
    expect(page.locator("#table .table-status")).to_be_visible()
    expect(page.locator("#live-status")).to_have_attribute("data-connected", "true", timeout=30_000)
    return re.search(r"/rooms/(\d+)/", page.url).group(1)


def hear_everything(page: Page) -> None:
    """Spoken news: everything (the Access menu, by keyboard), then record what is said."""
    page.locator("#access-tools-toggle").press("Enter")
    page.locator("#say-verbosity").select_option("all")
    page.locator("#access-tools-toggle").press("Enter")  # closed again; focus on its summary
    page.evaluate("() => document.activeElement.blur()")
    page.evaluate(RECORD)


def said(page: Page) -> list[str]:
    return page.evaluate("() => window.__said")


def next_version(page: Page, version: str, timeout: float = 4_000) -> bool:
    """Wait for the table to change from `version` (a push); False if it did not."""
    try:
        page.wait_for_function(
            "v => document.getElementById('table-version').dataset.version !== v",
            arg=version,
            timeout=timeout,
        )
    except Exception:  # noqa: BLE001 - a key that changed nothing (a refused play)
        return False
    return True


def version(page: Page) -> str:
    return page.evaluate("() => document.getElementById('table-version').dataset.version")


def applied_plays(site_shell, room_id: str) -> dict[str, object]:
    code = (
        "import json\n"
        "from tables.models import ActionLog, Match\n"
        f"m = Match.objects.get(room_id={int(room_id)})\n"
        "rows = ActionLog.objects.filter(match=m, refused='').order_by('version')\n"
        "plays = [r.action for r in rows if r.action.get('type') == 'play']\n"
        "draws = [r.action for r in rows if r.action.get('type') == 'draw']\n"
        "print(json.dumps({'plays': len(plays), 'draws': len(draws), 'status': m.status,"
        " 'by_seat': [[r.seat, r.created_at.timestamp()] for r in rows]}))\n"
    )
    return json.loads(site_shell(code))


@pytest.mark.timeout(MATCH_TIME + 60)
def test_a_whole_ligretto_mini_match_by_keyboard_on_a_paced_table(person, site_shell):
    page = person()
    room_id = practise_paced(page, "ligretto-mini")
    hear_everything(page)
    me = page.locator("#lg-me")
    deadline = time.monotonic() + MATCH_TIME
    while time.monotonic() < deadline:
        if "The match is over." in page.locator("#lg-status").aria_snapshot():
            break
        now = version(page)
        if re.search(r'button "(Show the result|Ready for round \d+)', me.aria_snapshot()):
            page.keyboard.press("r")
        else:
            playable = re.search(r"You can play: [^(]*\(key (\w)\)", me.aria_snapshot())
            page.keyboard.press(playable.group(1).lower() if playable else " ")
        next_version(page, now)
    else:
        raise AssertionError("the match did not end in time")

    words = " ".join(said(page))
    assert re.search(r"\bwins\.|share the win", words), words[-500:]
    assert "Your points this round:" in words
    assert page.evaluate("() => window.__mouse") == 0
    # Every play of the match (the log's), each player's: each was announced as it landed
    # (its player, colour and value), or as the pile it closed.
    log = applied_plays(site_shell, room_id)
    assert log["status"] == "finished"
    announced = sum(len(PILE_SAID.findall(text)) for text in said(page))
    closed = sum(text.count("closed") for text in said(page))
    # At least 7: a Mini round ends no sooner than a player's seven stack cards are gone, each
    # by a play of its own or of a row card it refills (L10, L13; a run once had just 10).
    assert announced + closed >= log["plays"] >= 7, (announced, closed, log["plays"])
    # The paced table kept each seat's actions half a second apart.
    times: dict[int, list[float]] = {}
    for seat, at in log["by_seat"]:
        times.setdefault(seat, []).append(at)
    for seat, moments in times.items():
        gaps = [b - a for a, b in zip(moments, moments[1:], strict=False)]
        assert min(gaps, default=1) >= 0.5, (seat, min(gaps))


def sign_up_by_keyboard(page: Page, username: str) -> None:
    page.goto("/accounts/signup/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.locator("#id_password2").press("Enter")
    page.wait_for_url(lambda url: "/accounts/signup/" not in url)


def start_with_bots(page: Page, seats: int) -> None:
    """On the room page, by keyboard: bots in every other seat, then start."""
    page.locator("#bot-count").fill(str(seats - 1))
    page.locator("#bot-count").press("Enter")
    expect(page.locator("#bots-form")).to_have_count(0)  # every seat taken
    expect(page.locator("#start-button")).to_be_enabled()
    page.locator("#start-button").press("Enter")


def open_paced_room_with_bots(page: Page, game: str, seats: int, clock: int | None = None) -> str:
    """The room form and the room page, by keyboard: a paced room of `game` (one round; an
    Allegra `clock`, if given), bots in every other seat, started; its room id."""
    page.goto(f"/rooms/new/?game={game}")
    page.locator("#id_seats").fill(str(seats))
    page.locator("#id_rounds").fill("1")
    if clock is not None:
        page.locator("#id_clock").fill(str(clock))
    page.locator("#id_pace").select_option("0.5")
    page.locator("#id_bot_speed").select_option("0.5")
    page.locator("#id_seats").press("Enter")
    expect(page).to_have_url(re.compile(r"/rooms/\d+/$"))
    expect(page.locator('#live-status[data-connected="true"]')).to_be_visible()
    expect(page.locator("#room-options")).to_contain_text("0.5")
    room_id = re.search(r"/rooms/(\d+)/$", page.url).group(1)
    start_with_bots(page, seats)
    page.wait_for_url(re.compile(rf"/rooms/{room_id}/(table/)?$"))
    expect(page.locator("#al-status")).to_be_visible(timeout=30_000)
    expect(page.locator('#live-status[data-connected="true"]')).to_be_visible()
    return room_id


def allegra_step(page: Page) -> str:
    """Do, by keyboard, what the Allegra table asks of the reader now, and wait for the next
    change (or a moment): "over" once the match's winner is said (nothing done), else what was
    done ("ready", "draw", "discard", "pick")."""
    me = page.locator("#al-me")
    now = version(page)
    mine = me.aria_snapshot()
    # The winner is said the moment the last round ends (issue 45 item 13); the match is over
    # once everyone asked for the result.
    ready = re.search(r'button "(Show the result|Ready for round \d+)', mine)
    if not ready and re.search(
        r"wins with|share the win", page.locator("#al-status").aria_snapshot()
    ):
        return "over"
    if ready:
        page.keyboard.press("r")
        done = "ready"
    elif 'button "Draw from the deck' in mine:
        page.keyboard.press("d")
        done = "draw"
    elif re.search(r'button "Discard the \d+', mine):
        page.keyboard.press("x")
        done = "discard"
    else:
        # A card to turn, to give, or to take and place: Tab's way, by the role's name.
        radios = me.get_by_role("radio")
        if radios.count() and not me.get_by_role("radio", checked=True).count():
            radios.first.focus()
            page.keyboard.press("Space")
        buttons = me.get_by_role("button").filter(has_not_text=re.compile("^Knock"))
        if buttons.count():
            buttons.first.focus()
            page.keyboard.press("Enter")
        done = "pick"
    next_version(page, now)
    return done


@pytest.mark.timeout(MATCH_TIME + 60)
def test_a_whole_three_seat_allegra_match_by_keyboard_on_a_paced_table(person, site_shell):
    page = person()
    sign_up_by_keyboard(page, "alma")
    room_id = open_paced_room_with_bots(page, "allegra", 3)
    hear_everything(page)
    deadline = time.monotonic() + MATCH_TIME
    turns = 0
    while time.monotonic() < deadline:
        step = allegra_step(page)
        if step == "over":
            break
        turns += step == "draw"
    else:
        raise AssertionError("the match did not end in time")

    words = " ".join(said(page))
    assert re.search(r"wins with the lowest total|share the win", words), words[-500:]
    assert "Your points this round:" in words
    assert page.evaluate("() => window.__mouse") == 0
    log = applied_plays(site_shell, room_id)
    for _ in range(40):  # the bots ask for the result a moment after the reader
        if log["status"] == "finished":
            break
        time.sleep(0.25)
        log = applied_plays(site_shell, room_id)
    assert log["status"] == "finished" and turns > 3
    # Every turn (each begins with a draw) was announced: whose turn, what was drawn or placed.
    assert len(said(page)) >= log["draws"], (len(said(page)), log["draws"])


def command_for(me: Page) -> str:
    """The typed command for the first card the reader is told he can play, else a flip."""
    playable = re.search(r"You can play: [^(]*\(key (\w)\)", me.aria_snapshot())
    return f"p {playable.group(1).lower()} on it" if playable else "d"


def close_room(page: Page, room_id: str) -> None:
    """The host closes his room (as its Close button does): its bots stop playing, so that
    they take no time from the tests after this one."""
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    closed = page.request.post(
        f"/rooms/{room_id}/close/", form={"reason": ""}, headers={"X-CSRFToken": token}
    )
    assert closed.ok, closed.status


def switch_language(page: Page, language: str) -> None:
    """The bar's language buttons, by keyboard: the same page again in `language`."""
    button = page.locator(f'#language-switcher button[value="{language}"]')
    # Seen once in a few runs (5 December, evening, cause not found): the page stayed in its
    # language after the press. The test presses again, as a person would, at most twice more.
    for attempt in range(3):
        if not button.is_visible():  # a table's bar keeps them under its menu
            page.locator("#menu-toggle").press("Enter")
            expect(button).to_be_visible()
        button.press("Enter")
        try:
            expect(page.locator("html")).to_have_attribute("lang", language, timeout=5_000)
            break
        except AssertionError:
            if attempt == 2:
                raise
    expect(page.locator('#live-status[data-connected="true"]')).to_be_visible()


def axe_in_every_language(page: Page, state: str, ready: str) -> None:
    """axe on the page as it stands in en, de, ru and ko (the same page, switched by its
    language buttons), each once `ready` (a selector) shows; it ends in English."""
    for language in ("en", "de", "ru", "ko"):
        if page.locator("html").get_attribute("lang") != language:
            switch_language(page, language)
        expect(page.locator(ready).first).to_be_visible()
        assert axe_violations(page) == [], (state, language)
    switch_language(page, "en")


@pytest.mark.timeout(MATCH_TIME + 60)
def test_typed_commands_finish_a_round_whose_end_passes_axe_in_four_languages(person):
    page = person()
    practise_paced(page, "ligretto-mini", level="fast")
    hear_everything(page)
    me = page.locator("#lg-me")
    page.keyboard.press("/")  # the command line (the Access menu opens)
    expect(page.locator("#table-command")).to_be_focused()
    deadline = time.monotonic() + MATCH_TIME
    while "is over" not in page.locator("#lg-status").aria_snapshot():
        assert time.monotonic() < deadline, "the round did not end"
        now = version(page)
        page.keyboard.type(command_for(me))
        page.keyboard.press("Enter")
        next_version(page, now)
    assert page.evaluate("() => window.__mouse") == 0
    # The round's end, on a paced table: axe in the four languages (he played in the round,
    # so nobody marks him away while the others wait for his "ready").
    expect(page.locator("#lg-status")).to_have_attribute("data-status", "round_over")
    axe_in_every_language(page, "round end", '#lg-status[data-status="round_over"]')
    page.evaluate(RECORD)
    page.keyboard.press("/")
    expect(page.locator("#table-command")).to_be_focused()
    for _ in range(10):  # "r": ready (again if it came while a play of his still waited)
        page.keyboard.type("r")
        page.keyboard.press("Enter")
        try:
            expect(page.locator("#match-result")).to_be_visible(timeout=5_000)
            break
        except AssertionError:
            continue
    expect(page.locator("#match-result")).to_be_visible()
    assert page.evaluate("() => window.__mouse") == 0
    # "?" reads the whole position into the live region.
    page.keyboard.type("?")
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.__said.some((t) => t.includes('Your row'))")


@pytest.mark.timeout(MATCH_TIME + 60)
def test_a_single_switch_scan_finishes_a_round(person):
    page = person()
    practise_paced(page, "ligretto-mini", level="fast")
    page.evaluate(RECORD)
    page.locator("#access-tools-toggle").press("Enter")
    page.locator("#scan-toggle").press("Enter")
    expect(page.locator("#scan-toggle")).to_have_attribute("aria-pressed", "true")
    page.locator("#access-tools-toggle").press("Enter")
    deadline = time.monotonic() + MATCH_TIME
    # A switch user waits for the scan to reach what he wants: a card he can play, or the
    # flip when it is all there is (pressing flip at once would flip a playable card away).
    on_action = """() => {
      const at = document.activeElement;
      if (!at || !at.closest('.me')) return false;
      const keys = document.querySelector('[data-legal-keys]').dataset.legalKeys;
      return at.id !== 'me-flip' || keys === ' |';
    }"""
    presses = 0
    # The round, then "ready" (the scan reaches the ready button, the only action left).
    while "The match is over." not in page.locator("#lg-status").aria_snapshot():
        assert time.monotonic() < deadline, "the round did not end"
        try:
            page.wait_for_function(on_action, timeout=5_000)
        except Exception:  # noqa: BLE001 - nothing to do now: the bots play on
            continue
        now = version(page)
        page.keyboard.press("Space")  # the switch
        presses += 1
        next_version(page, now, timeout=2_000)
    assert presses > 0 and page.evaluate("() => window.__mouse") == 0
    expect(page.locator("#match-result")).to_be_visible(timeout=30_000)


def axe_violations(page: Page) -> list[dict]:
    """Every axe finding on the page as it stands, of any impact."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())
    return page.evaluate(
        """async () => {
          const result = await axe.run(document, {resultTypes: ["violations"]});
          return result.violations.map((v) => ({
            id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
          }));
        }"""
    )


@pytest.mark.timeout(MATCH_TIME + 60)
def test_a_paced_table_and_its_knock_window_pass_axe_in_four_languages(person):
    page = person()
    sign_up_by_keyboard(page, "axel")
    # No clock: the knock window of the reader's own draw stays open while he decides.
    room_id = open_paced_room_with_bots(page, "allegra", 3, clock=0)
    axe_in_every_language(page, "paced table", "#al-status")
    # The reader turns his two opening cards by keyboard, then draws from the deck on his
    # turn: the knock window opens (the bots may knock) and waits for his decision.
    me = page.locator("#al-me")
    for _ in range(2):
        now = version(page)
        me.locator("button").first.focus()
        page.keyboard.press("Enter")
        next_version(page, now)
    me_seat = page.locator("#table").get_attribute("data-me")
    page.wait_for_function(
        """seat => {
          const status = document.getElementById('al-status');
          return status.dataset.phase === 'draw' && status.dataset.turn === seat;
        }""",
        arg=me_seat,
        timeout=60_000,
    )
    page.keyboard.press("d")
    expect(page.locator("#al-knock-window")).to_be_visible()
    axe_in_every_language(page, "knock window", "#al-knock-window")
    close_room(page, room_id)


@pytest.mark.parametrize(
    ("game", "seats"),
    [("ligretto", n) for n in (2, 4, 7, 12)] + [("allegra", n) for n in (2, 3, 6)],
)
def test_phone_tables_have_44_pixel_targets_at_every_seat_count(person, game, seats):
    page = person()
    page.set_viewport_size({"width": 390, "height": 844})
    sign_up_by_keyboard(page, f"tap{game[:3]}{seats}")
    page.goto(f"/rooms/new/?game={game}")
    page.locator("#id_seats").fill(str(seats))
    page.locator("#id_seats").press("Enter")
    expect(page).to_have_url(re.compile(r"/rooms/\d+/$"))
    expect(page.locator('#live-status[data-connected="true"]')).to_be_visible()
    room_id = re.search(r"/rooms/(\d+)/$", page.url).group(1)
    start_with_bots(page, seats)
    expect(page.locator("#table .table-status")).to_be_visible(timeout=30_000)
    page.locator("#access-tools-toggle").press("Enter")  # its controls are measured too
    small = page.evaluate(
        """() => Array.from(document.querySelectorAll(
              '#table button, #table select, #table summary, #table input:not([type=hidden])'))
            .filter((el) => el.getClientRects().length
              && getComputedStyle(el).visibility !== 'hidden')
            .map((el) => [el.id || el.className || el.tagName, el.getBoundingClientRect()])
            .filter(([, r]) => r.width < 44 || r.height < 44)
            .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""
    )
    close_room(page, room_id)
    assert small == [], small
