"""DMC throughput, local actors against Ray actors.

Run: ``python benchmarks/bench_dmc.py [--seconds 40] [--rounds 2]`` (the Ray rows need the
``ray`` extra): ``configs/dmc_quick.yaml`` trained for ``--seconds`` with the local backend
(actor processes) and the Ray backend (a local Ray), 1 and 2 actors, taking turns in rounds so
that both see the same machine; agent-steps per second as the trainer counts them. What each
stage of the pipeline carries alone: ``benchmarks/bench_pipeline.py``.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from train import dmc
from train.config import from_mapping

CONFIG = Path(__file__).parent.parent / "configs" / "dmc_quick.yaml"


def quick(**changes) -> dmc.Config:
    import yaml

    values = yaml.safe_load(CONFIG.read_text())
    values.update(changes)
    return from_mapping(dmc.Config, values)


def throughput(seconds: float, rounds: int, ray_ok: bool) -> None:
    cases = [("local", 1), ("local", 2)] + ([("ray", 1), ("ray", 2)] if ray_ok else [])
    speeds: dict[tuple[str, int], list[float]] = {case: [] for case in cases}
    for _ in range(rounds):
        for backend, actors in cases:
            with tempfile.TemporaryDirectory() as runs:
                config = quick(runs_dir=runs, run_name="bench", backend=backend, num_actors=actors, max_seconds=seconds,
                               total_steps=10**10, eval_every=10**10, eval_games=2, checkpoint_seconds=10**6, log_seconds=10**6)  # fmt: skip
                folder = dmc.train(config)
                log = (folder / "train.log").read_text().splitlines()
                speed = float(
                    next(line for line in reversed(log) if line.startswith("trained "))
                    .split("(")[1]
                    .split("/s")[0]
                    .replace(",", "")
                )
                speeds[(backend, actors)].append(speed)
                print(f"  {backend:<5} {actors} actor(s): {speed:,.0f} agent-steps/s", flush=True)
    print("\nThroughput (agent-steps/s, all seats, learner included; rounds alternate the cases):")
    for (backend, actors), values in speeds.items():
        print(f"  {backend:<5} {actors} actor(s): {np.median(values):>9,.0f}  (rounds: {', '.join(f'{v:,.0f}' for v in values)})")
    if ray_ok:
        for actors in (1, 2):
            ratio = np.median(speeds[("ray", actors)]) / np.median(speeds[("local", actors)])
            print(f"  ray / local with {actors} actor(s): {ratio:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=40.0, help="seconds per throughput run (default 40)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the throughput cases (default 2)")
    args = parser.parse_args()
    try:
        import ray  # noqa: F401

        ray_ok = True
    except ImportError:
        ray_ok = False
        print("(Ray not installed: local rows only)")
    throughput(args.seconds, args.rounds, ray_ok)


if __name__ == "__main__":
    main()
