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

    from agents.web.app import create_app

    with serving(create_app(records=match[0])) as url:
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


def test_a_whole_game_by_clicking_shows_nothing_hidden(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    leaks: list[str] = []  # any response the browser received that names a card its seat cannot know

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
    page.select_option("select[name=seat]", "2")
    page.fill("input[name=opponents]", "random")
    page.click("#start")
    page.wait_for_selector("#table:not([hidden])")
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    checked, clicks, shot = 0, 0, False
    while True:
        page.wait_for_function("!document.body.classList.contains('busy')")
        state = page.evaluate("window.smearState")
        assert not page.locator("#error").is_visible(), page.inner_text("#error")
        view = state["view"]
        shown = set(CARD.findall(page.content()))
        assert shown <= knowledge(state), f"hidden cards in the page: {shown - knowledge(state)}"
        assert not leaks, leaks
        checked += 1
        if state["game_over"]:
            break
        if state["summary"]:
            page.click("#continue")
        else:
            legal = sorted(a["id"] for a in view["legal_actions"])
            buttons = page.locator("#controls button.move, #hand button.card.legal")
            clickable = sorted(int(b.get_attribute("data-action")) for b in buttons.all())
            assert clickable == legal  # every legal move is clickable, and only those
            if not shot and view["phase"] == "play" and len(view["trick"]) >= 2:
                page.screenshot(path=str(ARTEFACTS / "web_table.png"))
                shot = True
            if clicks == 5:  # a reload resumes the game in progress, exactly where it was
                page.reload()
                page.wait_for_selector("#table:not([hidden])")
                page.wait_for_function("window.smearState !== undefined")
                assert page.evaluate("window.smearState") == state
                buttons = page.locator("#controls button.move, #hand button.card.legal")
            buttons.last.click()
            clicks += 1
    assert clicks > 10 and checked > clicks
    assert "Game over" in page.inner_text("#prompt")
    with page.expect_download() as download:
        page.click("#records")
    path = tmp_path / "game.jsonl"
    download.value.save_as(path)
    assert check_records(path) == state["hands_played"]
    page.reload()  # a reload resumes the table in progress
    page.wait_for_selector("#table:not([hidden])")
    assert "Game over" in page.inner_text("#prompt")
    page.click("#abandon")
    page.wait_for_selector("#new-table")
    page.close()


def test_a_records_file_replayed_in_the_page_shows_every_trick_of_the_file(server, browser, match):
    folder, played = match
    records = played.records()
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
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
            if " won by seat " in text:  # the trick's fourth card: the table shows the whole trick
                trick = record["tricks"][tricks_checked_in_hand(page)]
                shown = page.locator("#trick .card").evaluate_all("els => els.map(e => [Number(e.dataset.seat), e.dataset.card])")
                assert shown == trick["plays"] and text.endswith(f"won by seat {trick['winner']}.")
                tricks_checked += 1
        assert page.locator("#tricks-list .done-trick").count() == (0 if record["redeal"] else 6)
        if index == 1:  # the shipped network's values of each decision, shown before it is made
            with page.expect_response(lambda r: "/api/explain" in r.url and r.ok):
                page.click("#explain-hand")
            page.click("#first")
            assert "seat" in page.inner_text("#decision-values .values")
    assert tricks_checked == sum(len(r["tricks"] or ()) for r in records) > 0
    page.select_option("#match-json", "m.json")
    page.click("#match-form button")
    page.wait_for_selector("#match-summary:not([hidden])")
    low, high = played.summary()["win_rate_ci95"]
    assert f"[{low:.3f}, {high:.3f}]" in page.inner_text("#win-rate")
    page.locator("#swings button").first.click()
    page.click("#last")
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / "web_replay.png"), full_page=True)
    assert not errors, errors
    page.close()


def tricks_checked_in_hand(page) -> int:
    """The trick whose last card the replay shows now (from its text: "Trick N won by ...")."""
    return int(re.search(r"Trick (\d) won by", page.inner_text("#event")).group(1)) - 1
