"""A policy trained by ``train.dmc`` or ``train.ppo``, loaded from a checkpoint (weights only)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from smear_env import SeatView

from .base import Agent

SHIPPED = Path(__file__).parent / "weights" / "neural.pt"


class NeuralAgent(Agent):
    """Plays the legal action the network scores highest (DMC: Q-value; PPO: policy logit)."""

    def __init__(self, path: str | Path = SHIPPED) -> None:
        super().__init__()
        from train.networks import build_network
        from train.runs import load_checkpoint

        payload = load_checkpoint(path)
        self.config = payload["config"]
        try:
            self.network = build_network(self.config)
            self.network.load_state_dict(payload["model"])
        except (KeyError, RuntimeError, ValueError) as e:
            raise ValueError(f"checkpoint {path}: its weights do not fit its config ({str(e)[:200]})") from None
        self.network.eval()
        self.name = f"neural:{path}"

    @torch.no_grad()
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, views=None) -> np.ndarray:
        scores = self.network(torch.as_tensor(np.asarray(observations, dtype=np.float32))).numpy()
        scores = np.where(np.asarray(action_masks) > 0, scores, -np.inf)
        return scores.argmax(axis=1)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])
