"""Each team's chance of winning the game from a score and a dealer, under a network's play: the table behind DMC's ``target: chance``.

Run: ``python -m train.chance_table --out runs/chances.npz [--net neural] [--hands 200000] [--seed 0]``.

A network playing itself gives the outcomes of many hands, by dealer: the points each team's
score moves by (a set bidder's is negative, R14) and the bidder's team. The chances then
solve R15 over those outcomes by value iteration: ``chance[d, a, b]`` is the chance that team
0 (seats 0 and 2) wins the game from team 0 at score ``a``, team 1 at ``b`` and seat ``d``
dealing, when every later hand's outcome is drawn from the hands of that dealer. A hand's
outcome is taken not to depend on the score: true of a network trained for the hand's margin,
which is what the table is for (valuing its decisions by the game instead).

With ``target: chance`` a decision's return is the change its hand makes to the team's
chance, times ``scale`` (the table's: the hand margins' spread over the chances' changes', so
that the values keep the size of a margin network's): contracts and play that weigh a point
by what it does to the game (at 13 to 14 a set is the game), with the noise of one hand, not
of a whole game as ``target: game`` has.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.chances import Chances
from smear_env import Rules, SmearVectorEnv

from .config import cli, refuse

PROG = "python -m train.chance_table"


def hand_outcomes(act, rules: Rules, hands: int, seed: int, num_envs: int = 256) -> np.ndarray:
    """``hands`` scored or thrown-in hands of ``act`` (a batched policy: observations, masks -> actions) at every
    seat: rows of (dealer, team 0's change, team 1's change, the bidder's team or -1 if thrown in, team 0's margin)."""
    venv = SmearVectorEnv(num_envs, seed=seed, reward="margin", rules=rules)
    obs, info = venv.reset()
    rows: list[np.ndarray] = []
    count = 0
    while count < hands:
        before, dealer, bidder = venv.scores.copy(), venv.dealer.astype(np.int64), venv.bidder.astype(np.int64)
        obs, rewards, terminated, truncated, info = venv.step(act(obs, info["action_mask"]))
        over = np.flatnonzero(info["hand_over"])
        if not over.size:
            continue
        after = venv.scores[over].copy()
        done = (terminated | truncated)[over]
        if done.any():
            after[done] = info["final_scores"][over[done]]
        change = after - before[over]
        scored = change[np.arange(over.size), bidder[over] % 2] != 0  # a made bid adds 2 or more, a set subtracts the bid
        team = np.where(scored, bidder[over] % 2, -1)
        rows.append(np.column_stack([dealer[over], change, team, rewards[over, 0]]))
        count += over.size
    return np.concatenate(rows)[:hands]


def solve(outcomes: np.ndarray, rules: Rules, tolerance: float = 1e-9) -> Chances:
    """The chances R15 gives when every hand's outcome is drawn from ``outcomes`` (rows of :func:`hand_outcomes`) of its dealer."""
    if rules.win_only_on_made_bid or rules.defender_cap is not None:
        raise ValueError(
            "train.chance_table solves R15 as the default rules have it (win_only_on_made_bid=False, defender_cap=None); "
            f"these rules have win_only_on_made_bid={rules.win_only_on_made_bid}, defender_cap={rules.defender_cap}"
        )
    target = rules.target_score
    low = -target  # a team this far down is as good as beaten; lower scores count as this one
    size = target - low
    grid = np.arange(low, target)
    a, b = np.meshgrid(grid, grid, indexing="ij")
    moves = []  # per dealer: (probability, change 0, change 1, bidder's team)
    for d in range(4):
        rows = outcomes[outcomes[:, 0] == d][:, 1:4].astype(np.int64)
        if not len(rows):
            raise ValueError(f"no hands dealt by seat {d} among the {len(outcomes)} outcomes: play more hands")
        kinds, counts = np.unique(rows, axis=0, return_counts=True)
        moves.append((counts / counts.sum(), kinds))
    chance = np.full((4, size, size), 0.5)
    for _ in range(10_000):
        new = np.zeros_like(chance)
        for d, (p, kinds) in enumerate(moves):
            for q, (c0, c1, team) in zip(p, kinds, strict=True):
                new[d] += q * _after(chance, low, target, d, a, b, c0, c1, team)
        delta = np.abs(new - chance).max()
        chance = new
        if delta < tolerance:
            break
    # the scale: the hand margins' spread over that of the chance's changes they make from 0 to 0 (team 0's)
    dealers, changes0, changes1, teams = (outcomes[:, i].astype(np.int64) for i in range(4))
    zero = np.zeros_like(dealers)
    moved = _after(chance, low, target, dealers, zero, zero, changes0, changes1, teams) - chance[dealers, -low, -low]
    spread = float(np.std(moved))
    scale = float(np.std(outcomes[:, 4]) / spread) if spread > 0 else 1.0
    return Chances(chance, low, target, scale)


def _after(chance: np.ndarray, low: int, target: int, d, a, b, c0, c1, team) -> np.ndarray:
    """Team 0's chance after a hand dealt by ``d`` from scores ``a``, ``b`` moved them by ``c0``, ``c1`` (R15: a team at
    the target wins, both there: the bidder's team ``team``; thrown in, ``team`` -1: the same dealer deals again, R7)."""
    n0, n1 = a + c0, b + c1
    r0, r1 = n0 >= target, n1 >= target
    won = np.where(r0 & r1, (team == 0).astype(float), r0.astype(float))
    going = chance[(d + 1) % 4, np.clip(n0, low, target - 1) - low, np.clip(n1, low, target - 1) - low]
    again = chance[d, np.clip(a, low, target - 1) - low, np.clip(b, low, target - 1) - low]
    return np.where(np.asarray(team) < 0, again, np.where(r0 | r1, won, going))


@dataclass
class Config:
    """What ``python -m train.chance_table`` plays and where it writes the table."""

    out: str
    """the table to write (.npz)"""
    net: str = "neural"
    """the network whose play the chances are of (a checkpoint path, or neural: the shipped one)"""
    hands: int = 200_000
    """hands of self-play to draw outcomes from"""
    seed: int = 0
    """seed of the deals"""
    force: bool = False
    """overwrite --out if it exists"""

    def __post_init__(self) -> None:
        if self.hands < 1000:
            raise ValueError(f"--hands {self.hands}: at least 1,000 (each dealer's outcomes need many hands)")


def main(argv: list[str] | None = None) -> int:
    """``python -m train.chance_table``: play the hands, solve the table, write it; 0 when written."""
    import torch

    from agents.neural import NeuralAgent

    config = cli(Config, argv, __doc__.splitlines()[0], PROG)
    out = Path(config.out)
    if out.exists() and not config.force:
        refuse(PROG, f"{out} already exists: give another --out, or --force to overwrite it")
    try:
        agent = NeuralAgent(config.net, device="cpu")
    except (OSError, ValueError) as e:
        refuse(PROG, f"--net {config.net}: {e}")
    torch.set_num_threads(1)
    started = time.time()
    outcomes = hand_outcomes(agent.act_batch, agent.rules, config.hands, config.seed)
    table = solve(outcomes, agent.rules)
    table.save(out)
    zero = table.chance[:, -table.low, -table.low]
    print(f"{len(outcomes):,} hands of {config.net} ({time.time() - started:.0f} s); wrote {out}")
    print(f"team 0's chance from 0 to 0, by dealer: {', '.join(f'{c:.3f}' for c in zero)}; scale {table.scale:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
