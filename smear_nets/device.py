"""The ``device`` setting of trainers and neural agents: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``."""

from __future__ import annotations

import torch

DEVICES = ("auto", "cpu", "cuda", "cuda:N")


def resolve_device(name: str) -> torch.device:
    """The torch device a setting names, checked now: ``auto`` takes CUDA when torch sees one, else the
    CPU; a CUDA device that is not there is a clear error (before anything starts)."""
    if not isinstance(name, str):
        raise ValueError(f"device={name!r}: one of {', '.join(DEVICES)}")
    text = name.strip().lower()
    if text == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if text == "cpu":
        return torch.device("cpu")
    if text == "cuda" or text.startswith("cuda:"):
        index = text.partition(":")[2]
        if index and not index.isdigit():
            raise ValueError(f"device={name!r}: a CUDA device is 'cuda' or 'cuda:N' with N a number")
        if not torch.cuda.is_available():
            build = f"torch {torch.__version__}" + (", a CPU-only build" if torch.version.cuda is None else "")
            raise ValueError(
                f"device={name!r}: torch sees no CUDA device on this machine ({build}); use device=cpu or auto, "
                "or install a CUDA build of torch (see docs/training.md, section GPU)"
            )
        count = torch.cuda.device_count()
        if index and int(index) >= count:
            raise ValueError(f"device={name!r}: this machine has {count} CUDA device(s), cuda:0 to cuda:{count - 1}")
        return torch.device(text)
    raise ValueError(f"device={name!r}: one of {', '.join(DEVICES)}")
