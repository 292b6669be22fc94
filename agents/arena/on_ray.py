"""The arena on a Ray cluster (``smear-eval ... --backend ray [--address ADDR]``).

Chunks of deal sets are Ray tasks: each duplicate pair (both games of a deal set) is played by
one worker, and every game draws from its own generators, so the results are those of
``--workers K`` for the same seed. Importing this module imports Ray; nothing on the local
path does.
"""

from __future__ import annotations

from collections.abc import Callable

import ray

from smear_env import Rules
from smear_rl.cluster import connect, disconnect

from .games import DealSetResult, play_chunk


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
    task = ray.remote(num_cpus=1)(play_chunk)
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
