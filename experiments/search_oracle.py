"""What the search would win if its rollouts were dealt the true hidden cards: the ceiling of its beliefs.

Run: ``python experiments/search_oracle.py [--spec "search:net=neural,play_rollouts=64,rollouts=64,mix=1,chances=win_chances"]
[--opponent neural] [--games 400] [--seed 581] [--workers 2] [--know all|partner|opponents] [--when all|contract|play]``. The ``search`` agent of ``--spec``
plays a duplicate match against ``--opponent`` (the deal sets and seats of ``smear-eval`` with the
same seed), except that every deal its rollouts (and its PIMC) draw is the true one: the other
hands, another bidder's discards and the kitty as they are. No agent can know this; the gap
between this match and the same spec's real one is what the deals' guesses of the hidden cards
cost it, the most that a better model of them (``infer=``, a trained model) could win back.

``--know partner`` tells it only the partner's hand (the rest drawn by its model given that hand), and
``--know opponents`` only the opponents' hands: how much of that ceiling lies with the partner, which a
partnership could tell each other by its bids and play, and how much with the opponents, who would not.
``--when contract`` tells it only at the contract decisions it searches (the trump and the discards: its bids
are its network's, which sees no deal), ``--when play`` only in the card play (its model's deals elsewhere):
which decisions a partnership's signals would have to serve.
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
from smear_env import DealSampler, Game, Phase, Rules, SeatView, observe, seat_view
from smear_env.game import game_label, game_rng

KNOW = {"partner": (2,), "opponents": (1, 3)}  # the seats told, counted clockwise from the searching seat
WHEN = {"all": set(Phase), "contract": {Phase.TRUMP, Phase.DISCARD}, "play": {Phase.PLAY}}  # where it is told


class OracleSearch(SearchAgent):
    """A ``search`` agent whose deals are those of ``self.game`` (set before each decision): all of them
    true (``know="all"``), or only the hands of ``know``'s seats, the rest drawn by the search's own model of
    the hidden cards given those (its weights with the told cards' places fixed: still exactly consistent).
    ``when`` limits the telling to some decisions (:data:`WHEN`; the model's deals elsewhere)."""

    game: Game
    know: str = "all"
    when: str = "all"

    def _sampler(self, view: SeatView, observation: np.ndarray) -> DealSampler:
        if view.phase not in WHEN[self.when]:
            return super()._sampler(view, observation)  # not told at this decision
        if self.know == "all":
            return TrueDeal(self.game, view)  # type: ignore[return-value]  # deals as a DealSampler does
        odds = np.ones((32, 4))  # the model's odds of each card's place (uniform without one), then the told hands fixed
        if self.beliefs is not None:
            with torch.no_grad():
                logits = self.beliefs(torch.as_tensor(observation[None], dtype=torch.float32, device=self.device))
            odds = torch.softmax(logits[0], dim=-1).cpu().numpy().astype(np.float64)
        for offset in KNOW[self.know]:
            column = offset - 1  # the model's columns: left, partner, right, out of play
            held = list(self.game.holding[(view.seat + offset) % 4])
            odds[:, column] = 0.0
            odds[held, :] = 0.0
            odds[held, column] = 1.0
        return DealSampler(view, weights=odds)


def play(
    spec: str, opponent: str, rules: Rules, seed: int, deal_sets: list[int], know: str = "all", when: str = "all"
) -> list[DealSetResult]:
    """The deal sets, each twice with the seats swapped, the search's sampler told the truth (``know``, ``when``)."""
    torch.set_num_threads(1)
    loaded, other = load_agent(spec), load_agent(opponent)
    if not isinstance(loaded, SearchAgent):
        raise SystemExit(f"--spec {spec!r} is not a search agent")
    search = OracleSearch.__new__(OracleSearch)
    search.__dict__.update(loaded.__dict__)  # the spec's agent, its sampler told the truth
    search.know, search.when = know, when
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
    parser.add_argument("--spec", default="search:net=neural,play_rollouts=64,rollouts=64,mix=1,chances=win_chances")
    parser.add_argument("--opponent", default="neural")
    parser.add_argument("--games", type=int, default=400, help="games, an even number (default 400)")
    parser.add_argument("--seed", type=int, default=581)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--know",
        choices=["all", *KNOW],
        default="all",
        help="the hidden cards told: all (default), or only the partner's or the opponents' hands",
    )
    parser.add_argument(
        "--when",
        choices=list(WHEN),
        default="all",
        help="the decisions at which it is told: all (default), contract (the trump and the discards; the bids are the network's) or play",
    )
    args = parser.parse_args()
    if args.games < 2 or args.games % 2 or args.workers < 1:
        parser.error("--games must be an even number, at least 2, and --workers at least 1")
    rules = Rules()
    sets = list(range(args.games // 2))
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        parts = pool.starmap(
            play,
            [
                (args.spec, args.opponent, rules, args.seed, sets[i :: args.workers], args.know, args.when)
                for i in range(args.workers)
            ],
        )
    match = MatchResult(
        ("oracle " + args.spec, args.opponent), rules, args.seed, sorted((r for p in parts for r in p), key=lambda r: r.deal_set)
    )
    rate, low, high = match.win_rate_ci95()
    told = (
        "every hidden card"
        if args.know == "all"
        else f"the {args.know}' hands"
        if args.know == "opponents"
        else "the partner's hand"
    )
    told += "" if args.when == "all" else f" ({args.when} decisions only)"
    print(f"{args.spec} told {told} vs {args.opponent}: {match.games} games (seed {args.seed})")
    margin = np.mean([m for r in match.deal_sets for m in r.margins])
    print(f"  win rate {rate:.3f}  95% CI [{low:.3f}, {high:.3f}], score margin {margin:+.2f} per game")


if __name__ == "__main__":
    main()
