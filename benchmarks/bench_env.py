"""Random-play agent-steps per second through the PettingZoo AEC API, smear_v0 next to texas_holdem_v4.

Both envs are driven by the same loop: ``last()`` (observation and action mask), a
uniformly random legal action from the mask, ``step()``; episodes reset as they end.
The loop picks the action with Python's ``random`` rather than a numpy Generator, whose
per-call overhead (about 3 us) would otherwise be a tenth of a smear_v0 step.
The two envs take turns in one-second rounds, so that a noisy machine slows both
alike; the ratio is of the totals, with the range of the per-round ratios.
Run: ``python benchmarks/bench_env.py [--seconds S]`` (needs the ``bench`` extra for
texas_holdem_v4, which uses rlcard).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np


class Rounds:
    """Agent-steps counted over rounds of play; a subclass plays a few steps in ``play_some``."""

    steps = 0
    seconds = 0.0

    def play_some(self) -> int:
        raise NotImplementedError

    def run(self, seconds: float) -> float:
        """Play for about ``seconds``; returns the agent-steps per second of this round."""
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            steps += self.play_some()
        elapsed = time.perf_counter() - start
        self.steps += steps
        self.seconds += elapsed
        return steps / elapsed

    @property
    def rate(self) -> float:
        """Agent-steps per second over every round so far."""
        return self.steps / self.seconds


class Runner(Rounds):
    """Plays random legal actions in one PettingZoo AEC env."""

    def __init__(self, make_env, seed: int = 0) -> None:
        self.env = make_env()
        self.rng = random.Random(seed)
        self.seed = seed
        self.episodes = 0
        self.iterator = iter(())

    def play_some(self) -> int:
        env, rng = self.env, self.rng
        steps = 0
        for _ in range(100):
            agent = next(self.iterator, None)
            if agent is None:
                env.reset(seed=self.seed + self.episodes)
                self.episodes += 1
                self.iterator = iter(env.agent_iter())
                continue
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per env (default 10)")
    args = parser.parse_args()

    import smear_env

    smear = Runner(smear_env.env)
    try:
        from pettingzoo.classic import texas_holdem_v4
    except ImportError as e:
        smear.run(args.seconds)
        print(f"smear_v0          {smear.rate:>10,.0f} agent-steps/s  ({smear.episodes} games)")
        print(f"texas_holdem_v4   not measured: {e} (pip install -e '.[bench]')")
        return
    holdem = Runner(texas_holdem_v4.env)
    ratios = []
    for _ in range(max(1, round(args.seconds))):
        ratios.append(smear.run(1.0) / holdem.run(1.0))
    print(f"smear_v0          {smear.rate:>10,.0f} agent-steps/s  ({smear.episodes} games)")
    print(f"texas_holdem_v4   {holdem.rate:>10,.0f} agent-steps/s  ({holdem.episodes} hands)")
    print(
        f"ratio smear_v0 / texas_holdem_v4: {smear.rate / holdem.rate:.1f}x (one-second rounds: {min(ratios):.1f}x to {max(ratios):.1f}x)"
    )


if __name__ == "__main__":
    main()
