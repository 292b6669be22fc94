"""``smear-records``: play games between random legal agents and write, or check, hand records."""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

import numpy as np

from . import __version__
from .game import Game, game_label, game_rng
from .records import RecordError, check_records, write_records
from .rules import Rules


def add_version_flag(parser: argparse.ArgumentParser) -> None:
    """``--version``: the command's name and the kit's version (``smear-eval 0.2.0``), as every command of the kit prints it."""
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}", help="print the kit's version and exit")


def add_rule_flags(parser: argparse.ArgumentParser) -> None:
    """The command-line flags of every rule setting (shared by the kit's commands)."""
    defaults = Rules()
    group = parser.add_argument_group("rule settings (docs/rules.md)")
    group.add_argument(
        "--kitty-size", type=int, default=defaults.kitty_size, choices=range(4), help="R5: cards the bidder picks up (0-3)"
    )
    group.add_argument("--stick-the-dealer", action="store_true", help="R7v: the dealer must bid after three passes")
    group.add_argument("--high-low-in-play", action="store_true", help="R13v: High/Low to the highest/lowest trump played")
    group.add_argument("--win-only-on-made-bid", action="store_true", help="R15v-a: a team wins only on a bid it made")
    group.add_argument(
        "--defender-cap", type=int, default=None, metavar="N", help="R15v-b: cap the defenders' score at N (the seeds use 15)"
    )
    group.add_argument("--target-score", type=int, default=defaults.target_score, metavar="N", help="R15: score that wins (15)")
    group.add_argument(
        "--max-hands",
        type=int,
        default=defaults.max_hands,
        metavar="N",
        help=f"R16: truncate a game after N dealt hands ({defaults.max_hands})",
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The Rules given by :func:`add_rule_flags`' flags (validated)."""
    return Rules(
        kitty_size=args.kitty_size,
        stick_the_dealer=args.stick_the_dealer,
        high_low_in_play=args.high_low_in_play,
        win_only_on_made_bid=args.win_only_on_made_bid,
        defender_cap=args.defender_cap,
        target_score=args.target_score,
        max_hands=args.max_hands,
    )


def play_random_games(rules: Rules, games: int, seed: int) -> list[dict[str, Any]]:
    """The records of ``games`` full games between uniformly random legal agents."""
    records: list[dict[str, Any]] = []
    for i in range(games):
        agent_rng = random.Random(f"agents-{seed}-{i}")
        game = Game(rules, game_rng(seed, i), game_id=game_label(seed, i))
        while not game.game_over:
            legal = game.legal_actions()
            game.step(legal[int(agent_rng.random() * len(legal))])
        records.extend(game.records)
    return records


def play_random_games_vector(rules: Rules, games: int, seed: int) -> list[dict[str, Any]]:
    """The same as :func:`play_random_games` on the batched engine: one slot per game, run until each has ended once."""
    from .vector import SmearVectorEnv

    venv = SmearVectorEnv(games, seed=seed, record="all", **rules.to_dict())
    venv.reset()
    rng = np.random.default_rng([seed, 1])
    finished = np.zeros(games, dtype=bool)
    while not finished.all():
        _, _, terminated, truncated, _ = venv.step(venv.sample_actions(rng))
        finished |= terminated | truncated
    first = [r for r in venv.records if r["game_id"].endswith("-0")]  # each slot's first game only
    return sorted(first, key=lambda r: int(r["game_id"].split("-")[1]))  # grouped by game, hands in order


def describe_hand(record: dict[str, Any]) -> str:
    """One line saying what happened in a hand record."""
    head = f"{record['game_id']} hand {record['hand_index']:>3} dealer {record['dealer']}: "
    if record["redeal"]:
        return head + "all passed, redeal"
    points = " ".join(f"{k}:{'-' if v is None else 'T' + str(v)}" for k, v in record["points"].items())
    made = "made" if record["made_bid"] else "SET"
    end = f"  GAME OVER, team {record['winner']} wins" if record["game_over"] else ""
    return (
        head + f"seat {record['bidder']} bid {record['bid']} in {record['trump']}, {made}; {points}; "
        f"score {record['score_before']} -> {record['score_after']}{end}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="smear-records",
        description="Play full games between random legal agents and write their hand records, or check a records file.",
    )
    add_version_flag(parser)
    parser.add_argument("--games", type=int, default=10, help="how many games to play (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole run (default 0)")
    parser.add_argument("--out", metavar="FILE.jsonl", help="where to write the records (JSON Lines)")
    parser.add_argument(
        "--check", metavar="FILE.jsonl", help="check a records file by replaying it; exit 1 at the first broken record"
    )
    parser.add_argument("--print", action="store_true", dest="show", help="print one line per hand")
    parser.add_argument(
        "--engine",
        choices=("single", "vector"),
        default="single",
        help="single-game engine (default) or the batched engine (the same deals; its random players draw other moves)",
    )
    add_rule_flags(parser)
    args = parser.parse_args(argv)

    if args.check:
        try:
            count = check_records(args.check)
        except RecordError as e:
            print(f"{args.check}: {e}", file=sys.stderr)
            return 1
        except OSError as e:
            print(f"{args.check}: cannot read: {e.strerror}", file=sys.stderr)
            return 2
        print(f"{args.check}: {count} records OK")
        return 0
    if args.games < 1:
        parser.error(f"--games {args.games}: must be at least 1")
    try:
        rules = rules_from_args(args)
    except ValueError as e:
        parser.error(str(e))
    start = time.perf_counter()
    play = play_random_games if args.engine == "single" else play_random_games_vector
    records = play(rules, args.games, args.seed)
    elapsed = time.perf_counter() - start
    if args.show:
        for record in records:
            print(describe_hand(record))
    over = [r for r in records if r["game_over"]]
    print(
        f"{args.games} games, {len(records)} hands, {len(over)} won, {args.games - len(over)} truncated (R16), in {elapsed:.1f} s"
    )
    if args.out:
        write_records(records, args.out)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
