"""Networks and the checkpoint format, shared by the ``neural`` agents and the trainers.

The layer between ``smear_env`` (which it imports: the observation and action sizes, the
rule settings) and both ``agents`` and ``train`` (which import it). A checkpoint stores a
versioned network spec and the rule settings it was trained under, not a trainer's
config, so an agent loads it without knowing how it was made.
"""

from .checkpoint import FORMAT, Checkpoint, averaged, joined, load_checkpoint, save_checkpoint
from .device import resolve_device
from .networks import MeanNetwork, NetworkSpec, SuitMean, SuitShuffle, build_network, check_suits, masked_argmax, widen

__all__ = [
    "FORMAT",
    "Checkpoint",
    "MeanNetwork",
    "SuitMean",
    "SuitShuffle",
    "averaged",
    "check_suits",
    "NetworkSpec",
    "build_network",
    "joined",
    "load_checkpoint",
    "masked_argmax",
    "resolve_device",
    "save_checkpoint",
    "widen",
]
