"""``smear-records``: play games between random legal agents and write, or check, hand records."""

from __future__ import annotations

import sys
import time

from smear_env.extras import command
from smear_env.flags import add_rule_flags, command_parser, rules_from_args
from smear_env.records import RecordError, check_records, play_random_games, write_records
from smear_env.render import describe_hand
from smear_env.vector import play_random_games_vector


@command("smear-records")
def main(argv: list[str] | None = None) -> int:
    parser = command_parser(
        prog="smear-records",
        description="Play full games between random legal agents and write their hand records, or check a records file.",
    )
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
