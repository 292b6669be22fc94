"""A double-dummy solver for the trick play of one Smear hand (open cards), compiled with numba.

Every card still held is played before the hand ends, so High and Low (R13a/b, and
R13v) are already decided by who holds the cards; play decides only the Jack (R13c:
who wins the trick holding it) and the Game (R13d: the game-count split). The solver
returns the best final value for team 0 (team 0 maximises, team 1 minimises) where the
value of a finished hand is team 0's score change minus team 1's under R14 (a set
bidder loses its bid); with ``bid = 0`` it is simply the difference in points taken.

Alpha-beta over the plays, with a transposition table at trick boundaries keyed by
the four hands, the leader, the game-count difference so far and the Jack's owner,
and equivalent cards (adjacent ranks in one hand with equal game-count) searched once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from smear_env.cards import GAME_COUNT

_GC = np.array(GAME_COUNT, dtype=np.int64)
TT_BITS = 16
_NEG, _POS = -1000, 1000


@njit("int64(int64, int64, int64, int64, int64, int64)", cache=False)
def _score(game_team, jack_team, high_team, low_team, bid_team, bid):
    """Team 0's score change minus team 1's for a hand whose four points went to these teams (-1: nobody)."""
    hp0 = 0
    hp1 = 0
    for team in (high_team, low_team, jack_team, game_team):
        if team == 0:
            hp0 += 1
        elif team == 1:
            hp1 += 1
    d0 = hp0
    d1 = hp1
    if bid > 0:
        if bid_team == 0 and hp0 < bid:
            d0 = -bid
        elif bid_team == 1 and hp1 < bid:
            d1 = -bid
    return d0 - d1


@njit("uint32(uint32, int64[:], int64, int64, boolean)", cache=False)
def _legal(hand, trick, n, trump, first_lead):
    """R9, R11 as bit masks."""
    trump_bits = np.uint32(0xFF) << np.uint32(8 * trump)
    if n == 0:
        if first_lead:
            return hand & trump_bits
        return hand
    led_bits = np.uint32(0xFF) << np.uint32(8 * (trick[0] >> 3))
    if hand & led_bits:
        return hand & (led_bits | trump_bits)
    return hand


@njit("int64(int64[:], int64)", cache=False)
def _winner_pos(trick, trump):
    best = 0
    led = trick[0] >> 3
    for i in range(1, 4):
        c = trick[i]
        b = trick[best]
        if c >> 3 == b >> 3:
            if c > b:
                best = i
        elif c >> 3 == trump or (b >> 3 != trump and c >> 3 == led):
            best = i
    return best


# fmt: off
# Explicit signatures compile once at import (a few seconds); numba cannot cache this recursive search.
@njit(
    "int64(uint32[:], int64[:, :], int64, int64, int64, int64, int64, int64, int64, boolean, int64, int64,"
    " int64[:], int64[:], uint64[:, :], int64[:, :], int64[:], int64, int64[:], boolean)",
    cache=False,
)
def _search(hands, tricks, t, n, leader, trump, gc0, gc1, jack_team, first_lead, alpha, beta,
            consts, gc_table, tt_key, tt_val, tt_gen, gen, root_values, is_root):
    """The exact value for team 0 of the position; at the root, every legal card's value goes to ``root_values``."""
    high_team, low_team, bid_team, bid = consts[0], consts[1], consts[2], consts[3]
    if n == 0 and not is_root:
        remaining = hands[0] | hands[1] | hands[2] | hands[3]
        left = 0
        for c in range(32):
            if remaining & (np.uint32(1) << np.uint32(c)):
                left += gc_table[c]
        # Bounds from what is still open: who gets the Jack, who gets Game (or a tie).
        jack_open = (remaining & (np.uint32(1) << np.uint32(trump * 8 + 4))) != 0
        lowest = _POS
        highest = _NEG
        for option in range(3):  # the Jack: still open (to either team), or already placed
            if jack_open == (option == 2):
                continue
            jack = option if jack_open else jack_team
            for game in (0, 1, -1):
                if game == 0 and not gc0 + left > gc1:
                    continue
                if game == 1 and not gc1 + left > gc0:
                    continue
                if game == -1 and not (abs(gc0 - gc1) <= left and (left - abs(gc0 - gc1)) % 2 == 0 or gc0 == gc1 and left == 0):
                    continue
                v = _score(game, jack, high_team, low_team, bid_team, bid)
                lowest = min(lowest, v)
                highest = max(highest, v)
        if lowest == highest or highest <= alpha:
            return highest
        if lowest >= beta:
            return lowest
    slot = -1
    alpha0 = alpha
    beta0 = beta
    k1 = np.uint64(0)
    k2 = np.uint64(0)
    extra = np.uint64(0)
    tt_move = -1
    if n == 0 and not is_root:
        k1 = np.uint64(hands[0]) | (np.uint64(hands[1]) << np.uint64(32))
        k2 = np.uint64(hands[2]) | (np.uint64(hands[3]) << np.uint64(32))
        extra = np.uint64(leader | ((gc0 - gc1 + 128) << 2) | ((jack_team + 1) << 11))
        h = (k1 * np.uint64(0x9E3779B97F4A7C15)) ^ (k2 * np.uint64(0xC2B2AE3D27D4EB4F)) ^ (extra * np.uint64(0x165667B19E3779F9))
        slot = np.int64(h >> np.uint64(64 - TT_BITS))
        if tt_gen[slot] == gen and tt_key[slot, 0] == k1 and tt_key[slot, 1] == k2 and tt_key[slot, 2] == extra:
            lower = tt_val[slot, 0]
            upper = tt_val[slot, 1]
            tt_move = tt_val[slot, 2]
            if lower >= beta:
                return lower
            if upper <= alpha:
                return upper
            if lower > alpha:
                alpha = lower
            if upper < beta:
                beta = upper
            if alpha >= beta:
                return lower
    seat = (leader + n) & 3
    hand = hands[seat]
    legal = _legal(hand, tricks[t], n, trump, first_lead)
    remaining = hands[0] | hands[1] | hands[2] | hands[3]
    maximise = (seat & 1) == 0
    best = _NEG if maximise else _POS
    best_move = -1
    jack = trump * 8 + 4
    # Move ordering: a leader tries high cards first (the best card found here before, first);
    # a follower the cheapest card that wins the trick so far, then the cheapest that does not.
    order = np.empty(32, dtype=np.int64)
    m = 0
    if n == 0:
        if tt_move >= 0:
            order[m] = tt_move
            m += 1
        for card in range(31, -1, -1):
            if card != tt_move and legal & (np.uint32(1) << np.uint32(card)):
                order[m] = card
                m += 1
    else:
        best_card = tricks[t, 0]
        for i in range(1, n):
            c = tricks[t, i]
            if (c >> 3 == best_card >> 3 and c > best_card) or (c >> 3 == trump and best_card >> 3 != trump):
                best_card = c
        for wanted in (True, False):
            for card in range(32):
                if legal & (np.uint32(1) << np.uint32(card)):
                    wins = (card >> 3 == best_card >> 3 and card > best_card) or (card >> 3 == trump and best_card >> 3 != trump)
                    if wins == wanted:
                        order[m] = card
                        m += 1
    for idx in range(m):
        card = order[idx]
        bit = np.uint32(1) << np.uint32(card)
        # Equivalent cards: the next lower card still in play in this suit is also ours, same count, no jack.
        if card & 7 and not is_root:
            lower = card - 1
            while lower >= (card & ~7) and not (remaining & (np.uint32(1) << np.uint32(lower))):
                lower -= 1
            same = lower >= (card & ~7) and (hand & (np.uint32(1) << np.uint32(lower))) and gc_table[lower] == gc_table[card]
            if same and card != jack and lower != jack:
                continue
        hands[seat] = hand & ~bit
        tricks[t, n] = card
        # At the root every card gets an exact value: no window from its siblings.
        a = _NEG if is_root else alpha
        b = _POS if is_root else beta
        if n == 3:
            winner = (leader + _winner_pos(tricks[t], trump)) & 3
            count = gc_table[tricks[t, 0]] + gc_table[tricks[t, 1]] + gc_table[tricks[t, 2]] + gc_table[tricks[t, 3]]
            new_jack = jack_team
            for i in range(4):
                if tricks[t, i] == jack:
                    new_jack = winner & 1
            v = _search(hands, tricks, t + 1, 0, winner, trump, gc0 + (count if winner & 1 == 0 else 0),
                        gc1 + (count if winner & 1 == 1 else 0), new_jack, False, a, b,
                        consts, gc_table, tt_key, tt_val, tt_gen, gen, root_values, False)
        else:
            v = _search(hands, tricks, t, n + 1, leader, trump, gc0, gc1, jack_team, first_lead, a, b,
                        consts, gc_table, tt_key, tt_val, tt_gen, gen, root_values, False)
        hands[seat] = hand
        if is_root:
            root_values[card] = v
        if maximise:
            if v > best:
                best = v
                best_move = card
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
                best_move = card
            if best < beta:
                beta = best
        if alpha >= beta and not is_root:
            break
    if slot >= 0:
        if tt_gen[slot] != gen or tt_key[slot, 0] != k1 or tt_key[slot, 1] != k2 or tt_key[slot, 2] != extra:
            tt_gen[slot] = gen
            tt_key[slot, 0] = k1
            tt_key[slot, 1] = k2
            tt_key[slot, 2] = extra
            tt_val[slot, 0] = _NEG
            tt_val[slot, 1] = _POS
        tt_val[slot, 2] = best_move
        if best <= alpha0:
            tt_val[slot, 1] = best
        elif best >= beta0:
            tt_val[slot, 0] = best
        else:
            tt_val[slot, 0] = best
            tt_val[slot, 1] = best
    return best
# fmt: on


class Solver:
    """Reusable tables for :func:`solve`; one per agent (not thread-safe)."""

    def __init__(self) -> None:
        size = 1 << TT_BITS
        self.tt_key = np.zeros((size, 3), dtype=np.uint64)
        self.tt_val = np.zeros((size, 3), dtype=np.int64)  # lower bound, upper bound, best card
        self.tt_gen = np.zeros(size, dtype=np.int64)
        self.gen = 0

    def _run(self, hands, trick, leader, trump, game_count, jack_team, consts, first_lead, root: bool) -> tuple[int, np.ndarray]:
        self.gen += 1
        tricks = np.zeros((8, 4), dtype=np.int64)
        tricks[0, : len(trick)] = trick
        values = np.full(32, -9999, dtype=np.int64)
        best = _search(
            np.array(hands, dtype=np.uint32), tricks, 0, len(trick), int(leader), int(trump), int(game_count[0]), int(game_count[1]),
            int(jack_team), bool(first_lead), _NEG, _POS, consts, _GC, self.tt_key, self.tt_val, self.tt_gen, self.gen, values, root,
        )  # fmt: skip
        return int(best), values

    def value(
        self,
        hands: list[int],
        leader: int,
        trump: int,
        game_count: tuple[int, int],
        high_team: int,
        low_team: int,
        bidder_team: int,
        bid: int,
        first_lead: bool,
    ) -> int:
        """The exact value for team 0 of a position at the start of a trick (cheaper than :meth:`card_values`)."""
        consts = np.array([high_team, low_team, bidder_team, bid], dtype=np.int64)
        return self._run(hands, [], leader, trump, game_count, -1, consts, first_lead, root=False)[0]

    def card_values(
        self,
        hands: list[int],
        trick: list[int],
        leader: int,
        trump: int,
        game_count: tuple[int, int],
        jack_team: int,
        high_team: int,
        low_team: int,
        bidder_team: int,
        bid: int,
        first_lead: bool,
    ) -> np.ndarray:
        """The exact final value for team 0 of each legal card of the player to act (-9999: not legal).

        ``hands`` are the four seats' remaining cards as 32-bit masks; ``trick`` the cards
        already played to the trick in progress, led by ``leader``; ``game_count`` what
        each team has won so far (the bidder's discards included); ``jack_team``,
        ``high_team``, ``low_team`` -1 for nobody. ``bid`` 0 scores points taken, unset.
        """
        consts = np.array([high_team, low_team, bidder_team, bid], dtype=np.int64)
        return self._run(hands, trick, leader, trump, game_count, jack_team, consts, first_lead, root=True)[1]
