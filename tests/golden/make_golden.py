"""Regenerate the golden playthroughs: python tests/golden/make_golden.py (only when the rules change on purpose)."""

from pathlib import Path

from smear_env import Rules, write_records
from smear_env.records import play_random_games

for seed in (1, 2, 3):
    write_records(play_random_games(Rules(), 1, seed), Path(__file__).parent / f"seed{seed}.jsonl")
