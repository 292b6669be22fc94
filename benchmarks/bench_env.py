"""Random-play agent-steps per second through the PettingZoo AEC API, smear_v0 next to texas_holdem_v4.

Both envs are driven by the same loop: ``last()`` (observation and action mask), a
uniformly random legal action from the mask, ``step()``; episodes reset as they end.
Run: ``python benchmarks/bench_env.py [--seconds S]`` (needs the ``bench`` extra for
texas_holdem_v4, which uses rlcard).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def agent_steps_per_second(make_env, seconds: float, seed: int = 0) -> tuple[float, int]:
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = 0
    episodes = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed + episodes)
        episodes += 1
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps / (time.perf_counter() - start), episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per env (default 10)")
    args = parser.parse_args()

    import smear_env

    smear, smear_episodes = agent_steps_per_second(smear_env.env, args.seconds)
    print(f"smear_v0          {smear:>10,.0f} agent-steps/s  ({smear_episodes} games)")
    try:
        from pettingzoo.classic import texas_holdem_v4
    except ImportError as e:
        print(f"texas_holdem_v4   not measured: {e} (pip install -e '.[bench]')")
        return
    holdem, holdem_episodes = agent_steps_per_second(texas_holdem_v4.env, args.seconds)
    print(f"texas_holdem_v4   {holdem:>10,.0f} agent-steps/s  ({holdem_episodes} hands)")
    print(f"ratio smear_v0 / texas_holdem_v4: {smear / holdem:.1f}x")


if __name__ == "__main__":
    main()
