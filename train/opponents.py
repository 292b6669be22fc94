"""Who sits across from the learner in each self-play game, drawn per game from a weighted mix:
the learner itself (``self``: all four seats learn), a past network of the run (``pool``), or
any agent spec (``heuristic``, ``pimc``, ``neural:PATH``, ``file.py:Class``). A mix of one
fixed agent (``{pimc: 1}``) trains a best response to it."""

from __future__ import annotations

import numpy as np
import torch

from agents import Agent, load_agent
from agents.neural import NeuralAgent
from smear_env import Rules, SmearVectorEnv, seat_view
from smear_nets import NetworkSpec, build_network

from .config import SPECIAL_OPPONENTS


def load_opponents(mix: dict[str, float], rules: Rules) -> dict[str, Agent]:
    """The agents of a mix (not self or pool), loaded and checked against the rules: a bad spec or a
    network trained for other rules is an error here, before anything starts."""
    agents = {}
    for spec, weight in mix.items():
        if spec in SPECIAL_OPPONENTS or weight <= 0:
            continue
        try:
            agent = load_agent(spec)
            agent.check_rules(rules)
        except ValueError as e:
            raise ValueError(f"config opponents: {e}") from None
        agents[spec] = agent
    return agents


class Opponents:
    """Per game: which team the learner plays (both in self-play games) and who plays the other."""

    def __init__(
        self, num_envs: int, mix: dict[str, float], rng: np.random.Generator, seed: int, rules: Rules, device: torch.device
    ) -> None:
        self.kinds = [k for k, w in mix.items() if w > 0]
        weights = np.array([mix[k] for k in self.kinds], dtype=np.float64)
        self.weights = weights / weights.sum()
        self.rng, self.rules, self.device = rng, rules, device
        self.kind = np.empty(num_envs, dtype=object)
        self.pool_pick = np.zeros(num_envs, dtype=np.int64)
        self.learner_team = np.zeros(num_envs, dtype=np.int64)
        self.pool: list[NeuralAgent] = []  # past networks of the run, playing
        self.pool_states: list[dict] = []  # their weights (what checkpoints keep)
        self.pool_steps: list[int] = []  # the step each was taken at
        self.agents = load_opponents(mix, rules)
        for agent in self.agents.values():
            agent.seed(seed)
        self.draw(np.arange(num_envs))

    def draw(self, games: np.ndarray) -> None:
        """New opponents for the games that just started (the pool stands in for self until it has a network)."""
        chosen = self.rng.choice(len(self.kinds), size=len(games), p=self.weights)
        self.kind[games] = [self.kinds[c] if self.kinds[c] != "pool" or self.pool else "self" for c in chosen]
        self.pool_pick[games] = self.rng.integers(max(len(self.pool), 1), size=len(games))
        self.learner_team[games] = self.rng.integers(2, size=len(games))

    def remember(self, state: dict, step: int, spec: NetworkSpec, size: int) -> None:
        """Add a copy of the learner's weights to the pool, keeping the newest ``size``."""
        network = build_network(spec)
        network.load_state_dict(state)
        self.pool.append(NeuralAgent.of(network.to(self.device).eval(), self.rules, name=f"pool:{step}"))
        self.pool_states.append({k: v.detach().cpu().clone() for k, v in state.items()})
        self.pool_steps.append(step)
        if len(self.pool) > size:
            del self.pool[0], self.pool_states[0], self.pool_steps[0]

    def learner_acts(self, seat: np.ndarray) -> np.ndarray:
        """For each game, whether the seat to act is played by the learner."""
        return (self.kind == "self") | ((seat & 1) == self.learner_team)

    def act(
        self, venv: SmearVectorEnv, obs: np.ndarray, mask: np.ndarray, seat: np.ndarray, actions: np.ndarray, learner: np.ndarray
    ) -> None:
        """Fill ``actions`` for the games where an opponent is to act: batched agents (networks) a whole
        batch at once, the others game by game from their seat view."""
        players: list[tuple[str, Agent, np.ndarray, np.ndarray | bool]] = [
            (f"pool{k}", agent, self.kind == "pool", self.pool_pick == k) for k, agent in enumerate(self.pool)
        ]
        players += [(spec, agent, self.kind == spec, True) for spec, agent in self.agents.items()]
        for _, agent, kind, pick in players:
            idx = np.flatnonzero(~learner & kind & pick)
            if not idx.size:
                continue
            if agent.batched:
                actions[idx] = agent.act_batch(obs[idx], mask[idx], None)
            else:
                for i in idx.tolist():
                    actions[i] = agent.act(obs[i], mask[i], seat_view(venv.game(i), int(seat[i])))
