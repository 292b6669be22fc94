"""``smear-records``: play games between random legal agents and write, or check, hand records."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Annotated, Literal

from tyro.conf import FlagCreatePairsOff, arg

from smear_env import Rules
from smear_env.records import RecordError, check_records, play_random_games, write_records
from smear_env.render import describe_hand
from smear_env.vector import play_random_games_vector
from smear_rl.cmdline import Flat

from .command import cli, command


@dataclass
class Config:
    """What ``smear-records`` plays and writes, or which file it checks."""

    games: int = 10
    """how many games to play"""
    seed: int = 0
    """seed of the whole run"""
    out: Annotated[str | None, arg(metavar="FILE.jsonl")] = None
    """where to write the records (JSON Lines)"""
    check: Annotated[str | None, arg(metavar="FILE.jsonl")] = None
    """check a records file by replaying it; exit 1 at the first broken record"""
    print: Annotated[bool, FlagCreatePairsOff] = False
    """print one line per hand"""
    engine: Literal["single", "vector"] = "single"
    """the single-game engine, or the batched engine (the same deals; its random players draw other moves)"""
    rules: Flat[Rules] = field(default_factory=Rules)
    """the rule settings the games are played under"""

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ValueError(f"--games {self.games}: must be at least 1")


@command("smear-records")
def main(argv: list[str] | None = None) -> int:
    config = cli(
        Config,
        argv,
        "Play full games between random legal agents and write their hand records, or check a records file.",
        "smear-records",
    )

    if config.check:
        try:
            count = check_records(config.check)
        except RecordError as e:
            print(f"{config.check}: {e}", file=sys.stderr)
            return 1
        except OSError as e:
            print(f"{config.check}: cannot read: {e.strerror}", file=sys.stderr)
            return 2
        print(f"{config.check}: {count} records OK")
        return 0
    start = time.perf_counter()
    play = play_random_games if config.engine == "single" else play_random_games_vector
    records = play(config.rules, config.games, config.seed)
    elapsed = time.perf_counter() - start
    if config.print:
        for record in records:
            print(describe_hand(record))
    over = [r for r in records if r["game_over"]]
    print(
        f"{config.games} games, {len(records)} hands, {len(over)} won, {config.games - len(over)} truncated (R16), in {elapsed:.1f} s"
    )
    if config.out:
        write_records(records, config.out)
        print(f"wrote {config.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
