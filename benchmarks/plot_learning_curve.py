"""Plot training runs' evaluation win rate (with its 95% interval) against training time.

Run: ``python benchmarks/plot_learning_curve.py runs/dmc_shipped [runs/OTHER ...] --out docs/learning_curve.png``.
Reads the TensorBoard events each run wrote (``charts/win_rate_vs_heuristic`` and the
``eval/`` interval ends).
"""

from __future__ import annotations

import argparse
import os
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run folders")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--out", default="docs/learning_curve.png")
    args = parser.parse_args()
    fig, ax = plt.subplots(figsize=(7, 4))
    for run in args.runs:
        events = EventAccumulator(run)
        events.Reload()
        tag = f"charts/win_rate_vs_{args.opponent}"
        if tag not in events.Tags()["scalars"]:
            print(f"{run}: no {tag}")
            continue
        points = events.Scalars(tag)
        low = events.Scalars(f"eval/win_rate_vs_{args.opponent}_ci_low")
        high = events.Scalars(f"eval/win_rate_vs_{args.opponent}_ci_high")
        start = min(p.wall_time for p in events.Scalars("charts/agent_steps_per_second"))
        minutes = [(p.wall_time - start) / 60 for p in points]
        ax.plot(minutes, [p.value for p in points], marker="o", label=os.path.basename(run.rstrip("/")))
        ax.fill_between(minutes, [p.value for p in low], [p.value for p in high], alpha=0.2)
        for p, m in zip(points, minutes, strict=True):
            print(f"{run}: {m:6.1f} min, step {p.step:>12,}: win rate {p.value:.3f}")
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_xlabel("training time (minutes)")
    ax.set_ylabel(f"win rate vs {args.opponent} (duplicate format)")
    ax.set_ylim(0, 1)
    ax.legend()
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(args.out)), suffix=".png")
    os.close(fd)
    fig.savefig(tmp)
    os.replace(tmp, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
