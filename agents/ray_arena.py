"""The arena on a Ray cluster (``smear-eval ... --backend ray [--address ADDR]``), and joining Ray.

Chunks of deal sets are Ray tasks: each duplicate pair (both games of a deal set) is played by
one worker, and every game draws from its own generators, so the results are those of
``--workers K`` for the same seed. Importing this module imports Ray; nothing on the local
path does.
"""

from __future__ import annotations

from collections.abc import Callable

import ray

from smear_env import Rules

from .arena import DealSetResult, _play_chunk

_STARTED_HERE = False  # whether this process started the local Ray it uses (and so shuts it down)


def connect(address: str | None) -> None:
    """Join the Ray cluster at ``address``, or start a local one (``None``); once per process."""
    global _STARTED_HERE
    if ray.is_initialized():
        return
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(log_to_driver=False, include_dashboard=False)
        _STARTED_HERE = True


def disconnect() -> None:
    """Shut down the local Ray this process started (a cluster it joined stays up)."""
    global _STARTED_HERE
    if _STARTED_HERE and ray.is_initialized():
        ray.shutdown()
        _STARTED_HERE = False


def cluster_cpus(address: str | None) -> int:
    """The CPUs of the cluster (joining or starting it)."""
    connect(address)
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def play_chunks(
    specs: tuple[str, str],
    rules: Rules,
    seed: int,
    chunks: list[list[int]],
    keep_records: bool,
    address: str | None,
    progress: Callable[[int], None] | None = None,
) -> list[DealSetResult]:
    """Each chunk of deal sets played as a Ray task, results as they come."""
    connect(address)
    task = ray.remote(num_cpus=1)(_play_chunk)
    pending = [task.remote(specs, rules, seed, part, keep_records) for part in chunks]
    results: list[DealSetResult] = []
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            played = ray.get(done[0])
            results.extend(played)
            if progress:
                progress(2 * len(played))
    finally:
        disconnect()
    return results
