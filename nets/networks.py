"""The networks of the kit, built from a versioned spec; and the masked argmax every player of a network uses."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from smear_env import NUM_ACTIONS, OBS_DIM, STATE_DIM

SPEC_VERSION = 1
KINDS = ("q", "actor_critic", "beliefs")
PLACES = 4  # where a card a seat cannot see may lie: its left, its partner, its right, out of play (kitty, discards)


@dataclass(frozen=True)
class NetworkSpec:
    """What a checkpoint needs to rebuild its network: the kind, the sizes and the spec's version.

    ``q``: a Q-network, the value of each of the 72 actions from the seat's observation (DMC).
    ``actor_critic``: a policy over the 72 actions from the observation, with a centralized
    critic fed the full-information state and the observation (PPO).
    ``beliefs``: for each of the 32 cards, where it lies (the seat's left, partner, right, or
    out of play) as logits, from the seat's observation: a model of the hidden cards."""

    kind: str
    """``q``, ``actor_critic`` or ``beliefs``."""
    hidden: tuple[int, ...]
    """Hidden layer sizes."""
    obs_dim: int = OBS_DIM
    """Observation size (smear_v0)."""
    num_actions: int = NUM_ACTIONS
    """Action table size (smear_v0)."""
    version: int = SPEC_VERSION
    """The spec format's version."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"network kind={self.kind!r}: one of {KINDS}")
        if not self.hidden or any(not isinstance(h, int) or isinstance(h, bool) or h < 1 for h in self.hidden):
            raise ValueError(f"network hidden={self.hidden!r}: one or more positive layer sizes, e.g. (256, 256)")
        if self.version != SPEC_VERSION:
            raise ValueError(f"network spec version {self.version}: this kit reads version {SPEC_VERSION}")

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "hidden": list(self.hidden)}

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> NetworkSpec:
        return cls(**{**values, "hidden": tuple(values["hidden"])})


def mlp(sizes: list[int], out: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), nn.ReLU()]
    layers.append(nn.Linear(sizes[-1], out))
    return nn.Sequential(*layers)


class QNetwork(nn.Module):
    """DMC: the value of each of the 72 actions for the seat that observes ``obs`` (illegal ones are masked by the caller)."""

    def __init__(self, spec: NetworkSpec) -> None:
        super().__init__()
        self.body = mlp([spec.obs_dim, *spec.hidden], spec.num_actions)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.body(obs)


class ActorCritic(nn.Module):
    """PPO: a policy over the 72 actions from the seat's observation, and a centralized critic
    fed the full-information state plus the seat's observation (the policy never sees the state)."""

    def __init__(self, spec: NetworkSpec) -> None:
        super().__init__()
        self.policy = mlp([spec.obs_dim, *spec.hidden], spec.num_actions)
        self.critic = mlp([STATE_DIM + spec.obs_dim, *spec.hidden], 1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.policy(obs)

    def value(self, state: torch.Tensor, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(torch.cat([state, obs], dim=-1)).squeeze(-1)


class BeliefNetwork(nn.Module):
    """Where each card lies, from one seat's observation: logits [batch, 32, 4] over the seat's left,
    partner, right and out of play. Known cards (held, played, the bidder's own pick-up and
    discards) are the caller's to mask."""

    def __init__(self, spec: NetworkSpec) -> None:
        super().__init__()
        self.body = mlp([spec.obs_dim, *spec.hidden], 32 * PLACES)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.body(obs).view(-1, 32, PLACES)


def build_network(spec: NetworkSpec) -> nn.Module:
    """The network a spec describes (untrained)."""
    return {"q": QNetwork, "actor_critic": ActorCritic, "beliefs": BeliefNetwork}[spec.kind](spec)


def masked_argmax(scores: torch.Tensor | np.ndarray, mask: torch.Tensor | np.ndarray) -> np.ndarray:
    """For each row, the legal action (``mask`` > 0) with the highest score: how a network plays."""
    if isinstance(scores, torch.Tensor):
        mask_t = torch.as_tensor(mask, device=scores.device) > 0
        return scores.masked_fill(~mask_t, -torch.inf).argmax(dim=-1).cpu().numpy()
    return np.where(np.asarray(mask) > 0, scores, -np.inf).argmax(axis=-1)
