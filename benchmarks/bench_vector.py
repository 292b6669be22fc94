"""Agent-steps per second of the batched engine next to smear_v0 and OpenSpiel's hearts, on one core.

Every figure includes choosing a uniformly random legal action from the mask and
producing the next observation and mask. The largest batch and hearts take turns in
one-second rounds (``--seconds`` of them). Run on one core:
``taskset -c 0 python benchmarks/bench_vector.py [--seconds S]`` (OpenSpiel from the
``bench`` extra). Peak memory per game is what tracemalloc saw allocated at most while stepping, over B.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from bench_env import Rounds, Runner  # noqa: E402


def peak_memory_per_game(num_envs: int) -> float:
    """The peak bytes allocated while stepping, over B (tracemalloc sees numpy's arrays)."""
    import tracemalloc

    from smear_env import SmearVectorEnv

    warm = SmearVectorEnv(2, seed=0)  # compile the numba kernels before measuring memory
    warm.reset()
    warm.step(warm.sample_actions(np.random.default_rng(0)))
    tracemalloc.start()
    venv = SmearVectorEnv(num_envs, seed=0)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        venv.step(venv.sample_actions(rng))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / num_envs


class Vector(Rounds):
    """Random legal play in a SmearVectorEnv of B games."""

    def __init__(self, num_envs: int, copy: bool = True) -> None:
        from smear_env import SmearVectorEnv

        self.venv = SmearVectorEnv(num_envs, seed=0, copy=copy)
        self.venv.reset()
        self.rng = np.random.default_rng(0)

    def play_some(self) -> int:
        self.venv.step(self.venv.sample_actions(self.rng))
        return self.venv.num_envs


class Hearts(Rounds):
    """OpenSpiel's hearts with random legal actions, its information-state tensor read every step."""

    def __init__(self) -> None:
        import pyspiel
        from open_spiel.python.observation import make_observation

        self.game = pyspiel.load_game("hearts")
        # Hearts offers only the information-state tensor: the perfect-recall observer reads it.
        self.observer = make_observation(self.game, pyspiel.IIGObservationType(perfect_recall=True))
        self.rng = np.random.default_rng(0)
        self.state = self.game.new_initial_state()

    def play_some(self) -> int:
        rng, observer, state = self.rng, self.observer, self.state
        steps = 0
        for _ in range(100):
            if state.is_terminal():
                state = self.game.new_initial_state()
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            observer.set_from(state, state.current_player())
            _ = observer.tensor
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        self.state = state
        return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    parser.add_argument("--sizes", default="1,64,1024,4096", help="batch sizes (default 1,64,1024,4096)")
    args = parser.parse_args()
    if hasattr(os, "sched_getaffinity"):
        print(f"cores available to this process: {len(os.sched_getaffinity(0))}")

    import smear_env

    sizes = [int(s) for s in args.sizes.split(",")]
    best = max(sizes)
    for size in sizes:
        if size < best:
            vector = Vector(size)
            vector.run(args.seconds)
            print(
                f"SmearVectorEnv B={size:<5} {vector.rate:>12,.0f} agent-steps/s   {peak_memory_per_game(size) / 1024:6.1f} KiB peak memory per game"
            )
    single = Runner(smear_env.env)
    single.run(args.seconds)
    # The largest batch, with and without copy=False, and hearts take turns in one-second rounds,
    # so that a noisy machine slows all three alike.
    fresh, reused = Vector(best), Vector(best, copy=False)
    try:
        hearts: Hearts | None = Hearts()
    except ImportError as e:
        hearts = None
        print(f"open_spiel hearts not measured: {e} (pip install -e '.[bench]')")
    ratios = []
    for _ in range(max(1, round(args.seconds))):
        rate = fresh.run(1.0)
        reused.run(1.0)
        if hearts is not None:
            ratios.append(rate / hearts.run(1.0))
    print(
        f"SmearVectorEnv B={best:<5} {fresh.rate:>12,.0f} agent-steps/s   {peak_memory_per_game(best) / 1024:6.1f} KiB peak memory per game"
    )
    print(f"SmearVectorEnv B={best:<5} {reused.rate:>12,.0f} agent-steps/s   with copy=False (one reused observation buffer)")
    print(f"smear_v0 (PettingZoo API) {single.rate:>11,.0f} agent-steps/s")
    if hearts is None:
        return
    print(f"open_spiel hearts         {hearts.rate:>11,.0f} agent-steps/s (information-state tensor read each step)")
    print(
        f"ratio B={best} / hearts: {fresh.rate / hearts.rate:.1f}x (copy=False: {reused.rate / hearts.rate:.1f}x; "
        f"one-second rounds: {min(ratios):.1f}x to {max(ratios):.1f}x); B={best} / smear_v0: {fresh.rate / single.rate:.0f}x"
    )


if __name__ == "__main__":
    main()
