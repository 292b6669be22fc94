"""Networks screened on the oracle's labels: what their choices give away, without a match.

Run: ``python experiments/oracle_regret.py --positions runs/oracle1/positions [--nets neural neural:distilled ...]
[--held-out 0.05] [--seed 202]``.

The positions are a ``train.distill --teacher oracle`` run's: every legal action of each decision valued on
that position's own deal, under the labelling network's play of the rest of the hand. A choice's
**regret** is the label of the best action less the label of the action chosen; on average over the
positions a seat cannot tell apart that is what the choice gives away under that play, at the true odds
of the hidden cards (the deal's luck cancels in the mean). Each network's regret is printed by card play
and contracts, and its difference from the first network's, position by position, with a 95% interval.
``--held-out`` and ``--seed`` pick the positions a fit of the same seed held out (``train.distill.fit``'s
split), so that a student is measured on positions it did not learn from.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from agents import load_agent
from smear_env import Phase
from train.teacher import load_positions


def interval(x: np.ndarray) -> str:
    """Mean and a normal 95% interval."""
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else 0.0
    return f"{x.mean():+.4f} [{x.mean() - half:+.4f}, {x.mean() + half:+.4f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=Path, required=True, help="an oracle run's positions folder (OUT/positions)")
    parser.add_argument(
        "--nets", nargs="+", default=["neural", "neural:distilled"], help="network agent specs, the first the baseline"
    )
    parser.add_argument("--held-out", type=float, default=0.05, help="the share of the positions a fit held out (default 0.05)")
    parser.add_argument("--seed", type=int, default=202, help="the fit's seed, which chose them (default 202)")
    args = parser.parse_args()
    if not 0 < args.held_out <= 1:
        parser.error(f"--held-out {args.held_out}: a share in (0, 1]")
    try:
        data = load_positions([args.positions])
    except ValueError as e:
        parser.error(str(e))
    n = len(data["obs"])
    # train.distill.fit's split: the first cut of a permutation by the fit's seed (the run's own positions)
    rows = np.random.default_rng(args.seed).permutation(n)[: max(1, int(n * args.held_out))]
    obs, mask, phase = data["obs"][rows], data["mask"][rows], data["phase"][rows]
    judged = np.where(mask, data["target"][rows], -np.inf)
    if not np.isfinite(judged.max(axis=1)).all():
        parser.error(f"--positions {args.positions}: positions without a label for a legal action (not a teacher's)")
    best = judged.max(axis=1)
    play = phase == int(Phase.PLAY)
    torch.set_num_threads(2)
    print(f"{len(rows):,} positions of {args.positions} ({play.mean():.0%} card play), regret per decision:")
    print(f"{'network':36s} {'all':>8s} {'card play':>10s} {'contracts':>10s}   less {args.nets[0]}'s, 95% interval")
    first: np.ndarray | None = None
    for spec in args.nets:
        agent = load_agent(spec)
        chosen = np.concatenate([agent.act_batch(obs[i : i + 8192], mask[i : i + 8192]) for i in range(0, len(obs), 8192)])
        regret = best - judged[np.arange(len(rows)), chosen]
        first = regret if first is None else first
        print(
            f"{spec:36s} {regret.mean():8.4f} {regret[play].mean():10.4f} {regret[~play].mean():10.4f}   "
            f"{interval(regret - first) if spec != args.nets[0] else ''}"
        )


if __name__ == "__main__":
    main()
