"""smear-play driven through a pseudo-terminal, as a person would."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from agents.play_cli import explain_hand
from smear_env import Rules
from smear_env.cli import play_random_games


class Terminal:
    def __init__(self, argv: list[str]) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, cwd=Path(__file__).parent.parent, close_fds=True
        )
        os.close(slave)
        self.text = ""

    def read_until(self, pattern: str, seconds: float = 60) -> str:
        deadline = time.time() + seconds
        while not re.search(pattern, self.text):
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
    term = Terminal([sys.executable, "-m", "agents.play_cli", "--seed", "3", "--partner", "random", "--opponents", "random"])
    try:
        term.read_until(r"Your move> $")
        term.send("bid 7")  # not a legal move: answered, and asked again
        term.read_until(r"Not understood: unknown action 'bid 7'.*\n.*Legal:.*\n?Your move> $")
        term.send("99")
        term.read_until(r"There is no move number 99")
        term.send("help")
        term.read_until(r"Type a move as listed")
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
