"""One interface for every agent: :class:`Agent` (the registry of the built-ins and the spec strings that name
agents are in :mod:`agents.registry`)."""

from __future__ import annotations

import numpy as np

from smear_env import Rules, SeatView


class Agent:
    """An agent chooses an action for one seat.

    It is given the seat's observation vector, its action mask (int8, 1 = legal) and
    its :class:`smear_env.SeatView`; neural agents read the first two, rule-based and
    search agents the view. ``act_batch`` is the batched form (one row per decision);
    an agent with ``batched = True`` decides a whole batch at once and needs no views
    (callers may pass ``views=None``). Chance inside an agent comes only from
    ``self.rng``, set by :meth:`seed`.
    """

    name = "agent"
    batched = False
    independent = False
    """True when ``act`` depends on nothing but its arguments and ``self.rng`` (no memory of earlier
    decisions): the arena may then interleave games and give each game its own generator."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng()

    def seed(self, seed: int | list[int] | None) -> None:
        """Seed the agent's random generator (the arena does this per game and seat)."""
        self.rng = np.random.default_rng(seed)

    def check_rules(self, rules: Rules) -> None:
        """Raise ValueError if this agent cannot play under ``rules`` (a network trained for others)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> int:
        """The action this agent plays for the seat to act.

        Args:
            observation: the seat's observation vector (float32, ``smear_env.OBS_DIM`` long).
            action_mask: int8, 1 for each legal action of ``smear_env.NUM_ACTIONS``.
            view: what the seat may know (:class:`smear_env.SeatView`), for rule-based and search agents.

        Returns:
            A legal action id (see ``smear_env.action_table()``).
        """
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, views: list[SeatView] | None) -> np.ndarray:
        """One action per row; the default asks :meth:`act` row by row."""
        if views is None:
            raise ValueError(f"{self.name}: needs the seat views of a batch (it is not a batched agent)")
        return np.array([self.act(o, m, v) for o, m, v in zip(observations, action_masks, views, strict=True)], dtype=np.int64)
