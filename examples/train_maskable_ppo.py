"""Train sb3-contrib's MaskablePPO on one seat of Smear (partner heuristic, opponents random).

Run: ``python examples/train_maskable_ppo.py --steps 20000`` (needs the ``sb3`` extra:
``pip install -e '.[sb3]'``). Prints the mean margin per hand of the trained policy and
of a random policy in the same seat, over the same evaluation deals.
"""

from __future__ import annotations

import argparse

import numpy as np
from sb3_contrib import MaskablePPO

from agents import single_agent_env
from smear_env.single_agent import SmearSingleAgentEnv


def make_env() -> SmearSingleAgentEnv:
    return single_agent_env(seat=0, partner="heuristic", opponents="random", episode="hand", reward="margin")


def evaluate(policy, episodes: int, seed: int) -> float:
    env = make_env()
    rng = np.random.default_rng(seed)
    total = 0.0
    for episode in range(episodes):
        obs, info = env.reset(seed=seed + episode)
        done = False
        while not done:
            mask = env.action_masks()
            action = policy(obs, mask, rng)
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
    return total / episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="learner decisions to train for")
    parser.add_argument("--episodes", type=int, default=200, help="hands to evaluate on")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    model = MaskablePPO("MlpPolicy", make_env(), n_steps=512, batch_size=128, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.steps)
    trained = evaluate(lambda o, m, r: int(model.predict(o, action_masks=m, deterministic=True)[0]), args.episodes, 10_000)
    uniform = evaluate(lambda o, m, r: int(r.choice(np.flatnonzero(m))), args.episodes, 10_000)
    print(f"MaskablePPO after {args.steps} steps: {trained:+.3f} margin per hand; random in the same seat: {uniform:+.3f}")


if __name__ == "__main__":
    main()
