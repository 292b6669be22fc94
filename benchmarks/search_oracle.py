"""What the search would win if its rollouts were dealt the true hidden cards: the ceiling of its beliefs.

Run: ``python benchmarks/search_oracle.py [--spec "search:net=neural,play_rollouts=64,rollouts=64,mix=1,chances=chance"]
[--opponent neural] [--games 400] [--seed 581] [--workers 2]``. The ``search`` agent of ``--spec``
plays a duplicate match against ``--opponent`` (the deal sets and seats of ``smear-eval`` with the
same seed), except that every deal its rollouts (and its PIMC) draw is the true one: the other
hands, another bidder's discards and the kitty as they are. No agent can know this; the gap
between this match and the same spec's real one is what the deals' guesses of the hidden cards
cost it, the most that a better model of them (``infer=``, a trained model) could win back.
"""

from __future__ import annotations

import argparse
import multiprocessing

import numpy as np
import torch

from agents import load_agent
from agents.arena import DealSetResult, MatchResult
from agents.arena.games import _count
from agents.rollouts import TrueDeal
from agents.search import SearchAgent
from smear_env import DealSampler, Game, Rules, SeatView, observe, seat_view
from smear_env.game import game_label, game_rng


class OracleSearch(SearchAgent):
    """A ``search`` agent whose deals are those of ``self.game`` (set before each decision)."""

    game: Game

    def _sampler(self, view: SeatView, observation: np.ndarray) -> DealSampler:
        return TrueDeal(self.game, view)  # type: ignore[return-value]  # deals as a DealSampler does


def play(spec: str, opponent: str, rules: Rules, seed: int, deal_sets: list[int]) -> list[DealSetResult]:
    """The deal sets, each twice with the seats swapped, the search's sampler told the truth."""
    torch.set_num_threads(1)
    loaded, other = load_agent(spec), load_agent(opponent)
    if not isinstance(loaded, SearchAgent):
        raise SystemExit(f"--spec {spec!r} is not a search agent")
    search = OracleSearch.__new__(OracleSearch)
    search.__dict__.update(loaded.__dict__)  # the spec's agent, its sampler told the truth
    results = []
    for d in deal_sets:
        result = DealSetResult(d, [], [])
        for swap in (0, 1):
            game = Game(rules, game_rng(seed, d, 0), game_id=f"{game_label(seed, d, 0)}-{'AB'[swap]}")
            side = [(seat + swap) & 1 for seat in range(4)]
            generators = [np.random.default_rng([seed, d, swap, max(s for s in range(4) if side[s] == w)]) for w in (0, 1)]
            while not game.game_over:
                seat = game.to_act
                agent = (search, other)[side[seat]]
                agent.rng = generators[side[seat]]
                view = seat_view(game, seat)
                search.game = game
                game.step(int(agent.act(observe(game, seat), game.action_mask(), view)))
            _count(result, game, swap, side, keep_records=False)
        results.append(result)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="search:net=neural,play_rollouts=64,rollouts=64,mix=1,chances=chance")
    parser.add_argument("--opponent", default="neural")
    parser.add_argument("--games", type=int, default=400, help="games, an even number (default 400)")
    parser.add_argument("--seed", type=int, default=581)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.games < 2 or args.games % 2 or args.workers < 1:
        parser.error("--games must be an even number, at least 2, and --workers at least 1")
    rules = Rules()
    sets = list(range(args.games // 2))
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        parts = pool.starmap(
            play, [(args.spec, args.opponent, rules, args.seed, sets[i :: args.workers]) for i in range(args.workers)]
        )
    match = MatchResult(
        ("oracle " + args.spec, args.opponent), rules, args.seed, sorted((r for p in parts for r in p), key=lambda r: r.deal_set)
    )
    rate, low, high = match.win_rate_ci95()
    print(f"{args.spec} with the true hidden cards vs {args.opponent}: {match.games} games (seed {args.seed})")
    margin = np.mean([m for r in match.deal_sets for m in r.margins])
    print(f"  win rate {rate:.3f}  95% CI [{low:.3f}, {high:.3f}], score margin {margin:+.2f} per game")


if __name__ == "__main__":
    main()
