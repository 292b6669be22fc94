"""Agent-steps per second of the batched engine next to smear_v0 and OpenSpiel's hearts, on one core.

Every figure includes choosing a uniformly random legal action from the mask and
producing the next observation and mask. Run on one core:
``taskset -c 0 python benchmarks/bench_vector.py [--seconds S]`` (OpenSpiel from the
``bench`` extra). Peak memory per game is what tracemalloc saw allocated at most while stepping, over B.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))


def vector_steps_per_second(num_envs: int, seconds: float, copy: bool = True) -> tuple[float, int]:
    """Agent-steps per second, and the peak bytes allocated while stepping (tracemalloc sees numpy's arrays)."""
    import tracemalloc

    from smear_env import SmearVectorEnv

    warm = SmearVectorEnv(2, seed=0)  # compile the numba kernels before measuring memory
    warm.reset()
    warm.step(warm.sample_actions(np.random.default_rng(0)))
    tracemalloc.start()
    venv = SmearVectorEnv(num_envs, seed=0, copy=copy)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        venv.step(venv.sample_actions(rng))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(venv.sample_actions(rng))
        steps += num_envs
    return steps / (time.perf_counter() - start), peak


def hearts_steps_per_second(seconds: float) -> float:
    import pyspiel
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("hearts")
    # Hearts offers only the information-state tensor: the perfect-recall observer reads it.
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            observer.set_from(state, state.current_player())
            _ = observer.tensor
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    parser.add_argument("--sizes", default="1,64,1024,4096", help="batch sizes (default 1,64,1024,4096)")
    args = parser.parse_args()
    if hasattr(os, "sched_getaffinity"):
        print(f"cores available to this process: {len(os.sched_getaffinity(0))}")

    from bench_env import agent_steps_per_second

    import smear_env

    results = {}
    for size in (int(s) for s in args.sizes.split(",")):
        rate, memory = vector_steps_per_second(size, args.seconds)
        results[size] = rate
        print(f"SmearVectorEnv B={size:<5} {rate:>12,.0f} agent-steps/s   {memory / size / 1024:6.1f} KiB peak memory per game")
    best = max(results)
    reused, _ = vector_steps_per_second(best, args.seconds, copy=False)
    print(f"SmearVectorEnv B={best:<5} {reused:>12,.0f} agent-steps/s   with copy=False (one reused observation buffer)")
    single, _ = agent_steps_per_second(smear_env.env, args.seconds)
    print(f"smear_v0 (PettingZoo API) {single:>11,.0f} agent-steps/s")
    try:
        hearts = hearts_steps_per_second(args.seconds)
    except ImportError as e:
        print(f"open_spiel hearts not measured: {e} (pip install -e '.[bench]')")
        return
    print(f"open_spiel hearts         {hearts:>11,.0f} agent-steps/s (information-state tensor read each step)")
    print(
        f"ratio B={best} / hearts: {results[best] / hearts:.1f}x (copy=False: {reused / hearts:.1f}x); B={best} / smear_v0: {results[best] / single:.1f}x"
    )


if __name__ == "__main__":
    main()
