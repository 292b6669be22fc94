"""The uniformly random legal agent."""

from __future__ import annotations

import numpy as np

from smear_env import SeatView

from .base import Agent


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"
    independent = True

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> int:
        """A legal action drawn uniformly with ``self.rng``."""
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(legal.size)])
