"""RLCard's own DQN learner trained on ``rlcard.make("smear")``, then played in the kit's arena.

    python experiments/rlcard_dqn.py --hands 20000 --out runs/rlcard_dqn --seed 0
    smear-eval rlcard:runs/rlcard_dqn/checkpoint_dqn.pt random --games 1000 --seed 3301 --workers 2

One ``DQNAgent`` (RLCard's, unchanged: its MLP, replay and epsilon schedule) plays both seats of a partnership
(0 and 2) against RLCard's ``RandomAgent`` in 1 and 3, one hand an episode (the env's default; each seat's
payoff its partnership's margin of the hand), as RLCard's own examples train against random agents. Both
partners' transitions feed the one learner. Every ``--report`` hands it prints the learner's mean payoff
over them; at the end it writes ``checkpoint_dqn.pt`` (RLCard's ``save_checkpoint``), which the kit plays as
the agent ``rlcard:PATH``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from pathlib import Path

import numpy as np
import rlcard
import torch
from rlcard.agents import DQNAgent, RandomAgent
from rlcard.utils import reorganize, set_seed

import smear_env.rlcard_env  # noqa: F401 - registers "smear"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000, help="hands to train for (default 20,000)")
    parser.add_argument("--minutes", type=float, default=60.0, help="stop earlier after this long (default 60)")
    parser.add_argument("--out", type=Path, default=Path("runs/rlcard_dqn"), help="the folder of the checkpoint")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="the MLP's layers (default 256 256)")
    parser.add_argument("--report", type=int, default=2000, help="hands between progress lines (default 2000)")
    args = parser.parse_args()
    if args.hands < 1 or not args.minutes > 0 or args.report < 1:
        parser.error("--hands and --report must be at least 1, --minutes above 0")
    if (args.out / "checkpoint_dqn.pt").exists():
        parser.error(f"{args.out}/checkpoint_dqn.pt exists: give another --out")
    args.out.mkdir(parents=True, exist_ok=True)
    set_seed(args.seed)
    torch.set_num_threads(1)
    env = rlcard.make("smear", config={"seed": args.seed})
    learner = DQNAgent(
        num_actions=env.num_actions, state_shape=env.state_shape[0], mlp_layers=args.hidden, device=torch.device("cpu")
    )
    env.set_agents([learner, RandomAgent(env.num_actions), learner, RandomAgent(env.num_actions)])
    deadline, hands, payoffs = time.time() + 60 * args.minutes, 0, []
    started = time.time()
    while hands < args.hands and time.time() < deadline:
        trajectories, payoff = env.run(is_training=True)
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):  # RLCard prints every step's loss
            for seat in (0, 2):
                for transition in reorganize(trajectories, payoff)[seat]:
                    learner.feed(transition)
        hands += 1
        payoffs.append(payoff[0])
        if hands % args.report == 0:
            print(f"{hands:,} hands  {learner.total_t:,} decisions  mean margin of the last {args.report:,}: "
                  f"{np.mean(payoffs[-args.report:]):+.3f}", flush=True)  # fmt: skip
    learner.save_checkpoint(str(args.out))
    print(
        f"{hands:,} hands, {learner.total_t:,} decisions in {(time.time() - started) / 60:.1f} min; {args.out / 'checkpoint_dqn.pt'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
