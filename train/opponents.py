"""Who sits across from the learner in each self-play game: the learner itself, a past
checkpoint from the run's pool, or a built-in agent, drawn per game from a mix."""

from __future__ import annotations

import copy

import numpy as np
import torch

from agents import load_agent
from smear_env import SmearVectorEnv, seat_view

KINDS = ("self", "pool", "heuristic", "random")


def check_mix(mix: dict[str, float]) -> None:
    """A clear error for a bad opponent mix (config field ``opponents``)."""
    if not mix or set(mix) - set(KINDS) or sum(mix.values()) <= 0 or any(v < 0 for v in mix.values()):
        raise ValueError(f"config opponents={mix!r}: non-negative weights for {list(KINDS)}, summing above 0")


class Opponents:
    """Per game: which team the learner plays (both in self-play games) and who plays the other."""

    def __init__(self, num_envs: int, mix: dict[str, float], rng: np.random.Generator, seed: int) -> None:
        check_mix(mix)
        self.kinds = [k for k in KINDS if mix.get(k, 0) > 0]
        weights = np.array([mix[k] for k in self.kinds], dtype=np.float64)
        self.weights = weights / weights.sum()
        self.rng = rng
        self.kind = np.empty(num_envs, dtype=object)
        self.pool_pick = np.zeros(num_envs, dtype=np.int64)
        self.learner_team = np.zeros(num_envs, dtype=np.int64)
        self.pool: list[torch.nn.Module] = []  # past networks of the run, playing
        self.pool_states: list[dict] = []  # their weights (what checkpoints keep)
        self.pool_steps: list[int] = []  # the step each was taken at
        self.builtin = {k: load_agent(k) for k in ("heuristic", "random") if k in self.kinds}
        for agent in self.builtin.values():
            agent.seed(seed)
        self.draw(np.arange(num_envs))

    def draw(self, games: np.ndarray) -> None:
        """New opponents for the games that just started."""
        chosen = self.rng.choice(len(self.kinds), size=len(games), p=self.weights)
        self.kind[games] = [self.kinds[c] if self.kinds[c] != "pool" or self.pool else "self" for c in chosen]
        self.pool_pick[games] = self.rng.integers(max(len(self.pool), 1), size=len(games))
        self.learner_team[games] = self.rng.integers(2, size=len(games))

    def remember(self, state: dict, step: int, build, size: int) -> None:
        """Add a copy of the learner's weights to the pool, keeping the newest ``size``."""
        net = build()
        net.load_state_dict(state)
        self.pool.append(net)
        self.pool_states.append(copy.deepcopy(state))
        self.pool_steps.append(step)
        if len(self.pool) > size:
            del self.pool[0], self.pool_states[0], self.pool_steps[0]

    def learner_acts(self, seat: np.ndarray) -> np.ndarray:
        """For each game, whether the seat to act is played by the learner."""
        return (self.kind == "self") | ((seat & 1) == self.learner_team)

    @torch.no_grad()
    def act(
        self, venv: SmearVectorEnv, obs: np.ndarray, mask: np.ndarray, seat: np.ndarray, actions: np.ndarray, learner: np.ndarray
    ) -> None:
        """Fill ``actions`` for the games where an opponent is to act."""
        for k, net in enumerate(self.pool):
            idx = np.flatnonzero(~learner & (self.kind == "pool") & (self.pool_pick == k))
            if idx.size:
                scores = net(torch.from_numpy(obs[idx])).numpy()
                actions[idx] = np.where(mask[idx] > 0, scores, -np.inf).argmax(axis=1)
        for kind, agent in self.builtin.items():
            for i in np.flatnonzero(~learner & (self.kind == kind)).tolist():
                actions[i] = agent.act(obs[i], mask[i], seat_view(venv.game(i), int(seat[i])))
