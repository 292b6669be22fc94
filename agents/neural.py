"""A policy trained by ``train.dmc`` or ``train.ppo``, played from a checkpoint (``nets`` format).

``neural`` plays the shipped network (``chance``'s, taught its own values averaged over the orders of
the suits; docs/results.md), ``distilled`` the one shipped before it (docs/search_and_distillation.md), ``neural:PATH`` a
checkpoint, ``neural:A+B+...`` the mean of several Q-networks' values (an output ensemble; each a path
or a built-in name, ``neural:chance+runs/x/checkpoint.pt``), ``dmc`` the first release's network (DMC self-play alone), ``chance`` ``distilled``'s
card play with contracts valued by the game's win chance (a ``q_split`` network); options ``device=``
(``auto``, ``cpu``, ``cuda``, ``cuda:N``), ``any_rules=true`` (play under rule settings
the network was not trained for) and ``suits=K`` (the values averaged over K orders of the suits, ``nets.SuitMean``,
1 to 24; by default the checkpoint's own ``suits``, else 1: the network alone). Decisions are batched: ``act_batch`` sends a whole batch
to the device in one transfer, which is what keeps a GPU busy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from nets import MeanNetwork, SuitMean, check_suits, load_checkpoint, masked_argmax, resolve_device
from smear_env import Rules, SeatView

from .base import Agent

SHIPPED = Path(__file__).parent / "weights" / "neural.pt"
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
        shipped = _SHIPPED_NAMES.get(Path(path))
        self.name = shipped or f"neural:{path}"  # what messages call it: never the install's path
        if not Path(path).exists() and Path(path) == SHIPPED:
            raise ValueError(f"agent spec 'neural': no shipped checkpoint at {SHIPPED}; give neural:runs/NAME/checkpoint.pt")
        self.device = resolve_device(device)
        members = (
            [checkpoint_path(path)]
            if "+" not in str(path) or Path(path).exists()
            else [checkpoint_path(p) for p in str(path).split("+")]
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


DMC = Path(__file__).parent / "weights" / "dmc.pt"
CHANCE = Path(__file__).parent / "weights" / "chance.pt"
DISTILLED = Path(__file__).parent / "weights" / "distilled.pt"


_SHIPPED_NAMES = {SHIPPED: "neural", DMC: "dmc", CHANCE: "chance", DISTILLED: "distilled"}


def checkpoint_path(name: str | Path) -> Path:
    """A checkpoint a config or a command names: ``neural``, ``chance``, ``distilled`` and ``dmc`` are the shipped networks (wherever
    the kit is installed), anything else a path."""
    return {label: path for path, label in _SHIPPED_NAMES.items()}.get(str(name), Path(name))


class DMCAgent(NeuralAgent):
    """``dmc``: the network of the first release (0.1.0's ``neural``), trained by DMC self-play alone
    (``configs/dmc_shipped.yaml``). The shipped ``neural`` is this network taught the ``search``
    agent's card play; ``search`` takes its contracts from this one, and the figures measured
    against 0.1.0's ``neural`` are against it."""

    def __init__(self, device: str = "auto", any_rules: bool = False, suits: int | None = None) -> None:
        super().__init__(DMC, device, any_rules, suits)
        self.name = "dmc"


class ChanceAgent(NeuralAgent):
    """``chance``: ``distilled``'s card play with contracts (bids, trump, discards) valued by
    the change each hand makes to the team's chance of winning the game, not by the hand's margin:
    a ``q_split`` network (``train.dmc`` with ``target: chance``; docs/results.md, "Contracts for
    the game"). It bids for the game: at the end of one, where a point is the game, it bids what
    a margin network would not."""

    def __init__(self, device: str = "auto", any_rules: bool = False, suits: int | None = None) -> None:
        super().__init__(CHANCE, device, any_rules, suits)
        self.name = "chance"


class DistilledAgent(NeuralAgent):
    """``distilled``: the ``neural`` shipped from 2026-12-02 to 2026-12-03, a ``q`` network distilled from the
    ``search`` agent's card play by expert iteration (docs/search_and_distillation.md), its contracts
    ``dmc``'s. Today's ``neural`` is ``chance`` (this network's card play, contracts valued by the
    game's win chance) taught its own values averaged over the orders of the suits; the figures measured
    against the ``neural`` of 2026-12-02 and 2026-12-03 are against this one."""

    def __init__(self, device: str = "auto", any_rules: bool = False, suits: int | None = None) -> None:
        super().__init__(DISTILLED, device, any_rules, suits)
        self.name = "distilled"
