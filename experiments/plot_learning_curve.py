"""Learning curves: the win rate of a run's snapshots against fixed opponents over training time.

Run: ``python experiments/plot_learning_curve.py runs/dmc_full runs/ppo_full --opponents heuristic,pimc
--games 100 --points 6 --workers 2 --out docs/learning_curve.png`` (``--opponents heuristic@200,pimc@60``
sets the games per opponent).

Every evaluation of a run keeps its network in ``runs/NAME/snapshots/`` (weights, step and
training seconds). This script plays up to ``--points`` of them, evenly spread over the run
(the last one always), against each opponent in the arena's duplicate format (the same deal
sets for every snapshot), and plots win rate with its 95% interval against training minutes,
one panel per opponent. Results are kept in ``runs/NAME/curve.json`` so a second call only
plays what is new.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402

from agents.arena import MatchResult  # noqa: E402
from agents.arena.games import play_chunk  # noqa: E402
from smear_env import Rules  # noqa: E402
from smear_env.files import atomic_write  # noqa: E402
from train.run import SNAPSHOTS  # noqa: E402

SEED = 2024  # deal sets of every curve point


def rules_of(snapshot: Path) -> Rules:
    """The rule settings a snapshot was trained under (its games are played under them)."""
    return Rules.from_dict(torch.load(snapshot, weights_only=True).get("rules", {}))


def pick(snapshots: list[Path], points: int) -> list[Path]:
    """Up to ``points`` snapshots evenly spread over the run, the last one always in."""
    if len(snapshots) <= points:
        return snapshots
    step = (len(snapshots) - 1) / (points - 1)
    return [snapshots[round(i * step)] for i in range(points)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run folders (with snapshots/)")
    parser.add_argument("--opponents", default="heuristic,pimc", help="comma-separated agent specs, each optionally @GAMES")
    parser.add_argument("--games", type=int, default=100, help="games per point (duplicate format) unless SPEC@GAMES")
    parser.add_argument("--points", type=int, default=6, help="snapshots per run to play")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default="docs/learning_curve.png")
    args = parser.parse_args()
    games: dict[str, int] = {}
    for item in args.opponents.split(","):
        spec, _, count = item.partition("@")
        if count and not count.isdigit():
            parser.error(f"--opponents {item!r}: SPEC or SPEC@GAMES")
        games[spec] = int(count) if count else args.games
    if min(games.values()) < 2 or args.points < 2 or args.workers < 1:
        parser.error("games per point and --points must be at least 2, --workers at least 1")
    opponents = list(games)

    # What to play: (run, snapshot, opponent) not yet in the run's curve.json.
    cache, todo = {}, []
    for run in args.runs:
        snapshots = sorted((Path(run) / SNAPSHOTS).glob("step_*.pt"))
        if not snapshots:
            parser.error(f"{run}: no {SNAPSHOTS}/step_*.pt (runs save them at each evaluation)")
        path = Path(run) / "curve.json"
        cache[run] = json.loads(path.read_text()) if path.is_file() else {}
        for snap in pick(snapshots, args.points):
            for opponent in opponents:
                key = f"{snap.name} vs {opponent} x{games[opponent]}"
                if key not in cache[run]:
                    todo.append((run, snap, opponent, key))

    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        jobs = []
        for item in todo:
            sets = list(range((games[item[2]] + 1) // 2))
            chunk = max(1, len(sets) // (2 * args.workers))
            for i in range(0, len(sets), chunk):
                part = sets[i : i + chunk]
                jobs.append(
                    (
                        item,
                        len(sets),
                        pool.submit(play_chunk, (f"neural:{item[1]}", item[2]), rules_of(item[1]), SEED, part, False),
                    )
                )
        results: dict[str, list] = {}
        for (run, snap, opponent, key), total, job in jobs:
            results.setdefault(key, []).extend(job.result())
            if len(results[key]) == total:
                summary = MatchResult(
                    ("learner", opponent), rules_of(snap), SEED, sorted(results[key], key=lambda d: d.deal_set)
                ).summary()
                meta = torch.load(snap, weights_only=True)
                cache[run][key] = {
                    "step": meta["global_step"],
                    "minutes": meta.get("elapsed", 0.0) / 60,
                    "opponent": opponent,
                    "games": summary["games"],
                    "win_rate": summary["win_rate"],
                    "win_rate_ci95": summary["win_rate_ci95"],
                }
                atomic_write(Path(run) / "curve.json", lambda f, run=run: json.dump(cache[run], f, indent=1))
                low, high = summary["win_rate_ci95"]
                print(f"{run}: {cache[run][key]['minutes']:6.1f} min, step {meta['global_step']:>12,}: "
                      f"vs {opponent} {summary['win_rate']:.3f} [{low:.3f}, {high:.3f}]", flush=True)  # fmt: skip

    fig, axes = plt.subplots(1, len(opponents), figsize=(6 * len(opponents), 4), squeeze=False)
    for ax, opponent in zip(axes[0], opponents, strict=True):
        for run in args.runs:
            rows = sorted((r for k, r in cache[run].items() if r["opponent"] == opponent and k.endswith(f"x{games[opponent]}")),
                          key=lambda r: r["step"])  # fmt: skip
            if not rows:
                continue
            minutes = [r["minutes"] for r in rows]
            ax.plot(minutes, [r["win_rate"] for r in rows], marker="o", label=os.path.basename(run.rstrip("/")))
            ax.fill_between(minutes, [r["win_rate_ci95"][0] for r in rows], [r["win_rate_ci95"][1] for r in rows], alpha=0.2)
        ax.axhline(0.5, color="grey", lw=0.8)
        ax.set_title(f"vs {opponent} ({games[opponent]} games per point, duplicate format)")
        ax.set_xlabel("training time (minutes, 2 CPU cores)")
        ax.set_ylabel("game win rate")
        ax.set_ylim(0, 1)
        ax.legend()
    fig.tight_layout()
    atomic_write(args.out, lambda f: fig.savefig(f, format="png"), binary=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
