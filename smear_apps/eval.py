"""``smear-eval``: duplicate-format matches and leagues between agents."""

from __future__ import annotations

import itertools
import json
import sys
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from tyro.conf import FlagCreatePairsOff, Positional, arg

from agents.arena import MatchResult, format_summary, league_ratings, plot_ratings, pool_matches, run_match, short_labels
from agents.registry import load_agent, spec_help, with_option
from smear_env import Rules
from smear_env.files import atomic_write
from smear_env.records import write_records
from smear_rl.cluster import need_ray
from smear_rl.cmdline import Flat
from smear_rl.extras import MissingExtraError, need

from .command import cli, command, refuse

PROG = "smear-eval"
DESCRIPTION = "Play agent A's partnership against agent B's in the duplicate format and report the result with its uncertainty."


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


@dataclass
class Config:
    """Who ``smear-eval`` plays, how many games on which deals, and where it writes."""

    a: Positional[
        Annotated[
            str | None,
            arg(
                metavar="A", help=f"agent spec: {spec_help()}; neural (the shipped network) or neural:PATH (a trainer checkpoint)"
            ),
        ]
    ] = None
    b: Positional[Annotated[str | None, arg(metavar="B", help="the opposing agent spec")]] = None
    games: str = "200"
    """games to play, rounded up to whole deal sets of 2; with several seeds, for each, or one count per seed (2000,4000)"""
    seed: str = "0"
    """seed of the deal sets; several, comma-separated (7,21,35): a match on each, then all pooled"""
    workers: int = 1
    """processes to play in (same results for the same seed)"""
    backend: Literal["local", "ray"] = "local"
    """local processes, or Ray tasks on a cluster (pip install '.[ray]')"""
    address: str | None = None
    """with --backend ray: the cluster to join (none: start a local Ray)"""
    json: Annotated[str | None, arg(metavar="FILE")] = None
    """write the summary as JSON"""
    records: Annotated[str | None, arg(metavar="FILE")] = None
    """write every hand as hand records (docs/records.md)"""
    league: Annotated[str | None, arg(metavar="A,B,C")] = None
    """play every pairing of these agents and print a rating table"""
    plot: Annotated[str | None, arg(metavar="FILE.png")] = None
    """with --league, draw the ratings to this file (none: no plot)"""
    device: str | None = None
    """auto, cpu, cuda or cuda:N: where agents with a device option (neural) run, unless their spec says"""
    no_progress: Annotated[bool, FlagCreatePairsOff] = False
    """no progress bar"""
    rules: Flat[Rules] = field(default_factory=Rules)
    """the rule settings the matches are played under"""

    def __post_init__(self) -> None:
        parse_runs(self.games, self.seed)  # a ValueError naming the flag
        if self.workers < 1:
            raise ValueError(f"--workers {self.workers}: must be at least 1")


@command("smear-eval")
def main(argv: list[str] | None = None) -> int:
    config = cli(Config, argv, DESCRIPTION, PROG)
    rules = config.rules
    runs = parse_runs(config.games, config.seed)
    if config.backend == "ray":
        need_ray("smear-eval --backend ray")  # a missing extra: one line (the command's), not the usage
    given = [s.strip() for s in config.league.split(",")] if config.league else [config.a, config.b]
    specs = [s for s in given if s]
    if len(specs) < len(given) or len(specs) < 2:
        refuse(PROG, "give two agent specs A B, or --league A,B[,C...]")
    if config.device:
        specs = [with_option(s, "device", config.device) for s in specs]
    if config.plot:
        need("matplotlib", "smear-eval --plot")
    for spec in specs:
        try:
            load_agent(spec)
        except MissingExtraError:
            raise  # one line (the command's), not the usage
        except ValueError as e:
            refuse(PROG, str(e))

    matches: dict[tuple[int, int], MatchResult] = {}
    parts_of: dict[tuple[int, int], list[MatchResult]] = {}
    pairs = list(itertools.combinations(range(len(specs)), 2))
    for i, j in pairs:
        parts = []
        for games, seed in runs:
            label = f"{specs[i]} vs {specs[j]}" + (f" (seed {seed})" if len(runs) > 1 else "")
            bar, update = _progress(2 * ((games + 1) // 2), label, not config.no_progress)
            with bar:
                part = run_match(
                    specs[i],
                    specs[j],
                    games,
                    seed,
                    rules,
                    config.workers,
                    bool(config.records),
                    update,
                    config.backend,
                    config.address,
                )
            if len(runs) > 1:
                rate, low, high = part.win_rate_ci95()
                print(f"seed {seed}: {part.games} games, win rate of {specs[i]} {rate:.3f} [{low:.3f}, {high:.3f}]")
            parts.append(part)
        match = matches[(i, j)] = pool_matches(parts) if len(parts) > 1 else parts[0]
        parts_of[(i, j)] = parts
        print(format_summary(match.summary()))
    if config.records:
        count = write_records((r for m in matches.values() for r in m.records()), config.records)
        print(f"wrote {count} hand records to {config.records}")
    if config.league:
        ratings, spread = league_ratings(specs, matches, seed=runs[0][1])
        labels = short_labels(specs)
        print("\nRatings (Bradley-Terry on the Elo scale, mean 1500; sd over 200 resamples of the deal sets)")
        for k in sorted(range(len(specs)), key=lambda k: -ratings[k]):
            print(f"  {labels[k]:<30} {ratings[k]:7.0f} +- {spread[k]:.0f}")
        if config.plot:
            plot_ratings(labels, ratings, spread, config.plot)
            print(f"wrote the rating plot to {config.plot}")
        if config.json:
            _write_json(
                {
                    "agents": specs,
                    "ratings": {s: float(r) for s, r in zip(specs, ratings, strict=True)},
                    "rating_sd": {s: float(r) for s, r in zip(specs, spread, strict=True)},
                    "matches": [m.summary() for m in matches.values()],
                },
                config.json,
            )
    elif config.json:
        summary = matches[(0, 1)].summary()
        if len(runs) > 1:  # each seed's match as well as the pooled one
            summary["parts"] = [part.summary() for part in parts_of[(0, 1)]]
        _write_json(summary, config.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
