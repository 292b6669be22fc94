"""The network agent: a policy trained by ``train.dmc`` or ``train.ppo``, played from a checkpoint (``smear_nets`` format).

One agent, its weights named by its spec: ``neural`` plays the shipped network (``chance``'s, taught its
own values averaged over the orders of the suits; docs/research), ``neural:NAME`` any other shipped
network by its name (``neural:distilled``, ``neural:chance``, ``neural:dmc``: ``smear_nets.shipped``),
``neural:PATH`` a checkpoint, ``neural:A+B+...`` the mean of several Q-networks' values (an output
ensemble; each a path or a shipped name, ``neural:chance+runs/x/checkpoint.pt``). Options ``device=``
(``auto``, ``cpu``, ``cuda``, ``cuda:N``), ``any_rules=true`` (play under rule settings
the network was not trained for) and ``suits=K`` (the values averaged over K orders of the suits, ``smear_nets.SuitMean``,
1 to 24; by default the checkpoint's own ``suits``, else 1: the network alone). Decisions are batched: ``act_batch`` sends a whole batch
to the device in one transfer, which is what keeps a GPU busy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from smear_env import Rules, SeatView
from smear_nets import MeanNetwork, SuitMean, check_suits, load_checkpoint, masked_argmax, resolve_device
from smear_nets.shipped import NETWORKS, shipped_name, weights_path

from .base import Agent

SHIPPED = NETWORKS["neural"]
# Settings a network's observations do not depend on: a game may differ in these.
_IGNORED = ("max_hands",)


def _differing(trained: Rules, asked: Rules) -> dict:
    """The settings of ``asked`` that differ from ``trained`` in something a network depends on (any but ``_IGNORED``)."""
    return {k: v for k, v in asked.to_dict().items() if k not in _IGNORED and getattr(trained, k) != v}


class NeuralAgent(Agent):
    """Plays the legal action the network scores highest (DMC: Q-value; PPO: policy logit)."""

    batched = True
    independent = True

    def __init__(
        self, path: str | Path = SHIPPED, device: str = "auto", any_rules: bool = False, suits: int | None = None
    ) -> None:
        super().__init__()
        path = weights_path(path) if "+" not in str(path) else path
        shipped = shipped_name(path)
        self.name = "neural" if shipped == "neural" else f"neural:{shipped or path}"  # never the install's path
        if not Path(path).exists() and Path(path) == SHIPPED:
            raise ValueError(f"agent spec 'neural': no shipped checkpoint at {SHIPPED}; give neural:runs/NAME/checkpoint.pt")
        self.device = resolve_device(device)
        members = (
            [weights_path(path)]
            if "+" not in str(path) or Path(path).exists()
            else [weights_path(p) for p in str(path).split("+")]
        )
        checkpoints = [load_checkpoint(member, self.device) for member in members]
        if len(checkpoints) > 1:
            if any(c.network.kind not in ("q", "q_split") for c in checkpoints):
                kinds = ", ".join(f"{m}: {c.network.kind}" for m, c in zip(members, checkpoints, strict=True))
                raise ValueError(f"{self.name}: an ensemble averages Q-values, of q or q_split networks only ({kinds})")
            if any(_differing(checkpoints[0].rules, c.rules) for c in checkpoints[1:]):
                raise ValueError(f"{self.name}: its networks were trained under different rules; an ensemble needs the same")
        try:
            networks = [c.build(self.device) for c in checkpoints]
        except ValueError as e:
            raise ValueError(f"{self.name}: {e}") from None
        self.network = networks[0] if len(networks) == 1 else MeanNetwork(networks).eval()
        self.suits = int(checkpoints[0].extra.get("suits", 1)) if suits is None else suits
        if self.suits != 1:
            try:
                check_suits(self.suits, tuple(c.network.kind for c in checkpoints))
            except ValueError as e:
                raise ValueError(f"{self.name}: {e}") from None
            self.network = SuitMean(self.network, self.suits).to(self.device).eval()
        self.rules = checkpoints[0].rules
        self.any_rules = any_rules
        self.path: Path | None = members[0] if len(members) == 1 else Path(path)  # None for an in-memory network (``of``)
        self._checked: Rules | None = None

    @classmethod
    def of(cls, network: torch.nn.Module, rules: Rules, name: str = "learner", any_rules: bool = False) -> NeuralAgent:
        """An agent playing an in-memory network (a trainer's learner, a pool entry), on the network's device."""
        agent = cls.__new__(cls)
        Agent.__init__(agent)
        agent.network, agent.rules, agent.any_rules, agent.name = network, rules, any_rules, name
        agent.device = next(network.parameters()).device
        agent._checked, agent.path, agent.suits = None, None, 1
        return agent

    def check_rules(self, rules: Rules) -> None:
        """Raise ValueError if ``rules`` differ from the network's in a setting it depends on (any but ``max_hands``), unless ``any_rules``."""
        if self.any_rules or rules is self._checked:
            return
        different = _differing(self.rules, rules)
        if different:
            trained = ", ".join(f"{k}={getattr(self.rules, k)!r}" for k in different)
            asked = ", ".join(f"{k}={v!r}" for k, v in different.items())
            raise ValueError(
                f"{self.name}: trained under {trained}, asked to play {asked}: it has never seen these rules. "
                "Add any_rules=true to the spec (neural:PATH,any_rules=true) to play anyway"
            )
        self._checked = rules

    @torch.no_grad()
    def values(self, observations: np.ndarray) -> np.ndarray:
        """The network's output for each row: each action's value (a DMC network: the hand's expected score margin)."""
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32)).to(self.device, non_blocking=True)
        return self.network(obs).cpu().numpy()

    def scores(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView | None = None) -> dict[int, float]:
        """Each legal action's value as the network judges it (a DMC network: the hand's expected score margin)."""
        values = self.values(observation[None])[0]
        return {int(a): float(values[a]) for a in np.flatnonzero(action_mask)}

    @torch.no_grad()
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, views=None) -> np.ndarray:
        """The legal action of highest value in each row, in one network call; ``views`` are not needed."""
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32)).to(self.device, non_blocking=True)
        if self.device.type == "cpu":
            return masked_argmax(self.network(obs).numpy(), action_masks)
        mask = torch.as_tensor(np.asarray(action_masks)).to(self.device, non_blocking=True)
        return masked_argmax(self.network(obs), mask)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> int:
        """The legal action of highest value (:meth:`act_batch` on one row)."""
        if view is not None:
            self.check_rules(view.rules)
        return int(self.act_batch(observation[None], action_mask[None])[0])
