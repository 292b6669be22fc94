"""The fast core: the rules once more, as numba functions over card bit masks.

A card set is an int64 mask below ``2**32``: bit ``c`` is card ``c = suit * 8 + rank``
(``smear_env.cards``), so a suit is 8 adjacent bits. The readable expression of every rule
is the reference engine, :mod:`smear_env.game`; the batched engine's kernels
(:mod:`smear_env.vector_kernels`), the double-dummy solver (``agents.dds``) and PIMC
(``agents.pimc``) call the functions here and nothing else re-derives a rule. The two
expressions are proven equal by ``tests/test_core.py`` (every function against the engine,
over random positions under every rule setting), the batched engine's parity test and the
solver's principal lines played through the engine (``tests/test_pimc.py``).

Callers pass masks as int64 (``np.int64(x)`` for the batched engine's uint32 words).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import actions, cards
from .actions import MAX_BID, MIN_BID
from .cards import ACE, GAME_COUNT, JACK, SEVEN
from .compiled import forget_stale

forget_stale(__file__, actions.__file__, cards.__file__)

# ---------------------------------------------------------------------- bits
_DE_BRUIJN = 0x077CB531
_LOWEST = np.zeros(32, dtype=np.int64)
_LOWEST[[((_DE_BRUIJN << i) & 0xFFFFFFFF) >> 27 for i in range(32)]] = range(32)
HIGHEST_IN_BYTE = np.array([-1] + [b.bit_length() - 1 for b in range(1, 256)], dtype=np.int64)
"""The index of the highest set bit of a byte (-1 for 0): the highest rank of a suit's 8 bits."""
GAME_COUNT_OF = np.array(GAME_COUNT, dtype=np.int64)
"""R13d: the game-count of each card."""
SUIT = 0xFF
"""The 8 bits of one suit, at bit 0."""


@njit(cache=True, inline="always")
def lowest_card(cards):
    """The lowest card of a nonzero card set (the lowest set bit, by a de Bruijn multiply)."""
    return _LOWEST[(((cards & -cards) * _DE_BRUIJN) & 0xFFFFFFFF) >> 27]


@njit(cache=True, inline="always")
def suit_cards(suit):
    """The card set of a whole suit."""
    return SUIT << (8 * suit)


@njit(cache=True, inline="always")
def card_count(cards):
    """How many cards a set holds."""
    count = 0
    while cards:
        cards &= cards - 1
        count += 1
    return count


# ---------------------------------------------------------------------- R6-R12
@njit(cache=True, inline="always")
def bid_choices(high_bid, stuck_dealer):
    """R6, R7v: the bids allowed now as bits of the action table (bit 0 pass, bit ``b - 1`` bid b):
    any bid above the highest, and pass unless the dealer is stuck."""
    choices = 0 if stuck_dealer else 1
    for bid in range(MIN_BID, MAX_BID + 1):
        if bid > high_bid:
            choices |= 1 << (bid - 1)
    return choices


@njit(cache=True, inline="always")
def bidding_over(seat, dealer, bid):
    """R7: bidding ends once the dealer has had a turn, or at once on a bid of 4."""
    return seat == dealer or bid == MAX_BID


@njit(cache=True, inline="always")
def trump_choices(hand):
    """R9: the suits the bidder may declare, as bits 0-3: the suits it holds."""
    choices = 0
    for suit in range(4):
        if hand & suit_cards(suit):
            choices |= 1 << suit
    return choices


@njit(cache=True, inline="always")
def discard_choices(hand, trump):
    """R10: the cards the bidder may discard: a trump only while it holds more than six."""
    trumps = hand & suit_cards(trump)
    return hand if card_count(trumps) > 6 else hand & ~trumps


@njit(cache=True, inline="always")
def play_choices(hand, led, trump, first_lead):
    """R9, R11: the cards that may be played: the first lead of the hand is a trump; a leader
    (``led`` -1) plays anything else; a follower holding the suit of the card ``led`` plays that
    suit or a trump, and one without it plays anything."""
    if led < 0:
        return hand & suit_cards(trump) if first_lead else hand
    follow = suit_cards(led >> 3)
    return hand & (follow | suit_cards(trump)) if hand & follow else hand


@njit(cache=True, inline="always")
def shows_void(led, card, trump):
    """R11: following the card ``led`` with ``card``, neither of the suit led nor a trump, shows no
    card of the suit led (trumping reveals nothing)."""
    return card >> 3 != led >> 3 and card >> 3 != trump


@njit(cache=True, inline="always")
def beats(card, best, trump):
    """R12: whether ``card`` beats ``best``, the card winning the trick so far: higher in its suit,
    or a trump on a card that is not one. (Bitwise, not short-circuit: no branch to mispredict.)"""
    return ((card >> 3 == best >> 3) & (card > best)) | ((card >> 3 == trump) & (best >> 3 != trump))


@njit(cache=True, inline="always")
def winning_place(cards, start, n, trump):
    """R12: the card winning the first ``n`` cards of a trick stored at ``cards[start:]`` and its place."""
    best = cards[start]
    place = 0
    for i in range(1, n):
        if beats(cards[start + i], best, trump):
            best = cards[start + i]
            place = i
    return best, place


# ---------------------------------------------------------------------- R13-R15
@njit(cache=True, inline="always")
def high_low_cards(trumps, trump, high_low_in_play):
    """R13a/b (R13v): the High and the Low card among ``trumps``, the trumps played (or still to be),
    -1 where there is none: the ace and the 7 of trump, or the highest and lowest trump played."""
    ranks = (trumps >> (8 * trump)) & SUIT
    if high_low_in_play:
        if not ranks:
            return -1, -1
        return 8 * trump + HIGHEST_IN_BYTE[ranks], 8 * trump + lowest_card(ranks)
    high = 8 * trump + ACE if ranks >> ACE & 1 else -1
    low = 8 * trump + SEVEN if ranks >> SEVEN & 1 else -1
    return high, low


@njit(cache=True, inline="always")
def jack_card(trump):
    """R13c: the jack of trump."""
    return 8 * trump + JACK


@njit(cache=True, inline="always")
def game_team(count0, count1):
    """R13d: the team with more game-count takes Game; nobody (-1) on a tie."""
    if count0 == count1:
        return -1
    return 0 if count0 > count1 else 1


@njit(cache=True, inline="always")
def hand_points(high_team, low_team, jack_team, game):
    """R13: how many of the four points each team took (-1: nobody took that point)."""
    taken0 = (high_team == 0) + (low_team == 0) + (jack_team == 0) + (game == 0)
    taken1 = (high_team == 1) + (low_team == 1) + (jack_team == 1) + (game == 1)
    return taken0, taken1


@njit(cache=True)
def settle(score0, score1, bid_team, bid, taken0, taken1, defender_cap, target, win_only_on_made_bid):
    """R14, R15 and their variants: the scores after a hand, whether the bid was made and the winning
    team (-1: nobody yet). A made bid adds all the points taken, a set one subtracts the bid; the
    other team adds its points, capped at ``defender_cap`` (R15v-b; -1: no cap). A team at
    ``target`` wins, the bidder's team first (R15); with ``win_only_on_made_bid`` (R15v-a) only
    the bidder's team, having made its bid."""
    taken = taken0 if bid_team == 0 else taken1
    made = taken >= bid
    bidder_score = (score0 if bid_team == 0 else score1) + (taken if made else -bid)
    defender_score = (score1 if bid_team == 0 else score0) + (taken1 if bid_team == 0 else taken0)
    if defender_cap >= 0 and defender_score > defender_cap:
        defender_score = defender_cap
    winner = -1
    if win_only_on_made_bid:
        if made and bidder_score >= target:
            winner = bid_team
    elif bidder_score >= target:
        winner = bid_team
    elif defender_score >= target:
        winner = 1 - bid_team
    if bid_team == 0:
        return bidder_score, defender_score, made, winner
    return defender_score, bidder_score, made, winner


@njit(cache=True)
def team_reward(mode, change, other_change, outcome):
    """A team's reward when a hand ends, for every env; ``mode`` is the index of ``reward=`` in
    :data:`smear_env.rules.REWARDS`: 0 (game) +1 when the team won the game, -1 when the other
    team did (``outcome`` +1 / -1 / 0); 1 (hand) its own score change; 2 (margin) its score
    change minus the other team's."""
    if mode == 0:
        return float(outcome)
    if mode == 1:
        return float(change)
    return float(change - other_change)
