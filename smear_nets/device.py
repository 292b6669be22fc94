"""Where the networks run and in what arithmetic: the ``device`` setting of trainers and neural agents
(``auto``, ``cpu``, ``cuda`` or ``cuda:N``), the machine a run names in its log (:func:`machine`), and the
``precision`` setting (``auto``, ``fp32`` or ``bf16``), which ``auto`` chooses by the machine
(:func:`choose_precision`)."""

from __future__ import annotations

import functools
import os
import platform
import time
from dataclasses import asdict, dataclass
from typing import Literal

import torch

DEVICES = ("auto", "cpu", "cuda", "cuda:N")
PRECISIONS = ("auto", "fp32", "bf16")
Arithmetic = Literal["fp32", "bf16"]
"""What a precision setting comes to on a machine."""
BF16_UNITS = ("AMX", "AVX-512 BF16")
"""The CPU features that compute bf16 matrix products fast; without one, torch's bf16 runs many times slower than
fp32 (29x on a 2-core AMD EPYC with AVX2 only: docs/training.md, "Arithmetic and the suits")."""
_FLAGS = {"avx2": "AVX2", "avx512f": "AVX-512", "avx512_bf16": "AVX-512 BF16", "amx_bf16": "AMX"}


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


@dataclass(frozen=True)
class Machine:
    """What a run names of the machine it ran on: the CPU, its vector units, the cores this process may use, the GPU."""

    cpu: str
    vector: tuple[str, ...]
    """Of AVX2, AVX-512, AVX-512 BF16 and AMX, those the CPU has (its flags; torch's capability where none are read)."""
    cores: int
    gpu: str | None

    def line(self) -> str:
        """One line: ``CPU Intel(R) Xeon(R) ... (AVX2, AVX-512, AMX), 2 cores; no GPU``."""
        units = ", ".join(self.vector) or "no AVX2"
        return f"CPU {self.cpu} ({units}), {self.cores} cores; " + (f"GPU {self.gpu}" if self.gpu else "no GPU")

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "vector": list(self.vector)}


def _cpu_info() -> tuple[str, set[str]]:
    """The CPU's model name and flags from /proc/cpuinfo (Linux); the platform's name and no flags elsewhere."""
    try:
        text = open("/proc/cpuinfo").read()  # noqa: SIM115 - read at once
    except OSError:
        return platform.processor() or platform.machine() or "unknown", set()
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    return fields.get("model name", platform.machine() or "unknown"), set(fields.get("flags", "").split())


@functools.cache
def machine() -> Machine:
    """This machine, as a run's log and record name it (read once)."""
    name, flags = _cpu_info()
    vector = tuple(unit for flag, unit in _FLAGS.items() if flag in flags)
    if not flags:  # no /proc/cpuinfo: what torch's kernels were chosen for
        capability = torch.backends.cpu.get_cpu_capability()
        vector = {"AVX2": ("AVX2",), "AVX512": ("AVX2", "AVX-512")}.get(capability, ())
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    gpu = None
    if torch.cuda.is_available():
        count = torch.cuda.device_count()
        gpu = torch.cuda.get_device_name(0) + (f" (x{count})" if count > 1 else "")
    return Machine(name, vector, cores, gpu)


@functools.cache
def bf16_speedup(device_type: str, threads: int) -> float:
    """How many times faster a learner's layer (256 x 512 by 512 x 512, forward and backward) runs under bf16
    autocast than in fp32 on ``device_type`` with ``threads`` torch threads: the best of 3 each, a fraction
    of a second in all."""
    device = torch.device(device_type)
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(256, 512, generator=generator).to(device)
    w = torch.randn(512, 512, generator=generator).to(device).requires_grad_()

    def best(bf16: bool) -> float:
        times = []
        for _ in range(4):  # the first warms up
            began = time.perf_counter()
            with torch.autocast(device.type, torch.bfloat16, enabled=bf16):
                y = x @ w
            y.float().sum().backward()
            if device.type == "cuda":
                torch.cuda.synchronize()
            times.append(time.perf_counter() - began)
        return min(times[1:])

    return best(False) / max(best(True), 1e-9)


def choose_precision(asked: str, device: torch.device) -> tuple[Arithmetic, str]:
    """The arithmetic a learner on ``device`` uses for the ``precision`` setting ``asked``, and why, in words.

    ``fp32`` and ``bf16`` are obeyed (a ``bf16`` that is slower here says so). ``auto`` takes bf16 only where the
    device computes it faster: a GPU that supports it, or a CPU whose flags show AMX or AVX-512 BF16 and on
    which a short timed probe (:func:`bf16_speedup`) confirms it; otherwise fp32.
    """
    if asked not in PRECISIONS:
        raise ValueError(f"precision={asked!r}: one of {', '.join(PRECISIONS)}")
    if asked == "fp32":
        return "fp32", "fp32 as the config asks"
    if device.type == "cuda":
        supported = torch.cuda.is_bf16_supported()
        if asked == "bf16":
            return "bf16", "bf16 as the config asks" + ("" if supported else ", though this GPU does not support it")
        return ("bf16", "auto: this GPU supports bf16") if supported else ("fp32", "auto: this GPU has no bf16")
    units = [unit for unit in BF16_UNITS if unit in machine().vector]
    if asked == "auto" and not units:
        return "fp32", "auto: this CPU has no bf16 matrix units (no AMX, no AVX-512 BF16)"
    speedup = bf16_speedup(device.type, torch.get_num_threads())
    probe = f"a probe ran bf16 at {speedup:.2f}x fp32's speed"
    if asked == "bf16":
        if speedup < 1:
            return "bf16", f"bf16 as the config asks, though slower here: {probe} (precision auto would take fp32)"
        return "bf16", f"bf16 as the config asks ({probe})"
    if speedup > 1:
        return "bf16", f"auto: this CPU has {' and '.join(units)} and {probe}"
    return "fp32", f"auto: this CPU has {' and '.join(units)}, but {probe}"
