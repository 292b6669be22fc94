"""A teacher's values as a network's targets, shared by ``train.distill`` (which fits them) and ``train.dmc``
(which keeps a distilled network's card play with them beside its Monte-Carlo loss): the positions a
teacher judged, read from their shards, and the loss that measures a network against them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

TEMPERATURE = 0.05  # points: the teacher's values of a card-play decision often differ by hundredths
VALUE_WEIGHT = 0.1


def load_positions(folders: list[Path]) -> dict[str, np.ndarray]:
    """The positions of every shard in ``folders``, concatenated."""
    shards = [p for folder in folders for p in sorted(folder.glob("*.npz"))]
    if not shards:
        raise ValueError(f"{', '.join(map(str, folders))}: no positions (shards *.npz) to fit on")
    parts = [dict(np.load(p)) for p in shards]
    parts = [p for p in parts if p]
    return {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "target", "phase")}


def as_tensors(data: dict[str, np.ndarray]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Positions as the fit and ``teacher_loss`` take them: observations (float32), the teacher's values
    (0 where unjudged), legal actions."""
    obs = torch.from_numpy(data["obs"].astype(np.float32, copy=False))
    return obs, torch.from_numpy(np.nan_to_num(data["target"], nan=0.0)), torch.from_numpy(data["mask"])


def teacher_loss(
    values: torch.Tensor, goal: torch.Tensor, legal: torch.Tensor, temperature: float, value_weight: float
) -> torch.Tensor:
    """How far a network's ``values`` [batch, 72] are from the teacher's ``goal`` over the ``legal`` actions:
    cross-entropy to the teacher's values as a soft policy at ``temperature`` (points) plus
    ``value_weight`` times their mean squared error (illegal actions count in neither)."""
    student = torch.log_softmax((values / temperature).masked_fill(~legal, -1e9), dim=-1)
    teacher = torch.softmax((goal / temperature).masked_fill(~legal, -1e9), dim=-1)
    return -(teacher * student).sum(dim=-1).mean() + value_weight * (((values - goal) ** 2) * legal).sum() / legal.sum()
