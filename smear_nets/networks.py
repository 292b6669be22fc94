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
from smear_env.symmetry import ACTION_INDEX, OBS_INDEX, SUIT_PERMUTATIONS

SPEC_VERSION = 1
KINDS = ("q", "q_split", "actor_critic", "beliefs")
# The bid, trump and discard phases' one-hot entries: three in a row, so a slice reads them.
CONTRACT_PHASES = slice(OFFSETS["phase"] + Phase.BID, OFFSETS["phase"] + Phase.DISCARD + 1)
assert (Phase.TRUMP, Phase.DISCARD) == (Phase.BID + 1, Phase.BID + 2)
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
        contracts_asked = int(contract.sum())  # one look at the values (a GPU waits for it once)
        if contracts_asked == 0:
            return self.play(obs)
        if contracts_asked == obs.shape[0]:
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


def check_suits(orders: int, kinds: tuple[str, ...] = ()) -> None:
    """A ValueError unless ``orders`` (of the suits, ``SuitMean``) is 1 to 24 and every network ``kinds`` names
    is a Q-network (``q`` or ``q_split``): the one check of a ``suits=`` setting, wherever it is given."""
    if not 1 <= orders <= len(SUIT_PERMUTATIONS):
        raise ValueError(f"suits={orders}: the orders of the suits to average over, 1 to {len(SUIT_PERMUTATIONS)}")
    for kind in kinds:
        if kind not in ("q", "q_split"):
            raise ValueError(f"suits={orders} averages the values of q or q_split networks only, not of a {kind!r} one")


class SuitMean(nn.Module):
    """A Q-network's values averaged over relabellings of the suits (``neural:PATH,suits=K``): no rule
    names a suit, so a position seen with its suits relabelled is the same position, and a network that
    ranks two cards by noise ranks them differently under another order of the suits. The first ``orders``
    of ``smear_env.symmetry.SUIT_PERMUTATIONS`` (the first is the identity); 24 is all of them."""

    obs_index: torch.Tensor
    back: torch.Tensor

    def __init__(self, network: nn.Module, orders: int) -> None:
        super().__init__()
        check_suits(orders)
        self.network, self.orders = network, orders
        self.register_buffer("obs_index", torch.from_numpy(OBS_INDEX[:orders].reshape(-1)))
        # each relabelled position's values, back in the original position's actions
        self.register_buffer("back", torch.from_numpy(np.argsort(ACTION_INDEX[:orders], axis=1)))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Each action's value: the network's values of the relabelled positions, mapped back and averaged."""
        views = obs[:, self.obs_index].reshape(-1, OBS_DIM)  # [batch * orders, OBS_DIM]
        values = self.network(views).view(obs.shape[0], self.orders, NUM_ACTIONS)
        return values.gather(2, self.back.expand(obs.shape[0], -1, -1)).mean(dim=1)


class SuitShuffle:
    """Decisions seen under random orders of the suits (data augmentation for a Q-network's learner): no rule
    names a suit, so a decision's observation and action relabelled by one of the 24 orders
    (``smear_env.symmetry``) is a decision of the relabelled game with the same return."""

    def __init__(self, device: torch.device) -> None:
        self.obs_index = torch.from_numpy(OBS_INDEX).to(device)
        self.new_action = torch.from_numpy(np.argsort(ACTION_INDEX, axis=1)).to(device)  # [order, old action] -> new

    def __call__(
        self, obs: torch.Tensor, actions: torch.Tensor, generator: torch.Generator | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``obs`` [n, OBS_DIM] and ``actions`` [n], each row under an order of the suits drawn by ``generator``."""
        orders = torch.randint(len(self.obs_index), (len(obs),), device=obs.device, generator=generator)
        return obs.gather(1, self.obs_index[orders]), self.new_action[orders, actions]


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
