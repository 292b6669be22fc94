"""Is never bidding 2 right? A network's opening bids judged against bidding 2, by rollouts of its own play.

Run: ``python experiments/bid_two.py [--net neural] [--positions 400] [--deals 256] [--chances win_chances] [--seed 0]``,
or ``python experiments/bid_two.py --heard 20000 [--net neural] [--seed 2]`` for what the bidder has heard.

A bid of 2 is open only to a seat before anyone has bid (R6: each bid beats the highest so far). The
network plays itself; at every bidding turn where 2 is legal, every legal action (pass, 2, 3, 4) is
valued by ``--deals`` rollouts on the same deals (``agents.rollouts``: deals from the shipped model of
the hidden cards, the rest of the hand played by the network at every seat, as in the real game:
the others answer a bid of 2 as the network would, overbidding it or not), by the change of the
team's chance of winning the game (``--chances``, the measure the shipped network plays for, in
margin-sized units) and by the hand's margin, on the same deals.

Then how the table answers each opening: on ``--deals`` x 16 fresh deals the first seat's bid is set
(pass, 2, 3, 4) and the network plays the rest: how often the contract stays with the opener's
team, and the opener's mean margin and win-chance change.

The same question in a match: ``OpensTwo`` (here) is ``neural`` with every opening 3 bid as 2 instead
(``smear-eval "experiments/bid_two.py:OpensTwo" heuristic --games 2000 --seed 9001``, beside ``smear-eval
neural heuristic`` on the same deal sets). Its partner is the same network, which bids 3 over a 2 as
it would over anyone's: a system that opens 2 would have to answer it otherwise too.

It prints, by the network's choice and by the seat's place in the bidding (first after the dealer to
the dealer, who after three passes throws the hand in by passing, R7), how often bid 2 is the
rollouts' best, and the mean of **value(bid 2) - value(the network's choice)** with its 95% interval
over the positions: the points a game the network gives away by never bidding 2 there (above 0) or
would give away by bidding it (below). The difference is paired (the same deals for both actions), so
it has no bias from picking a maximum over noisy values; the interval is over positions, and each
position's own noise is in it.

``--heard N``: in ``N`` contracts of the network's games against itself, who becomes the bidder (its place
in the bidding) and what its partner said before the bidder declares trump (R9): what the bidding can tell
a bidder of its partner's hand, as the network bids.
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np
import torch

from agents.chances import Chances
from agents.neural import NeuralAgent
from agents.rollouts import Rollouts
from agents.search import SearchAgent
from smear_env import Phase, SmearVectorEnv, seat_view
from smear_env.actions import PASS, bid_action
from smear_nets.shipped import weights_path

PLACES = ("first", "second", "third", "dealer")
BIDS = {PASS: "pass", bid_action(2): "bid 2", bid_action(3): "bid 3", bid_action(4): "bid 4"}


def interval(x: np.ndarray) -> str:
    """Mean and a normal 95% interval over the positions."""
    if len(x) < 2:
        return f"{x.mean():+.3f}" if len(x) else "-"
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
    return f"{x.mean():+.3f} [{x.mean() - half:+.3f}, {x.mean() + half:+.3f}]"


class OpensTwo(NeuralAgent):
    """``neural``, except that where 2 is open (no bid yet) and the network bids 3, it bids 2."""

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, views=None) -> np.ndarray:
        actions = np.array(super().act_batch(observations, action_masks, views))
        actions[(actions == bid_action(3)) & (np.asarray(action_masks)[:, bid_action(2)] > 0)] = bid_action(2)
        return actions


def answers(network: NeuralAgent, chances: Chances, games: int, seed: int) -> None:
    """Each opening bid of the first seat forced on the same ``games`` fresh deals, the rest played by ``network``."""
    print(f"the first seat's opening forced on {games} fresh deals (seed {seed}), the rest played by the network:")
    print(f"{'opening':8s} {'contract kept':>13s} {'by the opener':>13s} {'margin':>8s} {'win chance x scale':>18s}")
    for opening in BIDS:
        venv = SmearVectorEnv(games, seed=seed, reward="margin", rules=network.rules)
        venv.reset()
        opener, scores, dealer = venv.to_act.astype(np.int64), venv.scores.copy(), venv.dealer.astype(np.int64)
        actions = np.full(games, opening)
        margin, chance, bidder = np.zeros(games), np.zeros(games), np.full(games, -1)
        playing = np.ones(games, dtype=bool)
        while playing.any():
            obs, rewards, terminated, truncated, info = venv.step(actions)
            decided = playing & (bidder < 0) & (venv.phase != Phase.BID)
            bidder[decided] = venv.bidder[decided]
            ended = np.flatnonzero(playing & info["hand_over"])
            margin[ended] = rewards[ended, opener[ended]]
            change = chances.hand_change(venv, info, ended, (terminated | truncated)[ended], scores[ended], dealer[ended])
            chance[ended] = np.where(opener[ended] % 2 == 0, change, -change)
            playing[ended] = False
            actions = network.act_batch(obs, info["action_mask"])
        held = bidder >= 0  # not thrown in
        kept = held & (bidder % 2 == opener % 2)
        print(
            f"{BIDS[opening]:8s} {kept.sum() / games:13.3f} {(bidder == opener).sum() / games:13.3f} "
            f"{margin.mean():+8.3f} {chance.mean():+18.3f}"
        )


def heard(network: NeuralAgent, name: str, contracts: int, seed: int) -> None:
    """Games of ``network`` against itself until ``contracts`` hands were bid: each bidder's place in the
    bidding and its partner's call before it (or none: the bidding had ended at a 4, R7)."""
    games = min(contracts, 1024)
    venv = SmearVectorEnv(games, seed=seed, reward="margin", rules=network.rules)
    obs, info = venv.reset()
    calls: list[dict[int, int]] = [{} for _ in range(games)]
    rows: dict[tuple[str, str], int] = {}
    counted = 0
    while counted < contracts:
        seats, actions = info["seat"].astype(np.int64), network.act_batch(obs, info["action_mask"])
        bidding = venv.phase == Phase.BID
        for i in np.flatnonzero(bidding):
            calls[i][int(seats[i])] = int(actions[i])
        obs, _, _, _, info = venv.step(actions)
        for i in np.flatnonzero(bidding & (venv.phase == Phase.TRUMP))[: contracts - counted]:  # its bidding has just ended
            bidder, dealer = int(venv.bidder[i]), int(venv.dealer[i])
            partner = calls[i].get((bidder + 2) % 4)
            key = (PLACES[(bidder - dealer - 1) % 4], "none (the bidding had ended)" if partner is None else BIDS[partner])
            rows[key] = rows.get(key, 0) + 1
            counted += 1
        for i in np.flatnonzero(info["hand_over"]):  # scored or thrown in (R7): the next deal's bidding starts afresh
            calls[i] = {}
    print(f"{contracts} contracts of {name} playing itself (whole games, {games} at a time), seed {seed}")
    print(f"{'the bidder':10s} {'its partner had said':30s} {'share':>7s}")
    for (place, said), n in sorted(rows.items(), key=lambda kv: -kv[1]):
        print(f"{place:10s} {said:30s} {n / contracts:7.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--net", default="neural", help="the network: a shipped name (neural, ...) or a checkpoint path")
    parser.add_argument("--positions", type=int, default=400, help="opening bids to judge (default 400)")
    parser.add_argument("--deals", type=int, default=256, help="rollouts per action (default 256)")
    parser.add_argument("--chances", default="win_chances", help="the win-chance table (default: the shipped one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--heard", type=int, default=0, help="only what the bidders of this many contracts had heard from their partners"
    )
    args = parser.parse_args()
    if args.positions < 1 or args.deals < 1 or args.heard < 0:
        parser.error(f"--positions {args.positions} and --deals {args.deals} must be at least 1, --heard {args.heard} at least 0")
    net = str(weights_path(args.net))
    torch.set_num_threads(1)
    network = NeuralAgent(net, device="cpu")
    if args.heard:
        heard(network, args.net, args.heard, args.seed)
        return
    sampler_of = SearchAgent(net=net, rollouts=1)._sampler  # the search agent's deals: the learned beliefs
    table = Chances.load(args.chances)
    by_chance = Rollouts(network, args.deals, table)
    by_margin = Rollouts(network, args.deals)
    rng = np.random.default_rng(args.seed)
    venv = SmearVectorEnv(16, seed=args.seed, reward="margin", rules=network.rules)
    obs, info = venv.reset()
    rows: list[tuple[int, int, float, float, bool]] = []  # place, choice, chance gain of 2, margin gain, 2 best
    started = time.time()
    while len(rows) < args.positions:
        mask = info["action_mask"]
        for i in range(len(mask)):
            if len(rows) == args.positions or not mask[i][bid_action(2)]:
                continue
            view = seat_view(venv.game(i), int(info["seat"][i]))
            if view.phase is not Phase.BID:
                continue
            legal = np.flatnonzero(mask[i]).tolist()
            choice = legal[int(np.argmax(network.values(obs[i][None])[0][legal]))]
            sampler = sampler_of(view, obs[i])
            same = copy.deepcopy(rng)  # the same deals for both measures
            chance = by_chance.values(view, sampler, legal, rng)
            margin = by_margin.values(view, sampler, legal, same)
            place = (view.seat - view.dealer - 1) % 4
            two = bid_action(2)
            rows.append(
                (place, choice, chance[two] - chance[choice], margin[two] - margin[choice], max(chance, key=chance.get) == two)
            )
        obs, _, _, _, info = venv.step(network.act_batch(obs, mask))
    place, choice, gain, margin, best = (np.array(c) for c in zip(*rows, strict=True))
    print(
        f"{len(rows)} opening bids of {args.net} playing itself, {args.deals} rollouts per action, seed {args.seed} ({time.time() - started:.0f} s)"
    )
    print("value(bid 2) - value(the network's choice): by the win chance (x the table's scale) and by the hand's margin")
    print(f"{'where':22s} {'positions':>9s} {'2 best':>7s} {'by the win chance':>26s} {'by the margin':>26s}")

    def line(name: str, keep: np.ndarray) -> None:
        print(
            f"{name:22s} {keep.sum():9d} {best[keep].mean() if keep.any() else 0:7.3f} {interval(gain[keep]):>26s} {interval(margin[keep]):>26s}"
        )

    line("all", np.ones(len(rows), dtype=bool))
    for action, name in BIDS.items():
        if (choice == action).any():
            line(f"the network: {name}", choice == action)
    for p, name in enumerate(PLACES):
        if (place == p).any():
            line(f"seat: {name}", place == p)  # the dealer's 2 is open only after three passes
    answers(network, table, 16 * args.deals, args.seed + 1)


if __name__ == "__main__":
    main()
