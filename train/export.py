"""Strip a training checkpoint to what an agent needs (weights and config), for shipping.

Run: ``python -m train.export runs/NAME/checkpoint.pt agents/weights/neural.pt``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from train import runs


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m train.export CHECKPOINT OUT", file=sys.stderr)
        return 2
    try:
        payload = runs.load_checkpoint(args[0])
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    slim = {"model": payload["model"], "config": payload["config"], "global_step": payload.get("global_step", 0)}
    runs.save_checkpoint(Path(args[1]), slim)
    print(f"wrote {args[1]} ({Path(args[1]).stat().st_size / 1e6:.1f} MB, step {slim['global_step']:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
