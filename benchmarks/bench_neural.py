"""Decisions per second of a neural agent by batch size: how much batching buys, on the device given.

Run: ``python benchmarks/bench_neural.py [--spec neural] [--device cpu] [--threads 1] [--seconds 3]``.
The observations and masks are real ones, from random play on the batched engine; each batch
size is timed for ``--seconds`` (one warm-up call first), the agent's ``act_batch`` end to end:
the transfer to the device, the network, the masked argmax and the way back.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from agents import load_agent
from smear_env import SmearVectorEnv

BATCHES = (1, 64, 1024, 4096)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="neural", help="a neural agent spec (default: the shipped network)")
    parser.add_argument("--device", default="cpu", help="auto, cpu, cuda or cuda:N (default cpu)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per batch size (default 3)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    agent = load_agent(f"{args.spec}{',' if ':' in args.spec else ':'}device={args.device}")
    venv = SmearVectorEnv(max(BATCHES), seed=0)
    rng = np.random.default_rng(0)
    obs, info = venv.reset()
    for _ in range(int(rng.integers(20, 60))):  # a mix of phases
        obs, _, _, _, info = venv.step(venv.sample_actions(rng))
    mask = info["action_mask"]
    print(f"{agent.name} on {agent.device} ({args.threads} torch thread(s))")
    for batch in BATCHES:
        o, m = obs[:batch], mask[:batch]
        agent.act_batch(o, m, None)
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            agent.act_batch(o, m, None)
            calls += 1
        elapsed = time.perf_counter() - start
        print(f"batch {batch:>5}: {calls * batch / elapsed:>12,.0f} decisions/s  ({1e3 * elapsed / calls:.3f} ms per call)")


if __name__ == "__main__":
    main()
