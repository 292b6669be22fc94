"""The checkpoint format: a versioned network spec, the rule settings, the weights; anything else a trainer adds.

A checkpoint is a dict of tensors and plain Python values, written atomically, so that
``torch.load(path, weights_only=True)`` reads it and a stranger's file cannot run code::

    {"format": "smear-rl-checkpoint/1", "network": NetworkSpec as a dict, "rules": Rules as a
     dict, "model": state dict, "smear_rl_version": "0.3.0", ...}

``smear_rl_version`` is the kit's version that wrote the file (``extra`` when read; files of
0.1.0 do not have it).

A trainer adds its own keys (optimizer, step, RNG states, its config for ``--resume``);
an agent reads only the first four. Checkpoints of the kit's first release (a trainer
config with ``algo``, ``hidden`` and ``kitty_size``) are read as the same.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from smear_env import Rules, __version__
from smear_env.files import atomic_write

from .networks import NetworkSpec, build_network

FORMAT = "smear-rl-checkpoint/1"
CHECKPOINT = "checkpoint.pt"


@dataclass
class Checkpoint:
    """A checkpoint as read: the network spec, the rules it was trained under, the weights, the rest."""

    network: NetworkSpec
    rules: Rules
    model: dict[str, torch.Tensor]
    extra: dict[str, Any] = field(default_factory=dict)

    def build(self, device: torch.device | str = "cpu") -> torch.nn.Module:
        """The network with these weights, on ``device``, in eval mode."""
        network = build_network(self.network)
        try:
            network.load_state_dict(self.model)
        except RuntimeError as e:
            raise ValueError(f"the checkpoint's weights do not fit its network spec {self.network} ({str(e)[:200]})") from None
        return network.to(device).eval()


def save_checkpoint(path: str | os.PathLike[str], network: NetworkSpec, rules: Rules, model: dict, **extra: Any) -> Path:
    """Write a checkpoint atomically: a kill at any moment leaves the previous one whole.

    Args:
        path: the file to write (its folder must exist).
        network: the spec that rebuilds the network.
        rules: the rule settings it was trained under.
        model: the network's state dict.
        **extra: a trainer's own keys (optimizer, step, RNG states, config); plain values and tensors only.

    Returns:
        The path written.
    """
    payload = {
        "format": FORMAT,
        "network": network.to_dict(),
        "rules": rules.to_dict(),
        "model": model,
        "smear_rl_version": __version__,
        **extra,
    }
    return atomic_write(path, lambda f: torch.save(payload, f), binary=True)


def load_checkpoint(path: str | os.PathLike[str], device: torch.device | str = "cpu") -> Checkpoint:
    """A checkpoint (or a run folder's ``checkpoint.pt``), its tensors on ``device``; a clear error for
    a missing or foreign file."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT
    if not path.is_file():
        raise ValueError(f"checkpoint {path}: no such file")
    try:
        payload = torch.load(path, map_location=device, weights_only=True)
    except Exception as e:  # noqa: BLE001 - torch raises many kinds for a bad file
        raise ValueError(f"checkpoint {path}: not a smear-rl checkpoint ({type(e).__name__}: {str(e)[:200]})") from None
    if not isinstance(payload, dict) or "model" not in payload:
        raise ValueError(f"checkpoint {path}: not a smear-rl checkpoint (no weights)")
    try:
        if payload.get("format") == FORMAT:
            extra = {k: v for k, v in payload.items() if k not in ("format", "network", "rules", "model")}
            return Checkpoint(
                NetworkSpec.from_dict(payload["network"]), Rules.from_dict(payload["rules"]), payload["model"], extra
            )
        if "config" in payload:  # the kit's first release: a trainer config
            config = payload["config"]
            hidden = tuple(int(h) for h in str(config["hidden"]).split(","))
            spec = NetworkSpec("q" if config["algo"] == "dmc" else "actor_critic", hidden)
            extra = {k: v for k, v in payload.items() if k != "model"}
            return Checkpoint(spec, Rules(kitty_size=int(config.get("kitty_size", 3))), payload["model"], extra)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"checkpoint {path}: a broken smear-rl checkpoint ({e})") from None
    raise ValueError(f"checkpoint {path}: not a smear-rl checkpoint (format {payload.get('format')!r}, expected {FORMAT!r})")
