"""Where a network's contracts lose points: its regret at bids, trumps and discards against long rollouts.

Run: ``python experiments/contract_regret.py [--net PATH] [--positions 300] [--reference 256] [--deals 16,64]
[--phases bid trump discard]``. Decisions with a choice of the ``--phases`` (the contracts by default;
``play`` judges the card play the same way) are taken from games the network plays against itself (every
third one, at random). At each, every legal action is valued by ``--reference`` rollouts
(``agents.rollouts``: deals from the shipped model of the hidden cards, the hand played out by
the network at every seat), the reference. It prints, by phase, the mean **regret** (the
reference's value of its best action less its value of the action chosen, in points of the
hand's margin) of the network's own choice and of rollouts with fewer deals (new deals, drawn
after the reference's), alone and blended with the network's values as ``search`` does
(``(rollout + 0.5 Q) / 1.5``): where fewer deals lose less than the network, their labels know
something the network does not (what a distillation from them could teach). With ``--chances FILE`` (``python -m train.chance_table``) every hand is
valued by the change it makes to the team's chance of winning the game (times the table's scale,
in margin-sized units) instead of by its margin: the measure a network trained with
``target: chance`` plays for. The reference has noise of its own: a choice that it rates
well on other deals than its own agrees with it for a reason.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from agents.chances import Chances
from agents.neural import NeuralAgent
from agents.rollouts import CONTRACT_PHASES, Rollouts
from agents.search import SearchAgent
from smear_env import Phase, SmearVectorEnv, seat_view
from smear_nets.shipped import NETWORKS

PHASES = {p.name.lower(): p for p in (*CONTRACT_PHASES, Phase.PLAY)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--net", default=str(NETWORKS["neural"]), help="the network: a path, or neural, dmc, chance (default: the shipped neural)"
    )
    parser.add_argument("--positions", type=int, default=300, help="contract decisions to judge (default 300)")
    parser.add_argument("--reference", type=int, default=256, help="deals per action of the reference (default 256)")
    parser.add_argument("--deals", default="16,64", help="deals per action of the rollouts compared (default 16,64)")
    parser.add_argument("--chances", help="value hands by the change of the win chance in this table (train.chance_table)")
    parser.add_argument(
        "--phases",
        nargs="+",
        default=["bid", "trump", "discard"],
        choices=list(PHASES),
        help="the decisions judged (default: the contracts, bid trump discard)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    phases = tuple(PHASES[p] for p in args.phases)
    chances = Chances.load(args.chances) if args.chances else None
    torch.set_num_threads(1)
    network = NeuralAgent(args.net, device="cpu")
    sampler_of = SearchAgent(net=args.net, rollouts=1)._sampler  # the search agent's deals: the learned beliefs
    reference = Rollouts(network, args.reference, chances)
    compared = {int(n): Rollouts(network, int(n), chances) for n in args.deals.split(",")}
    rng = np.random.default_rng(args.seed)
    venv = SmearVectorEnv(16, seed=args.seed, reward="margin", rules=network.rules)
    obs, info = venv.reset()
    regret: dict[str, dict[str, list[float]]] = {p.name: {} for p in phases}
    judged, started = 0, time.time()
    while judged < args.positions:
        mask = info["action_mask"]
        for i in range(len(mask)):
            if judged == args.positions or mask[i].sum() < 2 or rng.random() < 2 / 3:
                continue
            view = seat_view(venv.game(i), int(info["seat"][i]))
            if view.phase not in phases:
                continue
            legal = np.flatnonzero(mask[i]).tolist()
            sampler = sampler_of(view, obs[i])
            best = reference.values(view, sampler, legal, rng)
            value = np.array([best[a] for a in legal])
            q = network.values(obs[i][None])[0][legal]
            choices = {"network": int(np.argmax(q))}
            for n, rollouts in compared.items():
                r = rollouts.values(view, sampler, legal, rng)
                r = np.array([r[a] for a in legal])
                choices[f"{n} deals"] = int(np.argmax(r))
                choices[f"{n} deals + 0.5 Q"] = int(np.argmax((r + 0.5 * q) / 1.5))
            for name, chosen in choices.items():
                regret[view.phase.name].setdefault(name, []).append(float(value.max() - value[chosen]))
            judged += 1
        obs, _, _, _, info = venv.step(network.act_batch(obs, mask))
    print(
        f"{judged} decisions ({' '.join(args.phases)}) of {args.net}, reference {args.reference} deals per action ({time.time() - started:.0f} s)"
    )
    unit = f"the win chance's change x {chances.scale:.1f} ({args.chances})" if chances else "points of the hand's margin"
    print(f"mean regret per decision ({unit})")
    names = list(next(iter(r for r in regret.values() if r)).keys())
    print(f"{'phase':9s} {'decisions':>9s} " + " ".join(f"{n:>16s}" for n in names))
    for phase, rows in regret.items():
        if rows:
            print(f"{phase:9s} {len(rows['network']):9d} " + " ".join(f"{np.mean(rows[n]):16.4f}" for n in names))


if __name__ == "__main__":
    main()
