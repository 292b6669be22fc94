"""Perfect-information Monte-Carlo search (PIMC), the method of the strongest Skat and Bridge programs.

For each decision the agent deals the cards it cannot see at random, consistently
with its seat view (``smear_env.DealSampler``: hand sizes, cards played, its own
pick-up and discards, the voids R11 revealed), solves every deal exactly with open
cards (``agents.dds``), and takes the action with the best average value: its team's
score change minus the other team's for the hand (R13, R14).

* Play: every legal card is valued by the solver on each deal.
* Trump: the two suits the heuristic estimate likes best, each with the discards the
  heuristic player would make, are solved on each deal.
* Discards: the two cards the heuristic would discard first, the rest of the discards
  completed the heuristic way, are solved on each deal.
* Bidding: on each deal (the kitty included) it takes the pick-up, picks the suit the
  heuristic estimate likes best, discards the heuristic way and solves the play for
  every bid it may make; passing is worth 0 (the other seats' contracts are not
  modelled). It bids the level with the best average if that beats 0.

Ties, common once the hand's points are decided, go to the heuristic player's choice
among the tied actions (it does not throw count to the other team for nothing).

``samples`` caps the deals per decision, ``seconds`` the time per decision (the first
deal is always solved). Python's cyclic garbage collector is paused while the agent
decides (and resumed after, if it was on), so that a full collection does not eat
the time budget.
"""

from __future__ import annotations

import dataclasses
import gc
import time

import numpy as np

from smear_env import DealSampler, SeatView
from smear_env.actions import BID_BASE, DISCARD_BASE, MIN_BID, PASS, PLAY_BASE, TRUMP_BASE
from smear_env.cards import SUITS, suit_of
from smear_env.core import discard_choices, high_low_cards, jack_card
from smear_env.game import HAND_SIZE, Game, Phase, game_count_of, tally, team_of
from smear_env.rules import Rules
from smear_env.view import CARD_INDEX

from .base import Agent
from .dds import Solver
from .heuristic import HeuristicAgent, estimate_points, heuristic_discard
from .registry import check_options


def _mask(cards) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def _cap(rules: Rules) -> int:
    """R15v-b's cap for the solver (-1: none)."""
    return -1 if rules.defender_cap is None else rules.defender_cap


def _decided_points(high_low_in_play: bool, trump: int, cards: list[int]) -> tuple[int, int]:
    """R13a/b (or R13v): the teams that will take High and Low, given every held card is played;
    ``cards[seat]``: the mask of what the seat holds or has played."""
    high, low = high_low_cards(cards[0] | cards[1] | cards[2] | cards[3], trump, high_low_in_play)
    teams = [next((s & 1 for s in range(4) if cards[s] >> card & 1), -1) if card >= 0 else -1 for card in (high, low)]
    return teams[0], teams[1]


class PIMCAgent(Agent):
    """PIMC search with an exact double-dummy solver; see the module docstring."""

    name = "pimc"
    independent = True

    def __init__(self, samples: int = 20, seconds: float = 0.1) -> None:
        super().__init__()
        check_options("pimc", samples=samples, seconds=seconds)
        self.samples = samples
        self.seconds = seconds
        self.solver = Solver()
        self._heuristic = HeuristicAgent()
        self.deals_solved = 0
        self._public: tuple | None = None  # what the deals of one play decision share

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> int:
        """The action with the best mean value over deals consistent with ``view``, each solved with open cards."""
        legal = self._candidates(view, list(view.legal_actions) or np.flatnonzero(action_mask).tolist())
        if len(legal) == 1:
            return legal[0]
        # Python's cyclic garbage collector waits until the decision is made: a full collection
        # of a process that has compiled the solver takes 60-120 ms, most of the time budget.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._search(observation, action_mask, view, legal)
        finally:
            if collecting:
                gc.enable()

    def _search(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView, legal: list[int]) -> int:
        totals = self._deal_values(observation, view, legal)
        best = max(totals.values())
        tied = [a for a, v in totals.items() if v >= best - 1e-9]
        if len(tied) == 1:
            return tied[0]
        # Exact values often tie once the points are decided: the heuristic player chooses among the best.
        return self._heuristic.act(observation, action_mask, dataclasses.replace(view, legal_actions=tuple(tied)))

    def _deal_values(self, observation: np.ndarray, view: SeatView, legal: list[int]) -> dict[int, float]:
        """Each action's value (the acting team's score change minus the other's, summed) over the deals
        drawn for this decision, each solved exactly; as many deals as ``samples`` and ``seconds`` allow."""
        deadline = time.perf_counter() + self.seconds
        totals: dict[int, float] = dict.fromkeys(legal, 0.0)
        sampler = self._sampler(view, observation)
        self._public = None
        for i in range(self.samples):
            if i and time.perf_counter() > deadline:
                break
            game = sampler.game(self.rng)
            for action, value in self._values(game, view, legal).items():
                totals[action] += value
            self.deals_solved += 1
        return totals

    def _sampler(self, view: SeatView, observation: np.ndarray) -> DealSampler:
        """Where the deals come from: every deal consistent with the view equally likely."""
        return DealSampler(view)

    # Contract decisions solve one deal per candidate: the two the heuristic likes best are searched.
    CONTRACT_CANDIDATES = 2

    def _candidates(self, view: SeatView, legal: list[int]) -> list[int]:
        if view.phase == Phase.TRUMP:
            hand = [CARD_INDEX[c] for c in view.hand]
            ranked = sorted(legal, key=lambda a: -estimate_points(hand, a - TRUMP_BASE, 0))
            return ranked[: self.CONTRACT_CANDIDATES]
        if view.phase == Phase.DISCARD:
            assert view.trump is not None
            trump = SUITS.index(view.trump)
            allowed = [a - DISCARD_BASE for a in legal]
            ranked = []
            while allowed and len(ranked) < self.CONTRACT_CANDIDATES:
                card = heuristic_discard(trump, allowed)
                ranked.append(DISCARD_BASE + card)
                allowed.remove(card)
            return ranked
        return legal

    # ------------------------------------------------------------------ per phase
    def _values(self, game: Game, view: SeatView, legal: list[int]) -> dict[int, float]:
        seat = view.seat
        sign = 1 if team_of(seat) == 0 else -1  # the solver's values are team 0's
        if view.phase == Phase.PLAY:
            values = self._play_values(game)
            return {a: sign * float(values[a - PLAY_BASE]) for a in legal}
        if view.phase in (Phase.TRUMP, Phase.DISCARD):
            # The candidates are close: each search starts from the last one's value (and, for
            # discards, which keep the trump, from what it learnt).
            out: dict[int, float] = {}
            value = None
            for a in legal:
                if view.phase == Phase.TRUMP:
                    value = self._contract(game, seat, a - TRUMP_BASE, game.high_bid, [], False, value)[0]
                else:
                    assert game.trump is not None
                    value = self._contract(game, seat, game.trump, game.high_bid, [a - DISCARD_BASE], False, value)[0]
                out[a] = float(sign * value)
            return out
        # Bidding: one solve of the contract's play for points values every bid.
        hand = game.holding[seat] + game.kitty[: game.rules.kitty_size]
        suit = max({suit_of(c) for c in hand}, key=lambda s: estimate_points(hand, s, 0))
        margin, awarded = self._contract(game, seat, suit, 0, [], True)
        ours = (sign * margin + awarded) // 2
        theirs = awarded - ours
        out = {}
        for a in legal:
            bid = 0 if a == PASS else a - BID_BASE + MIN_BID
            out[a] = 0.0 if bid == 0 else float(ours - theirs if ours >= bid else -bid - theirs)
        return out

    def _contract(
        self, game: Game, seat: int, trump: int, bid: int, first_discards: list[int], pick_up: bool, previous: int | None = None
    ) -> tuple[int, int]:
        """Team 0's exact value when ``seat`` is the bidder with ``trump`` and ``bid`` (0: points only),
        the discards completed the heuristic way, and how many points the hand awards. ``previous``:
        the value of another candidate on this deal: the search starts there, and keeps the
        solver's table if the trump is the same."""
        hand = list(game.holding[seat]) + (game.kitty[: game.rules.kitty_size] if pick_up else [])
        discards = list(game.discards) + first_discards
        for c in first_discards:
            hand.remove(c)
        while len(hand) > HAND_SIZE:
            allowed = discard_choices(_mask(hand), trump)
            card = heuristic_discard(trump, [c for c in hand if allowed >> c & 1])
            hand.remove(card)
            discards.append(card)
        holding = [list(h) for h in game.holding]
        holding[seat] = hand
        rules = game.rules
        counted = (game_count_of(discards), 0) if team_of(seat) == 0 else (0, game_count_of(discards))  # R13d: the bidder's
        masks = [_mask(h) for h in holding]
        high, low = _decided_points(rules.high_low_in_play, trump, masks)
        reuse, guess = previous is not None, previous or 0
        # Bid 0 values the points taken (bidding), not a score change: no scores, no cap.
        scoring = ((game.scores[0], game.scores[1]), _cap(rules)) if bid else ((0, 0), -1)
        value = self.solver.value(
            masks, seat, trump, counted, high, low, team_of(seat), bid, True, reuse=reuse, guess=guess, scores=scoring[0],
            defender_cap=scoring[1],
        )  # fmt: skip
        jack_in_play = any(c == jack_card(trump) for h in holding for c in h)
        return value, (high >= 0) + (low >= 0) + jack_in_play + 1  # Game: a tie is rare, counted as awarded

    def _play_values(self, game: Game) -> np.ndarray:
        """Team 0's exact value of each card the player to act may play, from the game's position."""
        rules, trump, bidder = game.rules, game.trump, game.bidder
        assert trump is not None and bidder is not None  # play decisions come after the contract
        if self._public is None:
            # What every deal of this decision shares: the tricks (the Jack's team and the game-count
            # so far, R13), and who played what.
            points, game_count = tally(rules, trump, game.tricks)
            played = [0, 0, 0, 0]
            for plays in [p for _, p, _ in game.tricks] + [game.trick]:
                for s, c in plays:
                    played[s] |= 1 << c
            jack_team = -1 if points["jack"] is None else points["jack"]
            trick = [c for _, c in game.trick]
            leader = game.trick[0][0] if game.trick else game.to_act
            self._public = game_count, jack_team, played, trick, leader, not game.trick and not game.tricks
        game_count, jack_team, played, trick, leader, first = self._public
        bidder_team = team_of(bidder)
        counted = list(game_count)
        counted[bidder_team] += game_count_of(game.discards)  # R13d; another bidder's discards are sampled
        masks = [_mask(h) for h in game.holding]
        high, low = _decided_points(rules.high_low_in_play, trump, [m | p for m, p in zip(masks, played, strict=True)])
        return self.solver.card_values(
            masks, trick, leader, trump, (counted[0], counted[1]), jack_team, high, low, bidder_team, game.high_bid, first,
            scores=(game.scores[0], game.scores[1]), defender_cap=_cap(rules),
        )  # fmt: skip
