"""Train ``smear_v0`` with RLlib's PPO (the new API stack): one policy shared by the four seats, with
action masking.

Run: ``python examples/rllib_ppo.py --iterations 20`` (needs the ``ray`` extra:
``pip install -e '.[ray]'``). Prints each iteration's episode return and, at the end, the
trained policy's duplicate-format win rate against ``random``.

Two things to know when plugging a PettingZoo env into RLlib (both handled below):

* RLlib checks an env before training by stepping it with *unmasked* random actions.
  ``smear_env.env()`` ends the episode on an illegal move (PettingZoo's convention), so the
  check passes; ``smear_env.env(illegal_action="raise")`` would fail it.
* RLlib's action-masking module (``ActionMaskingTorchRLModule``) reads the observation
  dict's ``"observations"`` and ``"action_mask"`` keys (a float mask), where PettingZoo
  envs use ``"observation"``: :class:`RLlibKeys` renames them.
"""

from __future__ import annotations

import argparse

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

import smear_env


class RLlibKeys(BaseWrapper):
    """``smear_v0`` with the observation keys RLlib's masking module reads: ``observations`` and a float ``action_mask``."""

    def __init__(self, env) -> None:
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        self._space = spaces.Dict(
            {
                "observations": inner["observation"],
                "action_mask": spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32),
            }
        )

    def observation_space(self, agent):
        return self._space

    def observe(self, agent):
        obs = self.env.observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


def make_env(config: dict) -> PettingZooEnv:
    return PettingZooEnv(RLlibKeys(smear_env.env(episode="hand", reward="margin", **config)))


def build(env_runners: int, batch: int, seed: int):
    register_env("smear_v0", make_env)
    config = (
        PPOConfig()
        .environment("smear_v0", env_config={"kitty_size": 3})
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"head_fcnet_hiddens": [128, 128], "head_fcnet_activation": "relu"},
                    )
                }
            )
        )
        .training(train_batch_size_per_learner=batch, minibatch_size=min(batch, 256), num_epochs=2, lr=3e-4)
        .debugging(seed=seed)
    )
    return config.build_algo()


def win_rate_against_random(algo, games: int) -> float:
    """The shared policy (greedy over legal actions) in all its team's seats against ``random``, duplicate format."""
    import torch

    from agents import Agent
    from agents.arena import MatchResult, play_deal_sets
    from agents.random_agent import RandomAgent

    module = algo.get_module("shared")

    class Policy(Agent):
        batched = independent = True

        def act_batch(self, observations, action_masks, views=None):
            batch = {
                "obs": {
                    "observations": torch.as_tensor(observations),
                    "action_mask": torch.as_tensor(action_masks, dtype=torch.float32),
                }
            }
            with torch.no_grad():
                logits = module.forward_inference(batch)["action_dist_inputs"]
            return np.where(np.asarray(action_masks) > 0, logits.numpy(), -np.inf).argmax(axis=1)

        def act(self, observation, action_mask, view):
            return int(self.act_batch(observation[None], action_mask[None])[0])

    rules = smear_env.Rules()
    sets = play_deal_sets((Policy(), RandomAgent()), rules, 7, list(range(games // 2)), False)
    return MatchResult(("rllib", "random"), rules, 7, sets).summary()["win_rate"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20, help="PPO iterations")
    parser.add_argument("--env-runners", type=int, default=1, help="RLlib env runners (0: sample in this process)")
    parser.add_argument("--batch", type=int, default=4000, help="agent steps per iteration")
    parser.add_argument("--games", type=int, default=40, help="games of the final evaluation against random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import ray

    ray.init(include_dashboard=False, log_to_driver=False)
    try:
        algo = build(args.env_runners, args.batch, args.seed)
        for i in range(args.iterations):
            result = algo.train()
            runners, learner = result.get("env_runners", {}), result.get("learners", {}).get("shared", {})
            # One policy plays both teams of a zero-sum game: its episode return sums to 0, so print what moves.
            print(f"iteration {i + 1}: {runners.get('num_env_steps_sampled_lifetime', 0):,.0f} env steps, episode length "
                  f"{runners.get('episode_len_mean', float('nan')):.1f}, policy loss {learner.get('policy_loss', float('nan')):+.4f}, "
                  f"entropy {learner.get('entropy', float('nan')):.3f}", flush=True)  # fmt: skip
        print(
            f"RLlib PPO after {args.iterations} iterations: win rate against random {win_rate_against_random(algo, args.games):.3f}"
        )
        algo.stop()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
