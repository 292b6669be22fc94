"""A rule-based Smear player that bids from an estimate of its points and plays with intent.

Rules, in the order they are tried:

Bidding
    For every suit it holds, estimate the points the hand can take with that suit as
    trump: High 1.0 with the ace (0.15 without: the kitty may hold it); Low 1.0 with the
    7 (we play it, so it is ours), else 0.25 (partner's or the kitty's); Jack 1.0 with the
    jack guarded by the ace, 0.75 by the king or queen, 0.5 bare, else 0.1 per higher
    trump held; Game 0.15 + 0.08 per trump + 0.04 per ten or ace held (at most 0.95);
    plus 0.12 per kitty card. It bids the whole number of the best suit's estimate (2-4)
    when that beats the highest bid, one less when its partner already bid; the stuck
    dealer bids 2.
Trump
    The suit with the best estimate after the pick-up.
Discards
    Never a trump while it may keep it; first non-trump tens (their 10 game-count goes
    to the bidder's team), then the lowest side cards, keeping side aces.
Play
    Leading: the bidder's team pulls trumps with its highest trump while it holds the
    highest one left or the ace; a side ace is cashed; otherwise the lowest card of the
    longest side suit. Following: when the partner is winning the trick (and no higher
    trump can follow from an opponent who may still hold one), it feeds count: a ten,
    then the jack of trump if safe, else the lowest; when an opponent is winning, it
    takes the trick with the cheapest card that wins if the trick holds the jack, a
    ten, or more than 3 game-count, or if it is the last to play; otherwise it throws
    its lowest card, never a ten or the jack of trump when something else is legal.
    The 7 of trump is thrown early (Low goes to whoever plays it).
"""

from __future__ import annotations

import numpy as np

from smear_env import SeatView
from smear_env.actions import DISCARD_BASE, PASS, PLAY_BASE, TRUMP_BASE, bid_action
from smear_env.cards import ACE, GAME_COUNT, JACK, KING, QUEEN, SEVEN, SUITS, TEN, rank_of, suit_of
from smear_env.game import Phase, team_of, trick_winner
from smear_env.view import CARD_INDEX

from .base import Agent


def estimate_points(hand: list[int], suit: int, kitty_cards: int) -> float:
    """The expected points a hand takes with ``suit`` as trump (see the module docstring)."""
    trumps = {rank_of(c) for c in hand if suit_of(c) == suit}
    high = 1.0 if ACE in trumps else 0.15
    low = 1.0 if SEVEN in trumps else 0.25
    if JACK in trumps:
        jack = 1.0 if ACE in trumps else 0.75 if (KING in trumps or QUEEN in trumps) else 0.5
    else:
        jack = 0.1 * len(trumps & {ACE, KING, QUEEN})
    tens_aces = sum(1 for c in hand if rank_of(c) in (TEN, ACE))
    game = min(0.95, 0.15 + 0.08 * len(trumps) + 0.04 * tens_aces)
    return high + low + jack + game + 0.12 * kitty_cards


def heuristic_discard(trump: int, allowed: list[int]) -> int:
    """The card the heuristic discards of ``allowed`` with ``trump`` declared: a side ten (game-count banked,
    R13d), else the lowest side card but an ace; with only trumps, the lowest that is not a point card."""
    side = [c for c in allowed if suit_of(c) != trump]
    if not side:
        return min(allowed, key=lambda c: (rank_of(c) in (ACE, JACK, SEVEN), rank_of(c)))
    tens = [c for c in side if rank_of(c) == TEN]
    return tens[0] if tens else min(side, key=lambda c: (rank_of(c) == ACE, rank_of(c)))


class HeuristicAgent(Agent):
    """The rule-based player documented in this module."""

    name = "heuristic"
    independent = True

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> int:
        """The rule-based choice for the phase of ``view`` (bid, trump, discard or card); see :meth:`agents.Agent.act`."""
        legal = list(view.legal_actions) or np.flatnonzero(action_mask).tolist()
        hand = [CARD_INDEX[c] for c in view.hand]
        if view.phase == Phase.BID:
            return self._bid(view, hand, legal)
        if view.phase == Phase.TRUMP:
            best = max((a - TRUMP_BASE for a in legal), key=lambda s: estimate_points(hand, s, 0))
            return TRUMP_BASE + best
        if view.phase == Phase.DISCARD:
            return DISCARD_BASE + self._discard(view, hand, [a - DISCARD_BASE for a in legal])
        return PLAY_BASE + self._play(view, hand, [a - PLAY_BASE for a in legal])

    def _bid(self, view: SeatView, hand: list[int], legal: list[int]) -> int:
        k = view.rules.kitty_size
        estimate = max(estimate_points(hand, s, k) for s in {suit_of(c) for c in hand})
        partner_bid = any(s == (view.seat + 2) % 4 and b > 0 for s, b in view.bids)
        want = min(4, int(estimate) - (1 if partner_bid else 0))
        for bid in range(want, 1, -1):
            if bid_action(bid) in legal:
                return bid_action(bid)
        return PASS if PASS in legal else min(legal)  # the stuck dealer bids the least

    def _discard(self, view: SeatView, hand: list[int], allowed: list[int]) -> int:
        assert view.trump is not None  # declared before the discards (R9)
        return heuristic_discard(SUITS.index(view.trump), allowed)

    def _play(self, view: SeatView, hand: list[int], legal: list[int]) -> int:
        assert view.trump is not None  # declared before the first lead (R9)
        trump = SUITS.index(view.trump)
        played = {CARD_INDEX[c] for t in view.tricks for _, c in t.plays} | {CARD_INDEX[c] for _, c in view.trick}
        unseen_trumps = [c for c in range(trump * 8, trump * 8 + 8) if c not in played and c not in hand]
        my_team = team_of(view.seat)
        if not view.trick:
            return self._lead(view, hand, legal, trump, unseen_trumps, my_team)
        trick = [(s, CARD_INDEX[c]) for s, c in view.trick]
        current = trick_winner(trick, trump)
        winning_card = dict((s, c) for s, c in trick)[current]
        last_to_play = len(trick) == 3
        jack = trump * 8 + JACK
        seven = trump * 8 + SEVEN

        def beats(card: int) -> bool:
            return trick_winner([*trick, (view.seat, card)], trump) == view.seat

        if team_of(current) == my_team:
            # Partner winning: is it safe from the opponents still to play?
            safe = last_to_play or (suit_of(winning_card) == trump and all(c < winning_card for c in unseen_trumps))
            if safe:
                feed = (
                    [c for c in legal if rank_of(c) == TEN] or [c for c in legal if c == jack] or [c for c in legal if c == seven]
                )
                if feed:
                    return feed[0]
            return self._lowest(legal, trump, avoid={jack})
        count = sum(GAME_COUNT[c] for _, c in trick)
        worth = last_to_play or count > 3 or any(c == jack for _, c in trick) or any(rank_of(c) == TEN for _, c in trick)
        winners = [c for c in legal if beats(c)]
        if worth and winners:
            # Cheapest winner; a trump that might be over-trumped is still the best try.
            return min(winners, key=lambda c: (suit_of(c) == trump, c == jack, rank_of(c)))
        if seven in legal:
            return seven
        return self._lowest(legal, trump, avoid={jack})

    def _lead(self, view: SeatView, hand: list[int], legal: list[int], trump: int, unseen: list[int], my_team: int) -> int:
        trumps = sorted((c for c in legal if suit_of(c) == trump), reverse=True)
        bidder_team = view.bidder is not None and team_of(view.bidder) == my_team
        if trumps and (not unseen or trumps[0] > max(unseen)) and (bidder_team or rank_of(trumps[0]) == ACE):
            return trumps[0]
        side_aces = [c for c in legal if suit_of(c) != trump and rank_of(c) == ACE]
        if side_aces:
            return side_aces[0]
        if trumps and len(legal) == len(trumps):
            # Only trumps (or the first lead): the lowest that is not the jack, else the jack.
            return min(trumps, key=lambda c: (rank_of(c) == JACK, rank_of(c) == TEN, rank_of(c)))
        side = [c for c in legal if suit_of(c) != trump]
        by_suit: dict[int, list[int]] = {}
        for c in side:
            by_suit.setdefault(suit_of(c), []).append(c)
        longest = max(by_suit.values(), key=len)
        return min(longest, key=lambda c: (rank_of(c) == TEN, rank_of(c)))

    @staticmethod
    def _lowest(legal: list[int], trump: int, avoid: set[int]) -> int:
        """The cheapest card to give away: no tens or guarded points when anything else will do."""
        return min(legal, key=lambda c: (c in avoid, rank_of(c) == TEN, suit_of(c) == trump, GAME_COUNT[c], rank_of(c)))
