"""Strip a training checkpoint to what an agent needs (network spec, rules, weights), for shipping.

Run: ``python -m train.export runs/NAME/checkpoint.pt agents/weights/neural.pt``; it refuses
to overwrite a file that exists unless given ``--force``.

``--contracts runs/OTHER/checkpoint.pt`` joins two DMC networks into one ``q_split`` network: the
bid, trump and discard decisions are OTHER's, the card play the first checkpoint's (of a
``q_split`` network, the body of that part is taken). Both must have the same sizes and rules.

``--average runs/B/checkpoint.pt runs/C/checkpoint.pt`` averages the first checkpoint's weights with
these, tensor by tensor (a model soup: networks fine-tuned from one start sit in one basin, and
their mean plays like the mean of their values at the speed of one network). All must be of the
same kind, sizes and rules. The average is taken before ``--contracts`` joins.

``--suits K`` records that the network is to be played with its values averaged over K orders of
the suits (``nets.SuitMean``; ``neural:OUT`` then plays so unless its spec says ``suits=``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import torch
from tyro.conf import Positional, arg

from nets import Checkpoint, NetworkSpec, check_suits, load_checkpoint, save_checkpoint

from .config import cli


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


@dataclass
class Config:
    """What ``python -m train.export`` writes, from which checkpoints."""

    checkpoint: Positional[Annotated[str, arg(metavar="CHECKPOINT")]]
    """a run's checkpoint.pt (or its folder)"""
    out: Positional[Annotated[str, arg(metavar="OUT")]]
    """where to write the slim checkpoint"""
    force: bool = False
    """overwrite OUT if it exists"""
    contracts: str | None = None
    """a DMC checkpoint whose bid, trump and discard decisions replace CHECKPOINT's (a q_split network)"""
    average: tuple[str, ...] = ()
    """checkpoints whose weights are averaged with CHECKPOINT's (a model soup; same kind, sizes and rules)"""
    suits: int | None = None
    """play the network with its values averaged over this many orders of the suits (1 to 24; nets.SuitMean)"""


def main(argv: list[str] | None = None) -> int:
    config = cli(Config, argv, __doc__.splitlines()[0], "python -m train.export")
    out = Path(config.out)
    if out.exists() and not config.force:
        print(f"{out} exists: give --force to overwrite it", file=sys.stderr)
        return 1
    try:
        checkpoint = load_checkpoint(config.checkpoint)
        if config.average:
            paths = [config.checkpoint, *config.average]
            checkpoint = averaged([checkpoint, *(load_checkpoint(p) for p in config.average)], paths)
        if config.contracts:
            checkpoint = joined(checkpoint, load_checkpoint(config.contracts), config.checkpoint, config.contracts)
        if config.suits is not None:
            check_suits(config.suits, (checkpoint.network.kind,))
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    step = int(checkpoint.extra.get("global_step", 0))
    trained = {"trained_with": checkpoint.extra["smear_rl_version"]} if "smear_rl_version" in checkpoint.extra else {}
    suits = checkpoint.extra.get("suits") if config.suits is None else config.suits
    played = {"suits": int(suits)} if suits not in (None, 1) else {}
    save_checkpoint(out, checkpoint.network, checkpoint.rules, checkpoint.model, global_step=step, **trained, **played)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB, step {step:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
