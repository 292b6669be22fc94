"""A whole match: its deal sets in chunks, in this process, in local worker processes or as Ray tasks."""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from smear_env import Rules
from smear_rl.cluster import need_ray

from ..registry import load_agent
from .games import DealSetResult, play_chunk, play_deal_sets
from .results import MatchResult


def _share_cores(threads: int) -> None:
    """A worker's start: its numeric libraries (torch's intra-op pool) use ``threads`` threads, its
    share of the machine, so that K workers do not run K times the cores' threads."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(threads)
    if "torch" in sys.modules:  # imported already (by an agent module): tell it directly
        sys.modules["torch"].set_num_threads(threads)


def run_match(
    spec_a: str,
    spec_b: str,
    games: int,
    seed: int = 0,
    rules: Rules | None = None,
    workers: int = 1,
    keep_records: bool = False,
    progress: Callable[[int], None] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> MatchResult:
    """Play ``games`` games (rounded up to whole deal sets) of A against B in the duplicate format,
    in ``workers`` local processes, or as Ray tasks (``backend="ray"``; ``address``: the cluster to
    join, None starts a local Ray; ``workers`` defaults to the cluster's CPUs).

    Results are identical for the same seed whatever the workers and the backend.
    """
    if games < 2:
        raise ValueError(f"games={games}: a duplicate match needs at least 2 games (one deal set)")
    if workers < 1:
        raise ValueError(f"workers={workers}: must be at least 1")
    if backend not in ("local", "ray"):
        raise ValueError(f"backend={backend!r}: local or ray")
    rules = rules or Rules()
    for spec in (spec_a, spec_b):
        load_agent(spec).check_rules(rules)  # fail early, in this process, on a bad spec
    deal_sets = list(range((games + 1) // 2))
    chunk = max(1, min(100, len(deal_sets) // (4 * workers) or 1))  # a chunk's games go in lockstep
    chunks = [deal_sets[i : i + chunk] for i in range(0, len(deal_sets), chunk)]
    results: list[DealSetResult] = []
    if backend == "ray":
        need_ray("backend 'ray'")
        from .on_ray import play_chunks  # Ray is imported only on this path

        results = play_chunks((spec_a, spec_b), rules, seed, chunks, keep_records, address, progress)
    elif workers == 1:
        agents = (load_agent(spec_a), load_agent(spec_b))
        for part in chunks:
            results.extend(play_deal_sets(agents, rules, seed, part, keep_records))
            if progress:
                progress(2 * len(part))
    else:
        # Spawned, not forked: a fork after torch or numba started their threads can deadlock the children.
        threads = max(1, (os.cpu_count() or 1) // workers)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=context, initializer=_share_cores, initargs=(threads,)) as pool:
            futures = [pool.submit(play_chunk, (spec_a, spec_b), rules, seed, part, keep_records) for part in chunks]
            for future in futures:
                played = future.result()
                results.extend(played)
                if progress:
                    progress(2 * len(played))
    results.sort(key=lambda d: d.deal_set)
    return MatchResult((spec_a, spec_b), rules, seed, results)
