"""Observations packed for moving and keeping: 80 bytes a decision instead of 1,708.

Every entry of the observation before ``tricks_won`` (421 of the 427) is 0 or 1: cards held,
played and seen, one-hots, the points taken (``smear_env.observer.LAYOUT``). A packed row holds
the six others as they are (float32, bytes 0-23, aligned so that they read back as floats in
place) and the 421 as bits (bytes 24-76, numpy's ``packbits`` order: the first entry is the
highest bit of byte 24); bytes 77-79 are zero. :func:`pack` runs where the games are (numpy),
:func:`unpack` where the network is: on its device, in one pass with no copy back to the host,
so the replay, the transport between processes and the host-to-device copy all carry 80 bytes.
Unpacking a packed row gives back the observation exactly (``tests/test_trainers.py``).
"""

from __future__ import annotations

import numpy as np
import torch

from smear_env import OBS_DIM
from smear_env.observer import OFFSETS

BITS = OFFSETS["tricks_won"]
"""Entries of the observation that are 0 or 1: all before ``tricks_won``."""
TAIL = OBS_DIM - BITS
"""The other entries, kept as float32: tricks won, game-count, scores."""
TAIL_BYTES = 4 * TAIL
BIT_BYTES = (BITS + 7) // 8
PACKED = 80
"""Bytes of a packed row (a multiple of 4, so that rows keep the floats aligned)."""
assert TAIL_BYTES + BIT_BYTES <= PACKED
_BITS_OF = ((torch.arange(256)[:, None] >> torch.arange(7, -1, -1)) & 1).float()  # each byte's 8 bits, highest first
_TABLES: dict[torch.device, torch.Tensor] = {}


def pack(obs: np.ndarray) -> np.ndarray:
    """Observations ``[n, OBS_DIM]`` (float32) as packed rows ``[n, PACKED]`` (uint8)."""
    obs = np.asarray(obs, dtype=np.float32).reshape(-1, OBS_DIM)
    out = np.zeros((len(obs), PACKED), dtype=np.uint8)
    out[:, :TAIL_BYTES] = np.ascontiguousarray(obs[:, BITS:]).view(np.uint8)
    out[:, TAIL_BYTES : TAIL_BYTES + BIT_BYTES] = np.packbits(obs[:, :BITS] > 0.5, axis=1)
    return out


def unpack(packed: torch.Tensor) -> torch.Tensor:
    """Packed rows ``[n, PACKED]`` (uint8, on any device) as observations ``[n, OBS_DIM]`` (float32, same device)."""
    table = _TABLES.get(packed.device)
    if table is None:
        table = _TABLES[packed.device] = _BITS_OF.to(packed.device)
    tail = packed[:, :TAIL_BYTES].contiguous().view(torch.float32)
    # A table lookup of each byte's bits (an embedding): faster on a CPU than shifting.
    bits = torch.nn.functional.embedding(packed[:, TAIL_BYTES : TAIL_BYTES + BIT_BYTES].long(), table)
    return torch.cat((bits.reshape(len(packed), -1)[:, :BITS], tail), dim=1)
