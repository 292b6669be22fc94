"""``smear-web`` in a real browser: headless Chromium (Debian's, driven by Playwright) plays a whole game
by clicking only; at every step neither the page nor any response it received names a hidden card."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from smear_env import check_records

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTEFACTS = Path(os.environ.get("SMEAR_TEST_ARTEFACTS", Path(__file__).parent.parent / "runs" / "test-artefacts"))
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CARD = re.compile(r"(?<![A-Za-z0-9])[789TJQKA][CDHS](?![A-Za-z0-9])")
FACE = re.compile(r"(?<![0-9A-Za-z])(10|[789JQKA])([\u2663\u2666\u2665\u2660])")
COMPASS = ["South", "West", "North", "East"]  # seat 0 first, clockwise: the names the pages give the seats
SUIT_OF_SIGN = {"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"}


def cards_named(text: str) -> set[str]:
    """The cards a text names, by their codes (``TH``) or as their faces show them (``10\u2665``)."""
    faces = {("T" if rank == "10" else rank) + SUIT_OF_SIGN[sign] for rank, sign in FACE.findall(text)}
    return set(CARD.findall(text)) | faces


pytestmark = pytest.mark.xdist_group("browser")


@pytest.fixture(scope="module")
def match(tmp_path_factory):
    """A records folder with an arena match in it, as ``smear-eval --json m.json --records m.jsonl`` writes it."""
    from serving import write_match

    folder = tmp_path_factory.mktemp("records")
    return folder, write_match(folder, games=2, seed=4)


@pytest.fixture(scope="module")
def server(match):
    """The app, with the match's records folder, on a free loopback port."""
    from serving import serving

    from smear_apps.web.app import Settings, create_app

    with serving(create_app(Settings(records=match[0]))) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: `make browser` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


def knowledge(state: dict) -> set[str]:
    """The cards the person's seat may know in ``state``; at a hand's summary, that finished hand face up."""
    view = state["view"]
    known = set(view["hand"]) | set(view["picked_up"] or ()) | set(view["discards"] or ())
    known |= {c for t in view["tricks"] for _, c in t["plays"]} | {c for _, c in view["trick"]}
    return known | (set(CARD.findall(json.dumps(state["summary"]))) if state["summary"] else set())


VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
HARNESS = {"bypass_csp": True}
"""For pages the test waits on with ``wait_for_function``: Playwright evaluates those conditions as strings,
which the server's Content-Security-Policy forbids (no eval); the replay's script test keeps the policy."""


def contrast(ink: str, paper: str) -> float:
    """WCAG's contrast ratio of two CSS colours as computed styles give them (``rgb(192, 38, 45)``)."""

    def luminance(colour: str) -> float:
        channels = [int(x) / 255 for x in re.findall(r"\d+", colour)[:3]]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(ink), luminance(paper)), reverse=True)
    return (high + 0.05) / (low + 0.05)


SEAT_NUMBER = re.compile(r"\b[Ss]eats? [0-3]\b")
RULE_CODE = re.compile(r"\(R\d+|\bR\d+v")
HEX_ID = re.compile(r"\b[0-9a-f]{16,}\b")


def speaks_as_a_player(page, viewport: dict) -> None:
    """What a player reads: no seat numbers, rule codes, "card(s)", command-line flags or long hex ids; on a
    phone, no "click"."""
    text = page.inner_text("body")
    for pattern, what in ((SEAT_NUMBER, "a seat number"), (RULE_CODE, "a rule code"), (HEX_ID, "a hex id")):
        assert not pattern.search(text), f"{what} on the page: {pattern.search(text).group(0)!r}"  # type: ignore[union-attr]
    assert "card(s)" not in text and "--json" not in text and "--records" not in text
    if viewport["width"] < 500:
        assert "click" not in text.lower(), "a phone is tapped, not clicked"


def fits(page, viewport: dict) -> None:
    """Nothing on the page is wider than the screen (no sideways scrolling)."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"], f"the page is {width} px wide on a {viewport['width']} px screen"


@pytest.mark.parametrize("screen", sorted(VIEWPORTS))
def test_a_whole_game_by_clicking_shows_nothing_hidden(server, browser, tmp_path, screen):
    viewport = VIEWPORTS[screen]
    page = browser.new_page(viewport=viewport, **HARNESS)
    leaks: list[str] = []  # any response the browser received that names a card its seat cannot know
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def inspect(response) -> None:
        is_state = "/api/tables" in response.url and response.status < 300
        if is_state and "json" in response.headers.get("content-type", ""):
            state = json.loads(response.text())
            extra = set(CARD.findall(json.dumps(state))) - knowledge(state)
            if extra:
                leaks.append(f"{response.url}: {sorted(extra)}")

    page.on("response", inspect)
    page.goto(server)
    page.wait_for_selector("#new-table")
    fits(page, viewport)  # the setup page too
    speaks_as_a_player(page, viewport)
    assert page.locator("select[name=seat] option").all_inner_texts() == ["South", "West", "North", "East"]
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / f"web_setup_{screen}.png"), full_page=True)
    page.select_option("select[name=seat]", "2")
    page.fill("input[name=opponents]", "random")
    page.click("#start")
    page.wait_for_selector("#table:not([hidden])")
    checked, clicks, shots, discards, plain_bids, last_tricks = 0, 0, set(), 0, 0, 0
    while True:
        page.wait_for_function("!document.body.classList.contains('busy')")
        state = page.evaluate("window.smearState")
        assert not page.locator("#error").is_visible(), page.inner_text("#error")
        view = state["view"]
        shown = cards_named(page.content())
        assert shown <= knowledge(state), f"hidden cards in the page: {shown - knowledge(state)}"
        assert not leaks, leaks
        checked += 1
        if state["game_over"]:
            break
        fits(page, viewport)
        speaks_as_a_player(page, viewport)
        log = page.locator("#log-box")  # the newest move is in view
        assert log.evaluate("b => b.scrollTop + b.clientHeight >= b.scrollHeight - 2")
        log_text = page.inner_text("#log")
        assert not CARD.search(log_text), f"card codes in the log: {CARD.findall(log_text)}"  # faces, as the cards show
        assert "Hand 0" not in log_text and "hand 0" not in page.inner_text("main")  # hands counted from 1
        if state["summary"]:
            assert page.locator("#summary").is_visible() and not page.locator("#table").is_visible()  # no next hand behind it
            number = state["summary"]["hand_index"] + 1
            assert page.inner_text("#summary-title").startswith(f"Hand {number}")
            assert page.evaluate("document.activeElement.id") == "continue"
            nxt = page.locator("#continue").bounding_box()
            assert nxt is not None and nxt["y"] + nxt["height"] <= viewport["height"], "Next hand below the first screen"
            if not page.locator("#all-hands").evaluate("d => d.open"):
                page.click("#all-hands summary")  # a phone: the four hands behind their toggle
            text = page.inner_text("#summary")
            assert "You were dealt" in text and "You was" not in text and "Seat 2 " not in text
            assert not CARD.search(page.inner_text("#hand-result"))
            if not state["summary"]["redeal"]:
                rows = page.locator("#hand-result th").all_inner_texts()
                assert rows == ["Contract", "High", "Low", "Jack", "Game", "Score, us first"], rows
                assert not page.locator("#point-rules").evaluate("d => d.open")  # the explanations behind a toggle
            if not state["summary"]["redeal"] and state["summary"]["rules"]["kitty_size"]:
                assert page.locator("#summary .card.picked").count() == 3  # the kitty cards picked up, marked
                assert page.locator("#kitty .card").count() == 3  # the kitty is what was picked up, not the undealt rest
                if "summary" not in shots:
                    page.screenshot(path=str(ARTEFACTS / f"web_summary_{screen}.png"), full_page=True)
                    shots.add("summary")
            page.click("#continue")
        else:
            legal = sorted(a["id"] for a in view["legal_actions"])
            buttons = page.locator("#moves button.move, #hand button.card.legal")
            clickable = sorted(int(b.get_attribute("data-action")) for b in buttons.all())
            assert clickable == legal  # every legal move is clickable, and only those
            if view["phase"] == "discard":
                assert page.locator("#moves button.move").count() == 0  # the cards themselves are the discards
                discards += 1
            if view["phase"] in ("bid", "trump"):
                assert page.locator("#hand .card.dim").count() == 0  # the hand shown plainly
                plain_bids += 1
            if view["phase"] == "play" and view["tricks"]:
                assert page.locator("#last-trick").is_visible() and page.locator("#last-trick .card").count() == 4
                names = page.locator("#last-trick figcaption").all_inner_texts()  # each card under its seat's name
                assert len(names) == 4 and sum("\u2605" in n for n in names) == 1, names  # the winner's marked
                assert page.locator("#last-trick figure.won .card.winner").count() == 1
                last_tricks += 1
            dim = page.locator("#hand .card.dim")
            if dim.count():  # cards that cannot be played now: greyed, but as legible as the others
                assert dim.first.evaluate("e => getComputedStyle(e).opacity") == "1"
                colours = dim.evaluate_all("cs => cs.map(e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor])")
                for ink, paper in colours:  # WCAG AA for text: 4.5:1 at least
                    assert contrast(ink, paper) >= 4.5, (ink, paper, contrast(ink, paper))
            if view["phase"] in ("bid", "trump"):  # on the row of bids: a stray Enter neither passes nor bids
                assert page.evaluate("document.activeElement.id") == "moves"
            else:
                focused = page.evaluate("document.activeElement.dataset.action")
                assert focused is not None and int(focused) in legal  # focus on the hand, not the page body
            assert "Your turn" in page.inner_text("#announce")
            if "play" not in shots and view["phase"] == "play" and len(view["trick"]) >= 2:
                page.screenshot(path=str(ARTEFACTS / f"web_table_{screen}.png"), full_page=screen == "phone")
                shots.add("play")
            if clicks == 5:  # a reload resumes the game in progress, exactly where it was
                page.reload()
                page.wait_for_selector("#table:not([hidden])")
                page.wait_for_function("window.smearState !== undefined")
                assert page.evaluate("window.smearState") == state
                buttons = page.locator("#moves button.move, #hand button.card.legal")
            buttons.last.click()
            clicks += 1
    assert clicks > 10 and checked > clicks and discards + plain_bids > 0 and last_tricks > 0
    assert page.locator("#over").is_visible() and not page.locator("#table").is_visible()
    final = page.inner_text("#final")
    me = state["seat"] & 1
    assert f"{state['final_scores'][me]}".lstrip("-") in final and "team wins" in page.inner_text("#over-title")
    assert page.evaluate("document.activeElement.id") == "play-again"
    page.screenshot(path=str(ARTEFACTS / f"web_over_{screen}.png"), full_page=True)
    with page.expect_download() as download:
        page.click("#records")
    path = tmp_path / "game.jsonl"
    download.value.save_as(path)
    assert check_records(path) == state["hands_played"]
    assert json.loads(path.read_text().splitlines()[0])["agents"] == ["heuristic", "random", "person", "random"]
    page.reload()  # a reload resumes the table in progress
    page.wait_for_selector("#over:not([hidden])")
    old_table = state["table"]
    page.click("#play-again")  # the same seat, agents and rules at a new table
    page.wait_for_function(f"window.smearState && window.smearState.table !== '{old_table}'")
    again = page.evaluate("window.smearState")
    assert again["seat"] == 2 and again["agents"] == state["agents"] and not again["game_over"]
    page.click("#abandon")
    page.wait_for_selector("#new-table")
    assert not errors, errors
    page.close()


def test_a_second_tab_with_an_old_view_catches_up_by_itself(server, browser):
    first = browser.new_page(viewport=VIEWPORTS["desktop"], **HARNESS)
    first.goto(server)
    first.wait_for_selector("#new-table")
    first.click("#start")
    first.wait_for_function("window.smearState !== undefined && !document.body.classList.contains('busy')")
    table = first.evaluate("window.smearState.table")
    second = browser.new_page(viewport=VIEWPORTS["desktop"], **HARNESS)
    second.goto(f"{server}/#table={table}")
    second.wait_for_function("window.smearState !== undefined")
    first.locator("#moves button.move, #hand button.card.legal").last.click()  # the first tab moves on
    first.wait_for_function("!document.body.classList.contains('busy')")
    moved = first.evaluate("window.smearState")
    second.locator("#moves button.move, #hand button.card.legal").first.click()  # the second still shows the old turn
    second.wait_for_function("!document.body.classList.contains('busy')")
    assert second.locator("#error").is_visible()
    assert second.evaluate("window.smearState") == moved  # it fetched where the table stands and drew that
    first.close()
    second.close()


def test_a_records_file_replayed_in_the_page_shows_every_trick_of_the_file(server, browser, match):
    folder, played = match
    records = played.records()
    page = browser.new_page(viewport=VIEWPORTS["desktop"])
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/replay")
    page.click("#file-list button[data-name='m.jsonl']")
    page.wait_for_selector("#viewer:not([hidden])")
    assert page.locator("#hand-pick option").count() == len(records)
    tricks_checked = 0
    for index, record in enumerate(records):
        page.select_option("#hand-pick", str(index))
        page.click("#first")
        for seat in range(4):  # all four hands face up at the deal
            held = page.locator(f".seat .card[data-seat='{seat}']").evaluate_all("els => els.map(e => e.dataset.card)")
            assert held == record["hands"][seat]
        steps = int(page.get_attribute("#slider", "max"))
        for _ in range(steps):
            page.click("#next")
            text = page.inner_text("#event")
            if " won by " in text:  # the trick's fourth card: the table shows the whole trick
                trick = record["tricks"][tricks_checked_in_hand(page)]
                shown = page.locator("#trick .card").evaluate_all("els => els.map(e => [Number(e.dataset.seat), e.dataset.card])")
                assert shown == trick["plays"] and text.endswith(f"won by {COMPASS[trick['winner']]}.")
                captions = page.locator("#trick figcaption").all_inner_texts()
                assert captions == [COMPASS[seat] for seat, _ in trick["plays"]]  # each card of the trick under its seat
                tricks_checked += 1
        assert page.locator("#tricks-list .done-trick").count() == (0 if record["redeal"] else 6)
        if index == 1:  # the shipped network's values of each decision, shown before it is made
            with page.expect_response(lambda r: "/api/explain" in r.url and r.ok):
                page.click("#explain-hand")
            page.click("#first")
            assert "'s decision" in page.inner_text("#decision-values .values")
        speaks_as_a_player(page, VIEWPORTS["desktop"])
    assert tricks_checked == sum(len(r["tricks"] or ()) for r in records) > 0
    page.select_option("#match-json", "m.json")
    page.click("#match-form button")
    page.wait_for_selector("#match-summary:not([hidden])")
    low, high = played.summary()["win_rate_ci95"]
    assert f"[{low:.3f}, {high:.3f}]" in page.inner_text("#win-rate")
    page.locator("#swings button").first.click()
    page.click("#last")
    assert "\u2212" in page.inner_text("#event") or "-" not in page.inner_text("#event").split("Score")[-1]
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    speaks_as_a_player(page, VIEWPORTS["desktop"])
    page.screenshot(path=str(ARTEFACTS / "web_replay_desktop.png"), full_page=True)
    assert not errors, errors
    page.close()


def test_the_replay_on_a_phone_steps_through_a_hand_with_nothing_covered(server, browser, match):
    page = browser.new_page(viewport=VIEWPORTS["phone"])
    page.goto(f"{server}/replay")
    page.wait_for_selector("#file-list button[data-name='m.jsonl']")
    fits(page, VIEWPORTS["phone"])  # the file list alone
    page.click("#file-list button[data-name='m.jsonl']")
    page.wait_for_selector("#viewer:not([hidden])")
    fits(page, VIEWPORTS["phone"])
    speaks_as_a_player(page, VIEWPORTS["phone"])
    felt = page.locator("#felt").bounding_box()
    files = page.locator("#files").bounding_box()
    assert felt is not None and files is not None and felt["y"] < files["y"], "the file list above the table"
    assert felt["y"] < VIEWPORTS["phone"]["height"], "the table starts below the first screen"
    for _ in range(12):
        page.click("#next", timeout=5000)  # fails if the felt or anything else covers the button
    assert page.inner_text("#step-text") == "step 12 of " + page.get_attribute("#slider", "max")
    page.click("#explain-hand")
    page.wait_for_selector("#values-legend:not([hidden])")
    assert "points of the hand's score margin" in page.inner_text("#values-legend")
    fits(page, VIEWPORTS["phone"])
    page.screenshot(path=str(ARTEFACTS / "web_replay_phone.png"), full_page=True)
    page.select_option("#match-json", "m.json")  # the match summary too
    page.click("#match-form button")
    page.wait_for_selector("#match-summary:not([hidden])")
    fits(page, VIEWPORTS["phone"])
    page.close()


def test_a_match_file_with_script_in_its_names_shows_them_as_text(server, browser, match):
    """A records folder is the owner's, but the files in it may come from anywhere: a name is text, never markup."""
    folder, played = match
    summary = json.loads((folder / "m.json").read_text())
    hostile = ['<img src=x onerror="window.pwned=1">', "<script>window.pwned=2</script>"]
    for key in ("points_by_category", "bid_rate", "made_bid_rate", "contracts", "decisions_per_second"):
        summary[key] = {new: summary[key][old] for old, new in zip(summary["agents"], hostile, strict=True)}
    summary["agents"] = hostile
    (folder / "hostile.json").write_text(json.dumps(summary))
    (folder / "hostile.jsonl").write_text((folder / "m.jsonl").read_text())
    page = browser.new_page(viewport=VIEWPORTS["desktop"])
    page.goto(f"{server}/replay")
    page.wait_for_selector("#match-json option[value='hostile.json']", state="attached")
    page.select_option("#match-json", "hostile.json")
    page.select_option("#match-records", "hostile.jsonl")
    page.click("#match-form button")
    page.wait_for_selector("#match-summary:not([hidden])")
    assert hostile[0] in page.inner_text("#match-summary h2")  # shown as the text it is
    assert page.locator("#match-summary img, #match-summary script").count() == 0
    assert page.evaluate("window.pwned") is None
    page.close()


def tricks_checked_in_hand(page) -> int:
    """The trick whose last card the replay shows now (from its text: "Trick N won by ...")."""
    return int(re.search(r"Trick (\d) won by", page.inner_text("#event")).group(1)) - 1
