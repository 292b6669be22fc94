"""How well the search's deals guess the hidden cards, with and without inference from the play.

Run: ``python experiments/inference.py [--net neural] [--positions 400] [--deals 32] [--infer 0,0.1,0.25,1]
[--draws 4] [--seed 7]``. Card-play decisions with a choice are taken from games the network plays
against itself (about one in seven, at random). At each, ``--deals`` deals are drawn as
``search``'s rollouts draw them (``agents.rollouts``): from the shipped model of the hidden
cards and from the uniform consistent sampler, and with ``infer=T`` kept from ``--draws`` times as
many by the network's odds of the bids, trump and cards seen. It prints the share of the other
seats' cards (those they still hold) that a deal puts in the right hand. The network that
played the games is the one the deals are weighed by: the case of ``search`` over a network
against that network.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from agents.neural import NeuralAgent
from agents.rollouts import Rollouts
from agents.search import SearchAgent
from smear_env import Game, Phase, SeatView, observe, seat_view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--net", default="neural", help="the network that plays and weighs (default neural)")
    parser.add_argument("--positions", type=int, default=400, help="card-play decisions (default 400)")
    parser.add_argument("--deals", type=int, default=32, help="deals kept per decision (default 32)")
    parser.add_argument("--infer", default="0,0.1,0.25,1", help="temperatures, comma-separated; 0 is no inference")
    parser.add_argument("--draws", type=int, default=4, help="deals drawn per deal kept with inference (default 4)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    temperatures = [float(t) for t in args.infer.split(",")]
    if args.positions < 1 or args.deals < 1 or args.draws < 1 or min(temperatures) < 0:
        parser.error("--positions, --deals and --draws must be at least 1, --infer temperatures 0 or more")
    torch.set_num_threads(1)
    network = NeuralAgent(args.net)
    samplers = {"learned": SearchAgent(net=args.net), "uniform": SearchAgent(net=args.net, beliefs="uniform")}  # search's deals
    rng = np.random.default_rng(args.seed)
    positions: list[tuple[SeatView, np.ndarray, dict[int, int]]] = []
    game_seed = args.seed * 100_000
    while len(positions) < args.positions:
        game = Game(network.rules, game_seed)
        game_seed += 1
        while not game.game_over and len(positions) < args.positions:
            seat, obs = game.to_act, observe(game, game.to_act)
            view = seat_view(game, seat)
            if game.phase == Phase.PLAY and len(view.legal_actions) > 1 and rng.random() < 0.15:
                held = {c: s for s in range(4) if s != seat for c in game.holding[s]}
                positions.append((view, obs, held))
            game.step(network.act(obs, game.action_mask(), view))
    kitty = network.rules.kitty_size
    print(f"{args.positions} card-play decisions of {args.net} against itself, {args.deals} deals each")
    for model, search in samplers.items():
        for temperature in temperatures:
            rollouts = Rollouts(network, args.deals, infer=temperature, draws=args.draws)
            right = total = 0
            for view, obs, held in positions:
                decks, _ = rollouts.deals_for(view, search._sampler(view, obs), rng)
                for deck in decks:
                    for card, seat in held.items():
                        cards = set(deck[6 * seat : 6 * seat + 6].tolist())
                        if seat == view.bidder:
                            cards |= set(deck[24 : 24 + kitty].tolist())  # what it picked up
                        right += card in cards
                        total += 1
            label = f"infer={temperature}, draws={args.draws}" if temperature else "no inference"
            print(f"  {model:<8} model of the hidden cards, {label:<24} cards in the right hand: {right / total:.4f}")


if __name__ == "__main__":
    main()
