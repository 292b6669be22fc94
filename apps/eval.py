"""``smear-eval``: duplicate-format matches and leagues between agents."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from typing import Any

from agents.arena import MatchResult, format_summary, league_ratings, plot_ratings, pool_matches, run_match, short_labels
from agents.ray_cluster import need_ray
from agents.registry import load_agent, spec_help, with_option
from smear_env.extras import MissingExtraError, command, need
from smear_env.files import atomic_write
from smear_env.flags import add_rule_flags, command_parser, rules_from_args
from smear_env.records import write_records


def _progress(total: int, label: str, enabled: bool):
    from tqdm import tqdm

    bar = tqdm(total=total, desc=label, unit="game", disable=not enabled, file=sys.stderr)
    return bar, bar.update


def _write_json(data: Any, path: str) -> None:
    atomic_write(path, lambda f: json.dump(data, f, indent=2))


def _whole_numbers(text: str, flag: str, example: str) -> list[int]:
    try:
        numbers = [int(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"{flag} {text}: give a whole number, or several comma-separated ({example})") from None
    return numbers


def parse_runs(games: str, seed: str) -> list[tuple[int, int]]:
    """``--games`` and ``--seed`` as (games, seed) runs: one seed, or several to pool, each with the
    same number of games or its own (``--games 2000,4000 --seed 7,21``)."""
    counts = _whole_numbers(games, "--games", "2000 or 2000,4000")
    seeds = _whole_numbers(seed, "--seed", "7 or 7,21,35")
    if len(counts) == 1:
        counts *= len(seeds)
    if len(counts) != len(seeds):
        raise ValueError(f"--games {games} --seed {seed}: one count of games for all seeds, or one for each seed")
    if min(counts) < 2:
        raise ValueError(f"--games {games}: a duplicate match needs at least 2 games")
    if min(seeds) < 0:
        raise ValueError(f"--seed {seed}: seeds are whole numbers 0 or more")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"--seed {seed}: each seed once (a seed's deal sets would count twice)")
    return list(zip(counts, seeds, strict=True))


def _parser() -> argparse.ArgumentParser:
    """The command's options."""
    parser = command_parser(
        prog="smear-eval",
        description="Play agent A's partnership against agent B's in the duplicate format and report the result with its uncertainty.",
    )
    parser.add_argument(
        "a",
        nargs="?",
        help=f"agent spec: {spec_help()}; neural (the shipped network) or neural:PATH (a trainer checkpoint)",
    )
    parser.add_argument("b", nargs="?", help="the opposing agent spec")
    parser.add_argument(
        "--games",
        default="200",
        help="games to play, rounded up to whole deal sets of 2 (default 200); with several seeds, for each, or one count "
        "per seed (2000,4000)",
    )
    parser.add_argument(
        "--seed",
        default="0",
        help="seed of the deal sets (default 0); several, comma-separated (7,21,35): a match on each, then all pooled",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes to play in (same results for the same seed)")
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local processes, or Ray tasks on a cluster (pip install '.[ray]')",
    )
    parser.add_argument("--address", help="with --backend ray: the cluster to join (default: start a local Ray)")
    parser.add_argument("--json", metavar="FILE", help="write the summary as JSON")
    parser.add_argument("--records", metavar="FILE", help="write every hand as hand records (docs/records.md)")
    parser.add_argument("--league", metavar="A,B,C", help="play every pairing of these agents and print a rating table")
    parser.add_argument("--plot", metavar="FILE.png", help="with --league, draw the ratings to this file (default: no plot)")
    parser.add_argument(
        "--device", help="auto, cpu, cuda or cuda:N: where agents with a device option (neural) run, unless their spec says"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_rule_flags(parser)
    return parser


@command("smear-eval")
def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        rules = rules_from_args(args)
    except ValueError as e:
        parser.error(str(e))
    try:
        runs = parse_runs(args.games, args.seed)
    except ValueError as e:
        parser.error(str(e))
    if args.workers < 1:
        parser.error(f"--workers {args.workers}: must be at least 1")
    if args.backend == "ray":
        need_ray("smear-eval --backend ray")  # a missing extra: one line (the command's), not the usage
    specs = [s.strip() for s in args.league.split(",")] if args.league else [args.a, args.b]
    if any(not s for s in specs) or len(specs) < 2:
        parser.error("give two agent specs A B, or --league A,B[,C...]")
    if args.device:
        specs = [with_option(s, "device", args.device) for s in specs]
    if args.plot:
        need("matplotlib", "smear-eval --plot")
    for spec in specs:
        try:
            load_agent(spec)
        except MissingExtraError:
            raise  # one line (the command's), not the usage
        except ValueError as e:
            parser.error(str(e))

    matches: dict[tuple[int, int], MatchResult] = {}
    parts_of: dict[tuple[int, int], list[MatchResult]] = {}
    pairs = list(itertools.combinations(range(len(specs)), 2))
    for i, j in pairs:
        parts = []
        for games, seed in runs:
            label = f"{specs[i]} vs {specs[j]}" + (f" (seed {seed})" if len(runs) > 1 else "")
            bar, update = _progress(2 * ((games + 1) // 2), label, not args.no_progress)
            with bar:
                part = run_match(
                    specs[i], specs[j], games, seed, rules, args.workers, bool(args.records), update, args.backend, args.address
                )
            if len(runs) > 1:
                rate, low, high = part.win_rate_ci95()
                print(f"seed {seed}: {part.games} games, win rate of {specs[i]} {rate:.3f} [{low:.3f}, {high:.3f}]")
            parts.append(part)
        match = matches[(i, j)] = pool_matches(parts) if len(parts) > 1 else parts[0]
        parts_of[(i, j)] = parts
        print(format_summary(match.summary()))
    if args.records:
        count = write_records((r for m in matches.values() for r in m.records()), args.records)
        print(f"wrote {count} hand records to {args.records}")
    if args.league:
        ratings, spread = league_ratings(specs, matches, seed=runs[0][1])
        labels = short_labels(specs)
        print("\nRatings (Bradley-Terry on the Elo scale, mean 1500; sd over 200 resamples of the deal sets)")
        for k in sorted(range(len(specs)), key=lambda k: -ratings[k]):
            print(f"  {labels[k]:<30} {ratings[k]:7.0f} +- {spread[k]:.0f}")
        if args.plot:
            plot_ratings(labels, ratings, spread, args.plot)
            print(f"wrote the rating plot to {args.plot}")
        if args.json:
            _write_json(
                {
                    "agents": specs,
                    "ratings": {s: float(r) for s, r in zip(specs, ratings, strict=True)},
                    "rating_sd": {s: float(r) for s, r in zip(specs, spread, strict=True)},
                    "matches": [m.summary() for m in matches.values()],
                },
                args.json,
            )
    elif args.json:
        summary = matches[(0, 1)].summary()
        if len(runs) > 1:  # each seed's match as well as the pooled one
            summary["parts"] = [part.summary() for part in parts_of[(0, 1)]]
        _write_json(summary, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
