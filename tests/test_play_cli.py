"""smear-play driven through a pseudo-terminal, as a person would."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from smear_apps.play import HELP, explain_hand
from smear_env import ALL_CARDS, Rules, read_records
from smear_env.records import play_random_games


def _as_a_shell_starts_it() -> None:
    """Ctrl-C as a shell leaves it: SIGINT handled by default and not blocked (test runners may ignore or block it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class Terminal:
    def __init__(self, argv: list[str]) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=Path(__file__).parent.parent,
            close_fds=True,
            preexec_fn=_as_a_shell_starts_it,
        )
        os.close(slave)
        self.text = ""

    def read_until(self, pattern: str, seconds: float = 60, since: int = 0) -> str:
        """Read until ``pattern`` matches the screen (from character ``since`` on); the whole screen."""
        deadline = time.time() + seconds
        while not re.search(pattern, self.text[since:]):
            if time.time() > deadline:
                raise AssertionError(f"no {pattern!r} within {seconds} s; screen ends with:\n{self.text[-2000:]}")
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                try:
                    self.text += os.read(self.master, 65536).decode(errors="replace")
                except OSError:
                    break
        return self.text

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        os.close(self.master)


def test_play_a_hand_in_a_pseudo_terminal():
    term = Terminal([sys.executable, "-m", "smear_apps.play", "--seed", "3", "--partner", "random", "--opponents", "random"])
    try:
        term.read_until(r"Your move> $")
        term.send("bid 7")  # not a legal move: answered, and asked again
        term.read_until(r"Not understood: unknown action 'bid 7'.*\n.*Legal:.*\n?Your move> $")
        term.send("99")
        term.read_until(r"There is no move number 99")
        since = len(term.text)  # the first line has the help text too: wait for the answer and its prompt,
        term.send("help")  # else a move sent to a prompt already answered puts every later one a move behind
        term.read_until(r"Type a move as listed[\s\S]*Your move> $", since=since)
        moves = 0
        while "Hand over." not in term.text and "thrown in" not in term.text:
            screen = term.read_until(r"(Your move> $|Hand over\.|thrown in)")
            if screen.rstrip().endswith("Your move>"):
                legal = re.findall(r"Legal: (.*)", screen)[-1]
                first = legal.split(", ")[0].split(") ", 1)[1]
                term.send(first)
                term.text += "\n"  # so the same prompt is not matched twice
                moves += 1
            assert moves < 40
        term.read_until(r"Score: your team|thrown in")
        assert "Legal:" in term.text and "seat 0 (team 0)" in term.text
        term.send("quit")
        term.read_until("Goodbye.")
    finally:
        term.close()


def test_explain_hand_words():
    records = [r for r in play_random_games(Rules(), 1, 2) if not r["redeal"]]
    text = explain_hand(records[0], 0)
    assert "High" in text and "Game-count" in text and "Score: your team" in text


CARD = re.compile(r"\b([789TJQKA][CDHS])\b")
FACE = re.compile(r"(?<![0-9A-Za-z])(10|[789JQKA])([\u2663\u2666\u2665\u2660])")


def as_codes(text: str) -> str:
    """The moves told with the cards' faces (10\u2665) written back as codes (TH), for the checks below."""
    signs = dict(zip("\u2663\u2666\u2665\u2660", "CDHS", strict=True))
    return FACE.sub(lambda m: ("T" if m.group(1) == "10" else m.group(1)) + signs[m.group(2)], text)


END = r"(Your move> \Z|You win!|You lose\.|stopped after)"


def play_to_the_end(tmp_path: Path, seed: int, seat: int, flags: list[str]) -> tuple[str, list[dict]]:
    """A whole game in smear-play, the person taking the first legal move (a discard typed as a bare card name)."""
    records = tmp_path / f"game{seed}.jsonl"
    argv = [sys.executable, "-m", "smear_apps.play", "--seed", str(seed), "--seat", str(seat), "--records", str(records), *flags]
    term = Terminal(argv)
    try:
        since = 0
        while True:
            screen = term.read_until(END, seconds=120, since=since)
            if not screen.endswith("Your move> "):
                break
            first = re.findall(r"Legal: (.*)", screen)[-1].strip().split(", ")[0].split(") ", 1)[1]
            since = len(screen)
            term.send(first.removeprefix("discard "))  # R10 discards accept a bare card name
        term.process.wait(timeout=30)
    finally:
        term.close()
    return term.text, read_records(records)


def assert_no_hidden_card_on_screen(text: str, records: list[dict], seat: int) -> int:
    """Each hand's screen, up to its scoring summary, names only cards the seat may know at that moment:
    its own, its pick-up if it is the bidder, and cards once played. Returns how many lines were read."""
    checked = 0
    for record in records:
        start = text.index(f"=== Hand {record['hand_index'] + 1}:")  # hands counted from 1 for people
        stop = text.find("=== Hand", start + 1)
        segment = text[start : stop if stop >= 0 else len(text)]
        segment = segment[: segment.find("Hand over.")] if "Hand over." in segment else segment
        segment = segment.replace(HELP, "")  # its examples name cards
        hidden = set(ALL_CARDS) - set(record["hands"][seat])
        for line in segment.splitlines():
            played = re.match(r"(?:You|Seat \d) played (\w\w)", line)
            if played:
                hidden.discard(played.group(1))
            if line.startswith("You are the bidder; you pick up"):
                hidden -= set(record["kitty"][: record["rules"]["kitty_size"]])
            leaked = hidden & set(CARD.findall(line))
            assert not leaked, f"hand {record['hand_index']}: {sorted(leaked)} shown to seat {seat} in {line!r}"
            checked += 1
        if not record["redeal"] and record["bidder"] != seat:
            assert not set(record["discards"]) & set(CARD.findall(segment))  # another bidder's discards, never
    return checked


@pytest.mark.parametrize(
    "seed, seat, flags",
    [
        (0, 0, []),
        (1, 1, []),
        (2, 2, ["--kitty-size", "2"]),
        (3, 3, ["--kitty-size", "1", "--stick-the-dealer"]),
        (4, 0, ["--high-low-in-play"]),
        (5, 1, ["--kitty-size", "0"]),
        (6, 2, ["--opponents", "random", "--target-score", "6"]),
        (7, 3, ["--partner", "random", "--target-score", "6"]),
        (8, 0, ["--defender-cap", "12"]),
        (9, 1, ["--win-only-on-made-bid", "--target-score", "8"]),
    ],
)
def test_screen_shows_only_what_the_seat_may_know(tmp_path, seed, seat, flags):
    text, records = play_to_the_end(tmp_path, seed, seat, flags)
    assert records and "Traceback" not in text
    assert FACE.search(text) and not re.search(r"(?:You|Seat \d) played [789TJQKA][CDHS]", text)  # moves told by faces
    assert not re.search(r"\bhand 0\b", text, flags=re.I)  # hands counted from 1 in everything a person reads
    assert "| between suits" in text  # the separator of the hand's suits said where it is used
    text = as_codes(text)
    assert assert_no_hidden_card_on_screen(text, records, seat) > 50
    assert "won by" in text and "Tally: tricks" in text and "Score: your team" in text
    for record in records:
        if not record["redeal"] and record["bidder"] == seat and record["discards"]:
            assert f"You discarded {record['discards'][0]}" in text  # typed as a bare card name
        if not record["redeal"] and record["bidder"] != seat and record["rules"]["kitty_size"]:
            assert f"Seat {record['bidder']} discarded a card face down" in text


def test_high_low_described_as_the_rules_define_them():
    record = next(r for r in play_random_games(Rules(high_low_in_play=True), 1, 2) if not r["redeal"])
    assert "the highest trump played" in explain_hand(record, 0)
    record = next(r for r in play_random_games(Rules(), 1, 2) if not r["redeal"])
    assert "the ace of trump" in explain_hand(record, 0)


def test_ctrl_c_leaves_cleanly():
    term = Terminal([sys.executable, "-m", "smear_apps.play", "--seed", "1"])
    try:
        term.read_until(r"Your move> $")
        os.kill(term.process.pid, signal.SIGINT)  # what Ctrl-C sends
        term.read_until("Goodbye.")
        assert term.process.wait(timeout=30) == 130
        assert "Traceback" not in term.text
    finally:
        term.close()
