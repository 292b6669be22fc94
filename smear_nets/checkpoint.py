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

Two operations make a checkpoint of others (``python -m train.tools.export`` writes them; the recipe and
``smear-exploit`` use ``joined``): :func:`averaged`, every weight the mean of several networks' (a model
soup), and :func:`joined`, one ``q_split`` network of one DMC network's contract decisions and another's
card play.
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


def part(checkpoint: Checkpoint, name: str) -> dict:
    """The weights of one body (``contracts`` or ``play``) of a ``q`` network (its only one) or a ``q_split`` one."""
    prefix = "body." if checkpoint.network.kind == "q" else f"{name}."
    return {k.removeprefix(prefix): v for k, v in checkpoint.model.items() if k.startswith(prefix)}


def averaged(checkpoints: list[Checkpoint], paths: list[str]) -> Checkpoint:
    """The first checkpoint with every weight the mean of all of theirs; a ValueError if they differ in kind,
    sizes or rules."""
    first = checkpoints[0]
    for path, c in zip(paths[1:], checkpoints[1:], strict=True):
        if c.network != first.network or c.rules != first.rules:
            raise ValueError(
                f"{path} ({c.network.kind} {c.network.hidden}, {c.rules}) and {paths[0]} ({first.network.kind} "
                f"{first.network.hidden}, {first.rules}): --average needs the same kind, sizes and rules"
            )
    model = {k: sum((c.model[k].float() for c in checkpoints), torch.zeros(())) / len(checkpoints) for k in first.model}
    return Checkpoint(first.network, first.rules, model, first.extra)


def joined(play: Checkpoint, contracts: Checkpoint, play_path: str, contracts_path: str) -> Checkpoint:
    """A ``q_split`` checkpoint: ``contracts``' contract decisions and ``play``'s card play; a ValueError if they differ."""
    for path, c in ((play_path, play), (contracts_path, contracts)):
        if c.network.kind not in ("q", "q_split"):
            raise ValueError(f"{path}: a {c.network.kind!r} network; --contracts joins DMC networks (q or q_split)")
    if play.network.hidden != contracts.network.hidden or play.rules != contracts.rules:
        raise ValueError(
            f"{play_path} ({play.network.hidden}, {play.rules}) and {contracts_path} ({contracts.network.hidden}, "
            f"{contracts.rules}): --contracts needs the same hidden sizes and rules"
        )
    model = {f"contracts.{k}": v for k, v in part(contracts, "contracts").items()}
    model.update({f"play.{k}": v for k, v in part(play, "play").items()})
    spec = NetworkSpec("q_split", play.network.hidden)
    return Checkpoint(spec, play.rules, model, play.extra)
