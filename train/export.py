"""Strip a training checkpoint to what an agent needs (network spec, rules, weights), for shipping.

Run: ``python -m train.export runs/NAME/checkpoint.pt agents/weights/neural.pt``; it refuses
to overwrite a file that exists unless given ``--force``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nets import load_checkpoint, save_checkpoint
from smear_env.cli import add_version_flag


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.export", description=__doc__.splitlines()[0])
    add_version_flag(parser)
    parser.add_argument("checkpoint", help="a run's checkpoint.pt (or its folder)")
    parser.add_argument("out", help="where to write the slim checkpoint")
    parser.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if out.exists() and not args.force:
        print(f"{out} exists: give --force to overwrite it", file=sys.stderr)
        return 1
    try:
        checkpoint = load_checkpoint(args.checkpoint)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    step = int(checkpoint.extra.get("global_step", 0))
    trained = {"trained_with": checkpoint.extra["smear_rl_version"]} if "smear_rl_version" in checkpoint.extra else {}
    save_checkpoint(out, checkpoint.network, checkpoint.rules, checkpoint.model, global_step=step, **trained)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB, step {step:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
