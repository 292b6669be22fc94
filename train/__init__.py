"""Self-play trainers for smear-rl: Deep Monte-Carlo (``train.dmc``) and PPO (``train.ppo``), and the tools
built on them. They need the ``train`` extra (PyTorch, TensorBoard, PyYAML): without it, importing this
package raises :class:`smear_rl.extras.MissingExtraError`, and ``python -m train.X`` says so in one line
(exit code 2)."""

import sys

from smear_rl.extras import MissingExtraError, need

try:
    for _module in ("torch", "yaml", "tensorboard"):
        need(_module, "the trainers (python -m train.*)")
except MissingExtraError as _error:
    if sys.argv[:1] == ["-m"]:  # Python is looking for a train.* module to run as a command
        print(f"error: {_error}", file=sys.stderr)
        raise SystemExit(2) from None
    raise
