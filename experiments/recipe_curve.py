"""Time to strength: the win rate of each snapshot of recipe runs (``runs/NAME/snapshots/minute_*.pt``) against
fixed opponents, against the minutes of the run's clock, with 95% intervals; one line per run.

    python experiments/recipe_curve.py runs/champion runs/dmc_alone --opponents neural:v0.3.0@1000 heuristic@400 \\
        --seed 1205 --workers 2 --out docs/recipe_curve.png

Each point is a duplicate match (``agents.arena``) of the snapshot against the opponent on the same deal sets
(``--seed``) for every snapshot and run. Results are kept in ``runs/NAME/curve.json`` by snapshot, opponent,
games and seed, so a second call plays only what is new; ``--minutes 30 60`` plays only those snapshots.
``--log-x`` puts the minutes on a log scale (a 720-minute run beside hour-long ones), ``--bar 0.55`` draws the
win rate a network must pass against the first opponent to ship.
The figures are printed as a table too (minutes, win rate, interval, games).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from agents.arena import run_match
from smear_env.files import atomic_write

SNAPSHOT = re.compile(r"minute_([0-9.]+)\.pt$")


def snapshots(run: Path) -> dict[float, Path]:
    """A recipe run's snapshots by their minute of the run's clock."""
    found = {}
    for path in (run / "snapshots").glob("minute_*.pt"):
        match = SNAPSHOT.search(path.name)
        if match:
            found[float(match.group(1))] = path
    return dict(sorted(found.items()))


def opponents_of(items: list[str]) -> list[tuple[str, int]]:
    """``SPEC@GAMES`` items as (spec, games)."""
    out = []
    for item in items:
        spec, _, games = item.rpartition("@")
        if not spec or not games.isdigit() or int(games) < 2:
            raise SystemExit(f"--opponents {item!r}: give SPEC@GAMES, e.g. heuristic@400 (games 2 or more)")
        out.append((spec, int(games)))
    return out


def play(run: Path, opponents: list[tuple[str, int]], minutes: list[float] | None, seed: int, workers: int) -> dict:
    """Every point of ``run`` not yet in its curve.json, played and kept; the whole curve returned."""
    cache_path = run / "curve.json"
    cache = json.loads(cache_path.read_text()) if cache_path.is_file() else {}
    for minute, path in snapshots(run).items():
        if minutes and minute not in minutes:
            continue
        for spec, games in opponents:
            key = f"{minute:g}|{spec}|{games}|{seed}"
            if key in cache:
                continue
            summary = run_match(f"neural:{path}", spec, games=games, seed=seed, workers=workers).summary()
            low, high = summary["win_rate_ci95"]
            cache[key] = {"minute": minute, "opponent": spec, "games": summary["games"], "seed": seed,
                          "win_rate": summary["win_rate"], "ci95": [low, high], "margin": summary["score_margin_per_game"]}  # fmt: skip
            print(
                f"{run.name:>20} {minute:6g} min vs {spec:<16} {summary['win_rate']:.3f} [{low:.3f}, {high:.3f}] ({summary['games']} games)",
                flush=True,
            )
            atomic_write(cache_path, lambda f: json.dump(cache, f, indent=2))
    return cache


def plot(
    curves: dict[str, dict],
    opponents: list[tuple[str, int]],
    seed: int,
    out: Path,
    labels: dict[str, str],
    log_x: bool = False,
    bar: float | None = None,
) -> None:
    """One panel an opponent, one line a run (each minute's point of the most games); ``log_x``: minutes on a
    log scale (a long run beside hour-long ones); ``bar``: a dotted line at that win rate in the first opponent's
    panel (the bar a network passes against it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(opponents), figsize=(5.5 * len(opponents), 4), squeeze=False)
    for ax, (spec, games) in zip(axes[0], opponents, strict=True):
        for run, cache in curves.items():
            best: dict[float, dict] = {}  # each minute's point of the most games (30 and 60 are played longer)
            for p in cache.values():
                if p["opponent"] == spec and p["seed"] == seed and p["games"] > best.get(p["minute"], {}).get("games", 0):
                    best[p["minute"]] = p
            points = [best[m] for m in sorted(best)]
            if not points:
                continue
            x = [p["minute"] for p in points]
            ax.plot(x, [p["win_rate"] for p in points], marker="o", label=labels.get(run, run))
            ax.fill_between(x, [p["ci95"][0] for p in points], [p["ci95"][1] for p in points], alpha=0.2)
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
        if bar is not None and spec == opponents[0][0]:
            ax.axhline(bar, color="black", linewidth=0.8, linestyle=":", label=f"the bar ({bar:g})")
        if log_x:
            ax.set_xscale("log")
            ticks = sorted({p["minute"] for cache in curves.values() for p in cache.values()})
            ax.set_xticks(ticks, [f"{t:g}" for t in ticks], fontsize=7)
            ax.minorticks_off()
        ax.set_title(f"against {spec} ({games}+ games a point)")
        ax.set_xlabel("minutes of training (2 CPU cores)")
        ax.set_ylabel("win rate (duplicate format, 95% interval)")
        ax.set_ylim(0, 1)
        ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="recipe run folders (with snapshots/)")
    parser.add_argument("--opponents", nargs="+", default=["neural:v0.3.0@400", "heuristic@200"], help="SPEC@GAMES each")
    parser.add_argument("--minutes", nargs="+", type=float, help="play only these snapshots (minutes of the run's clock)")
    parser.add_argument("--seed", type=int, default=1205, help="the deal sets of every point")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--labels", nargs="+", default=[], help="RUN=LABEL for the plot's legend")
    parser.add_argument("--out", type=Path, help="a PNG of the curves (needs the plot extra: matplotlib)")
    parser.add_argument("--log-x", action="store_true", help="minutes on a log scale (a long run beside short ones)")
    parser.add_argument(
        "--bar", type=float, help="a dotted line at this win rate against the first opponent (0.55: the bar a network ships past)"
    )
    args = parser.parse_args()
    opponents = opponents_of(args.opponents)
    for run in args.runs:
        if not (run / "snapshots").is_dir():
            raise SystemExit(f"{run}: no snapshots/ folder (a train.recipe run folder has one)")
    curves = {run.name: play(run, opponents, args.minutes, args.seed, args.workers) for run in args.runs}
    if args.out:
        plot(curves, opponents, args.seed, args.out, dict(item.split("=", 1) for item in args.labels), args.log_x, args.bar)


if __name__ == "__main__":
    main()
