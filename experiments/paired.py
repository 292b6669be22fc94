"""Agents compared on the same deals: each plays one opponent in the duplicate format on the same deal sets, and
each one's win rate is given beside its difference from the first agent's with a paired 95% interval.

    python experiments/paired.py runs/screen30_champion runs/screen30_noexit2 runs/screen30_nosuits \\
        --opponent neural:v0.3.0 --games 1000 --seed 1007922 --workers 2

An agent is a spec (``heuristic``, ``neural:PATH``) or a run folder of ``train.recipe`` (its ``final.pt``). The
deal sets are the same for every agent (``--seed``), so a difference is taken deal set by deal set, the luck of
the deals cancelled: the interval a difference of two networks has, where two unpaired ones would only overlap
(two networks of one recipe play one deal differently enough that it is not much narrower than each one's:
+-0.026 on 1,000 games where each had +-0.022, the 30-minute screens of docs/recipe.md). ``--json FILE``
writes the table.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from agents.arena import run_match
from smear_env.files import atomic_write


def spec_of(name: str) -> str:
    """A recipe run folder as the spec of its final network; any other name as it is."""
    path = Path(name)
    if path.is_dir():
        final = path / "final.pt"
        if not final.is_file():
            raise SystemExit(f"error: {path}: no final.pt there (a train.recipe run folder, finished)")
        return f"neural:{final}"
    return name


def paired(first: np.ndarray, other: np.ndarray) -> tuple[float, float, float]:
    """The mean of ``other - first`` over deal sets and its normal 95% interval."""
    diff = other - first
    mean = float(diff.mean())
    half = 1.96 * float(diff.std(ddof=1)) / math.sqrt(len(diff)) if len(diff) > 1 else float("inf")
    return mean, mean - half, mean + half


def compare(specs: list[str], opponent: str, games: int, seed: int, workers: int) -> list[dict]:
    """Each spec against ``opponent`` on the same deal sets: its win rate and interval, and its paired difference
    from the first spec's."""
    rows, base = [], None
    for spec in specs:
        match = run_match(spec, opponent, games=games, seed=seed, workers=workers)
        per_set = match.outcomes().mean(axis=1)
        rate, low, high = match.win_rate_ci95()
        base = per_set if base is None else base
        diff = paired(base, per_set)
        rows.append({"agent": spec, "opponent": opponent, "games": match.games, "seed": seed, "win_rate": rate,
                     "ci95": [low, high], "difference": diff[0], "difference_ci95": [diff[1], diff[2]]})  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agents", nargs="+", help="agent specs or train.recipe run folders; the first is the baseline")
    parser.add_argument("--opponent", default="neural:v0.3.0", help="the agent every one plays")
    parser.add_argument("--games", type=int, default=1000, help="games of each match (whole deal sets of two)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal sets, the same for every agent")
    parser.add_argument("--workers", type=int, default=1, help="processes each match is played in")
    parser.add_argument("--json", type=Path, help="write the table here as JSON")
    args = parser.parse_args(argv)
    rows = compare([spec_of(a) for a in args.agents], args.opponent, args.games, args.seed, args.workers)
    print(f"against {args.opponent}, {rows[0]['games']} games each, seed {args.seed}; difference from the first, paired")
    for row in rows:
        low, high = row["ci95"]
        dlow, dhigh = row["difference_ci95"]
        print(
            f"{row['agent']:56s} {row['win_rate']:.3f} [{low:.3f}, {high:.3f}]  {row['difference']:+.3f} [{dlow:+.3f}, {dhigh:+.3f}]"
        )
    if args.json:
        atomic_write(args.json, lambda f: json.dump(rows, f, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
