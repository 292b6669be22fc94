"""DMC throughput, local actors against Ray actors; and the precision by the machine.

Run: ``python benchmarks/bench_dmc.py [--seconds 40] [--rounds 2]`` (the Ray rows need the
``ray`` extra): ``configs/dmc_quick.yaml`` trained for ``--seconds`` with the local backend
(actor processes) and the Ray backend (a local Ray), 1 and 2 actors, taking turns in rounds so
that both see the same machine; agent-steps per second as the trainer counts them. What each
stage of the pipeline carries alone: ``benchmarks/bench_pipeline.py``.

``python benchmarks/bench_dmc.py --precision [--seconds 10] [--recipe-seconds 45]``: the machine, the
learner's gradient steps a second (``configs/dmc_recipe.yaml``'s network and batch, one thread) in fp32 and
in bf16, taking turns in rounds, and what ``precision: auto`` chooses here; with ``--recipe-seconds``, also
``dmc_recipe`` trained for that long under auto, fp32 and bf16, its agent-steps a second as the trainer counts them.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from train import dmc
from train.config import from_mapping

CONFIGS = Path(__file__).parent.parent / "configs"
CONFIG = CONFIGS / "dmc_quick.yaml"


def quick(**changes) -> dmc.Config:
    return built("dmc_quick", **changes)


def built(name: str, **changes) -> dmc.Config:
    import yaml

    values = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text())
    values.update(changes)
    return from_mapping(dmc.Config, values)


def trained_speed(config: dmc.Config) -> float:
    """Agent-steps a second of a run of ``config``, as its log's last line counts them."""
    folder = dmc.train(config)
    log = (folder / "train.log").read_text().splitlines()
    return float(
        next(line for line in reversed(log) if line.startswith("trained ")).split("(")[1].split("/s")[0].replace(",", "")
    )


def gradient_steps(seconds: float, precision: str) -> float:
    """The learner's gradient steps a second under ``precision`` on the CPU, dmc_recipe's network and batch."""
    import time

    import torch

    from smear_nets import NetworkSpec, SuitShuffle, build_network
    from smear_nets.packed import PACKED

    config = built("dmc_recipe", precision=precision, max_seconds=60, device="cpu")
    torch.manual_seed(0)
    q = build_network(NetworkSpec("q", config.hidden))
    optimizer = torch.optim.Adam(q.parameters(), lr=config.learning_rate)
    replay = dmc.Replay(config.batch_size * 4, torch.device("cpu"), seed=0)
    rng = np.random.default_rng(0)
    n = config.batch_size * 4
    replay.add(rng.integers(0, 256, (n, PACKED), dtype=np.uint8), rng.integers(0, 72, n), rng.normal(size=n).astype(np.float32))
    shuffle = SuitShuffle(torch.device("cpu")) if config.augment_suits else None
    steps, began = 0, time.perf_counter()
    while steps < 3 or time.perf_counter() - began < seconds:
        dmc.gradient_step(q, optimizer, replay.sample(config.batch_size), None, 0.0, None, config, shuffle, replay.generator)
        steps += 1
    return steps / (time.perf_counter() - began)


def precision_rows(seconds: float, rounds: int, recipe_seconds: float) -> None:
    import torch

    from smear_nets.device import choose_precision, machine

    torch.set_num_threads(1)  # the learner's, as the built-in configs set it (torch_threads: 1)
    print(f"machine: {machine().line()}")
    steps: dict[str, list[float]] = {"fp32": [], "bf16": []}
    for _ in range(rounds):
        for precision in steps:
            steps[precision].append(gradient_steps(seconds, precision))
    chosen, why = choose_precision("auto", torch.device("cpu"))
    print("\nThe learner's gradient steps a second (dmc_recipe's network and batch, one thread, CPU):")
    for precision, values in steps.items():
        print(f"  {precision}: {np.median(values):8.1f}  (rounds: {', '.join(f'{v:.1f}' for v in values)})")
    print(f"  bf16 / fp32: {np.median(steps['bf16']) / np.median(steps['fp32']):.2f}")
    print(f"  precision auto chooses {chosen} ({why})")
    if recipe_seconds:
        print(f"\ndmc_recipe trained {recipe_seconds:g} s each (agent-steps/s, all seats, learner included):")
        for precision in ("auto", "fp32", "bf16"):
            with tempfile.TemporaryDirectory() as runs:
                config = built("dmc_recipe", runs_dir=runs, run_name="bench", precision=precision, max_seconds=recipe_seconds,
                               total_steps=10**12, eval_games=2, checkpoint_seconds=10**6, log_seconds=10**6, device="cpu")  # fmt: skip
                print(f"  {precision}: {trained_speed(config):,.0f}", flush=True)


def throughput(seconds: float, rounds: int, ray_ok: bool) -> None:
    cases = [("local", 1), ("local", 2)] + ([("ray", 1), ("ray", 2)] if ray_ok else [])
    speeds: dict[tuple[str, int], list[float]] = {case: [] for case in cases}
    for _ in range(rounds):
        for backend, actors in cases:
            with tempfile.TemporaryDirectory() as runs:
                config = quick(runs_dir=runs, run_name="bench", backend=backend, num_actors=actors, max_seconds=seconds,
                               total_steps=10**10, eval_every=10**10, eval_games=2, checkpoint_seconds=10**6, log_seconds=10**6)  # fmt: skip
                speed = trained_speed(config)
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
    parser.add_argument("--precision", action="store_true", help="the precision rows instead (see the docstring)")
    parser.add_argument("--recipe-seconds", type=float, default=0.0, help="with --precision: seconds of dmc_recipe each")
    args = parser.parse_args()
    if args.precision:
        precision_rows(args.seconds, args.rounds, args.recipe_seconds)
        return
    try:
        import ray  # noqa: F401

        ray_ok = True
    except ImportError:
        ray_ok = False
        print("(Ray not installed: local rows only)")
    throughput(args.seconds, args.rounds, ray_ok)


if __name__ == "__main__":
    main()
