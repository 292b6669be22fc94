"""Strip a training checkpoint to what an agent needs (network spec, rules, weights), for shipping.

Run: ``python -m train.tools.export runs/NAME/checkpoint.pt agents/weights/neural.pt``; it refuses
to overwrite a file that exists unless given ``--force``.

``--contracts runs/OTHER/checkpoint.pt`` joins two DMC networks into one ``q_split`` network: the
bid, trump and discard decisions are OTHER's, the card play the first checkpoint's (of a
``q_split`` network, the body of that part is taken). Both must have the same sizes and rules.

``--average runs/B/checkpoint.pt runs/C/checkpoint.pt`` averages the first checkpoint's weights with
these, tensor by tensor (a model soup: networks fine-tuned from one start sit in one basin, and
their mean plays like the mean of their values at the speed of one network). All must be of the
same kind, sizes and rules. The average is taken before ``--contracts`` joins.

``--suits K`` records that the network is to be played with its values averaged over K orders of
the suits (``smear_nets.SuitMean``; ``neural:OUT`` then plays so unless its spec says ``suits=``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from tyro.conf import Positional, arg

from smear_nets import averaged, check_suits, joined, load_checkpoint, save_checkpoint

from ..config import cli


@dataclass
class Config:
    """What ``python -m train.tools.export`` writes, from which checkpoints."""

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
    """play the network with its values averaged over this many orders of the suits (1 to 24; smear_nets.SuitMean)"""


def main(argv: list[str] | None = None) -> int:
    config = cli(Config, argv, __doc__.splitlines()[0], "python -m train.tools.export")
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
