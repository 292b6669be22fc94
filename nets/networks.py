"""The networks of the kit, built from a versioned spec; and the masked argmax every player of a network uses."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from smear_env import NUM_ACTIONS, OBS_DIM, STATE_DIM, Phase
from smear_env.observer import OFFSETS

SPEC_VERSION = 1
KINDS = ("q", "q_split", "actor_critic", "beliefs")
CONTRACT_PHASES = [OFFSETS["phase"] + p for p in (Phase.BID, Phase.TRUMP, Phase.DISCARD)]  # their one-hot entries
PLACES = 4  # where a card a seat cannot see may lie: its left, its partner, its right, out of play (kitty, discards)


@dataclass(frozen=True)
class NetworkSpec:
    """What a checkpoint needs to rebuild its network: the kind, the sizes and the spec's version.

    ``q``: a Q-network, the value of each of the 72 actions from the seat's observation (DMC).
    ``q_split``: two such Q-networks of the same sizes, one for the contracts (the bid, trump
    and discard decisions), one for the card play, each answering its own decisions: contracts
    valued by one measure (the game's win chance) and play by another (the hand's margin).
    ``actor_critic``: a policy over the 72 actions from the observation, with a centralized
    critic fed the full-information state and the observation (PPO).
    ``beliefs``: for each of the 32 cards, where it lies (the seat's left, partner, right, or
    out of play) as logits, from the seat's observation: a model of the hidden cards."""

    kind: str
    """``q``, ``q_split``, ``actor_critic`` or ``beliefs``."""
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
        """The spec as plain values, as a checkpoint stores it."""
        return {**dataclasses.asdict(self), "hidden": list(self.hidden)}

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> NetworkSpec:
        """The spec a checkpoint stored; a ValueError for an unknown kind or a newer spec version."""
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


class SplitQNetwork(nn.Module):
    """``q_split``: a ``q`` network's output (a value per action) from two bodies, ``contracts`` for the
    observations of the bid, trump and discard phases and ``play`` for the rest, routed by the
    observation's phase one-hot (a finished game's all-zero phase goes to ``play``)."""

    def __init__(self, spec: NetworkSpec) -> None:
        super().__init__()
        self.contracts = mlp([spec.obs_dim, *spec.hidden], spec.num_actions)
        self.play = mlp([spec.obs_dim, *spec.hidden], spec.num_actions)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        contract = obs[:, CONTRACT_PHASES].sum(dim=1) > 0.5
        if not bool(contract.any()):
            return self.play(obs)
        if bool(contract.all()):
            return self.contracts(obs)
        contracts = self.contracts(obs[contract])
        out = obs.new_empty((obs.shape[0], contracts.shape[1]))
        out[contract] = contracts
        out[~contract] = self.play(obs[~contract])
        return out


class MeanNetwork(nn.Module):
    """Several Q-networks' values averaged action by action (an output ensemble; ``neural:A+B``): where the
    members' rankings of near-equal cards are noise, the mean's is less so."""

    def __init__(self, members: list[nn.Module]) -> None:
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Each action's value: the members' values averaged."""
        return torch.stack([member(obs) for member in self.members]).mean(dim=0)


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
    return {"q": QNetwork, "q_split": SplitQNetwork, "actor_critic": ActorCritic, "beliefs": BeliefNetwork}[spec.kind](spec)


def widen(network: nn.Module, spec: NetworkSpec, hidden: tuple[int, ...], seed: int = 0) -> tuple[nn.Module, NetworkSpec]:
    """A network of ``spec`` with its hidden layers widened to ``hidden`` that computes the same function
    (Net2Net's wider operator): each new unit copies an existing unit's incoming weights, and the copies
    of a unit share its outgoing weights in random proportions that sum to one (so ReLU's output is
    unchanged, and the copies' gradients differ from the first step: they do not stay copies).
    For the ``q`` and ``beliefs`` kinds (one MLP); ``hidden`` has the same depth, no layer narrower."""
    if spec.kind not in ("q", "beliefs"):
        raise ValueError(f"widen: a {spec.kind!r} network cannot be widened (q and beliefs networks can)")
    if len(hidden) != len(spec.hidden) or any(b < a for a, b in zip(spec.hidden, hidden, strict=True)):
        raise ValueError(f"widen: hidden={hidden} must have {len(spec.hidden)} layers, none narrower than {spec.hidden}")
    wide_spec = dataclasses.replace(spec, hidden=tuple(hidden))
    wide = build_network(wide_spec)
    old = [m for m in network.modules() if isinstance(m, nn.Linear)]
    new = [m for m in wide.modules() if isinstance(m, nn.Linear)]
    rng = np.random.default_rng(seed)
    source = torch.arange(old[0].in_features)  # which old input each new input copies
    share = torch.ones(old[0].in_features)  # the share of that old input's outgoing weight it carries
    with torch.no_grad():
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            weight = a.weight[:, source] * share  # the inputs: copies split their source's weight
            if i == len(old) - 1:
                b.weight.copy_(weight)
                b.bias.copy_(a.bias)
                break
            n, m = a.out_features, b.out_features
            source = torch.from_numpy(np.concatenate([np.arange(n), rng.integers(0, n, m - n)]))
            draws = torch.from_numpy(rng.uniform(0.5, 1.5, m)).float()
            share = draws / torch.zeros(n).index_add_(0, source, draws)[source]
            b.weight.copy_(weight[source])
            b.bias.copy_(a.bias[source])
    return wide, wide_spec


def masked_argmax(scores: torch.Tensor | np.ndarray, mask: torch.Tensor | np.ndarray) -> np.ndarray:
    """For each row, the legal action (``mask`` > 0) with the highest score: how a network plays."""
    if isinstance(scores, torch.Tensor):
        mask_t = torch.as_tensor(mask, device=scores.device) > 0
        return scores.masked_fill(~mask_t, -torch.inf).argmax(dim=-1).cpu().numpy()
    return np.where(np.asarray(mask) > 0, scores, -np.inf).argmax(axis=-1)
