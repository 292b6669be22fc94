"""``make gpu-check``: the kit on this machine's GPU, in one command, in under 8 minutes; nothing runs without one.

1. The tests that touch a device, with ``auto`` meaning the GPU (``tests/test_pipeline.py``,
   ``tests/test_device.py``, ``tests/test_trainers.py``, ``tests/test_search.py``).
2. Inference: the Q-network's decisions per second by batch size, on the GPU and on one CPU thread.
3. DMC (``configs/dmc_quick.yaml``, evaluation off): agent-steps per second with the learner on ``cuda``
   against ``cpu`` and 1, 4 and 12 actors (as many as the cores allow), the actors' inference on the CPU
   or the GPU, and ``configs/dmc_gpu.yaml`` (the GPU box's settings: larger batches, the same reuse).
4. PPO (``configs/ppo_quick.yaml``) on ``cuda`` against ``cpu``.

It prints one table with the versions of torch, CUDA and the GPU; ``--seconds`` sets each training run's
length (default 20), ``--skip-tests`` leaves part 1 out.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(Path(__file__).parent))


def train(algo: str, config: str, seconds: float, *flags: str) -> float:
    """Agent-steps per second of ``python -m train.ALGO --config CONFIG FLAGS`` run for ``seconds`` (evaluation off)."""
    from bench_pipeline import train_speed

    return train_speed(seconds, *flags, algo=algo, config=config)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of each training run (default 20)")
    parser.add_argument("--skip-tests", action="store_true", help="leave out the tests")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print(
            f"gpu-check: torch {torch.__version__} (CUDA build: {torch.version.cuda or 'none'}) sees no CUDA device here, "
            "so nothing was run. On a machine with an NVIDIA GPU, install a CUDA build of torch "
            "(docs/install.md) and run make gpu-check again."
        )
        return 0
    started = time.time()
    name = torch.cuda.get_device_name()
    cores = multiprocessing.cpu_count()
    print(f"gpu-check on {name} ({torch.cuda.get_device_properties(0).total_memory / 2**30:.0f} GiB), {cores} cores; "
          f"torch {torch.__version__}, CUDA {torch.version.cuda}", flush=True)  # fmt: skip
    table: list[tuple[str, str]] = []

    def add(what: str, figure: str) -> None:
        table.append((what, figure))
        print(f"  {what:<70} {figure}", flush=True)

    if not args.skip_tests:
        tests = ["tests/test_pipeline.py", "tests/test_device.py", "tests/test_trainers.py", "tests/test_search.py"]
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", str(min(8, cores)), *tests], cwd=ROOT,
                              capture_output=True, text=True)  # fmt: skip
        add("tests on the GPU (" + ", ".join(Path(t).stem for t in tests) + ")", done.stdout.strip().splitlines()[-1])
        if done.returncode:
            print(done.stdout[-4000:])

    from bench_pipeline import inference

    for batch in (256, 1024, 4096, 16384):
        gpu = inference(2.0, (256, 256), batch, torch.device("cuda"))
        cpu = inference(2.0, (256, 256), batch, torch.device("cpu")) if batch <= 4096 else float("nan")
        add(f"inference (256, 256) batch {batch}: decisions/s, GPU | 1 CPU thread", f"{gpu:>12,.0f} | {cpu:,.0f}")

    seconds = args.seconds
    actors = [n for n in (1, 4, 12) if n < cores] or [1]
    for n in actors:
        on_gpu = train("dmc", "dmc_quick", seconds, "--device", "cuda", "--num-actors", str(n), "--actor-device", "cpu")
        add(f"DMC dmc_quick, {n} actor(s) (inference on the CPU), learner cuda: agent-steps/s", f"{on_gpu:>12,.0f}")
    most = actors[-1]
    on_cpu = train("dmc", "dmc_quick", seconds, "--device", "cpu", "--num-actors", str(most))
    add(f"DMC dmc_quick, {most} actor(s), learner cpu: agent-steps/s", f"{on_cpu:>12,.0f}")
    gpu_actors = train("dmc", "dmc_quick", seconds, "--device", "cuda", "--num-actors", str(most), "--actor-device", "cuda")
    add(f"DMC dmc_quick, {most} actor(s) (inference on the GPU), learner cuda: agent-steps/s", f"{gpu_actors:>12,.0f}")
    box = train("dmc", "dmc_gpu", seconds, "--num-actors", str(most))
    add(f"DMC dmc_gpu (batch 8192, the same reuse), {most} actor(s): agent-steps/s (155,337 at 73d67fc)", f"{box:>12,.0f}")
    ppo_gpu = train("ppo", "ppo_quick", seconds, "--device", "cuda")
    ppo_cpu = train("ppo", "ppo_quick", seconds, "--device", "cpu")
    add("PPO ppo_quick: agent-steps/s, cuda | cpu", f"{ppo_gpu:>12,.0f} | {ppo_cpu:,.0f}")

    print(f"\nThe GPU check on {name}, torch {torch.__version__}, CUDA {torch.version.cuda}, {cores} cores "
          f"({(time.time() - started) / 60:.1f} minutes):")  # fmt: skip
    for what, figure in table:
        print(f"| {what} | {figure} |")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
