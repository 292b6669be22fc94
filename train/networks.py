"""Network building blocks shared by the trainers and the ``neural`` agent."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from smear_env import NUM_ACTIONS, OBS_DIM, STATE_DIM


def mlp(sizes: list[int], out: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), nn.ReLU()]
    layers.append(nn.Linear(sizes[-1], out))
    return nn.Sequential(*layers)


class QNetwork(nn.Module):
    """DMC: the value of each of the 72 actions for the seat that observes ``obs`` (illegal ones are masked by the caller)."""

    def __init__(self, hidden: list[int]) -> None:
        super().__init__()
        self.body = mlp([OBS_DIM, *hidden], NUM_ACTIONS)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.body(obs)


class ActorCritic(nn.Module):
    """PPO: a policy over the 72 actions from the seat's observation, and a centralized critic
    fed the full-information state plus the seat's observation (the policy never sees the state)."""

    def __init__(self, hidden: list[int]) -> None:
        super().__init__()
        self.policy = mlp([OBS_DIM, *hidden], NUM_ACTIONS)
        self.critic = mlp([STATE_DIM + OBS_DIM, *hidden], 1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.policy(obs)

    def value(self, state: torch.Tensor, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(torch.cat([state, obs], dim=-1)).squeeze(-1)


def build_network(config: dict[str, Any]) -> nn.Module:
    """The network a config describes (``algo`` dmc or ppo, ``hidden`` sizes)."""
    hidden = [int(h) for h in str(config["hidden"]).split(",")]
    if config["algo"] == "dmc":
        return QNetwork(hidden)
    if config["algo"] == "ppo":
        return ActorCritic(hidden)
    raise ValueError(f"unknown algo {config['algo']!r}: dmc or ppo")


def masked_scores(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Scores with illegal actions pushed to -inf-like values."""
    return scores.masked_fill(mask == 0, -1e9)
