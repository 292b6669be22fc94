"""A double-dummy solver for the trick play of one Smear hand (open cards), compiled with numba.

Every card still held is played before the hand ends, so High and Low (R13a/b, and
R13v) are already decided by who holds the cards; play decides only the Jack (R13c:
who wins the trick holding it) and the Game (R13d: the game-count split). The solver
returns the best final value for team 0 (team 0 maximises, team 1 minimises) where the
value of a finished hand is team 0's score change minus team 1's under R14 (a set
bidder loses its bid); with ``bid = 0`` it is simply the difference in points taken.

Alpha-beta over the plays, with a transposition table at trick boundaries keyed by
the four hands, the leader, the game-count difference so far and the Jack's owner,
and equivalent cards (adjacent ranks in one hand with equal game-count, no card in
play between them, the trick on the table included) searched once. The last trick,
one card each, is scored without a search.
Exact values come from null-window tests (MTD(f)): of the position for :meth:`Solver.value`,
of each root card for :meth:`Solver.card_values`. The Jack counts as decided once its
holder's team holds every trump still out above it. The whole
search state lives in one int64 workspace array (hands, tricks, move lists, table), so
a recursive call passes one array.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from smear_env.cards import GAME_COUNT

TT_BITS = 16
_NEG, _POS = -1000, 1000
# Workspace layout (int64 offsets).
HANDS = 0  # 4 hands as card bit masks
TRICKS = 4  # 8 tricks x 4 cards, card of trick t, position n at TRICKS + 4 t + n
CONSTS = 36  # high team, low team, bidder team, bid
GC = 40  # game-count of each card
ROOT = 72  # value of each root card (-9999: not legal)
ORDERS = 104  # move lists, 32 per depth 4 t + n
NODES = ORDERS + 33 * 32  # positions searched
TT = NODES + 8  # the table: TT_FIELDS per slot
TT_FIELDS = 7  # key 1, key 2, extra, generation, lower bound, upper bound, best card
SIZE = TT + TT_FIELDS * (1 << TT_BITS)


@njit("int64(int64, int64, int64, int64, int64, int64)", cache=False)
def _score(game_team, jack_team, high_team, low_team, bid_team, bid):
    """Team 0's score change minus team 1's for a hand whose four points went to these teams (-1: nobody)."""
    hp0 = (high_team == 0) + (low_team == 0) + (jack_team == 0) + (game_team == 0)
    hp1 = (high_team == 1) + (low_team == 1) + (jack_team == 1) + (game_team == 1)
    d0 = hp0
    d1 = hp1
    if bid > 0:
        if bid_team == 0 and hp0 < bid:
            d0 = -bid
        elif bid_team == 1 and hp1 < bid:
            d1 = -bid
    return d0 - d1


@njit("int64(int64, int64, int64)", cache=False)
def _beats(card, best, trump):
    """Whether ``card`` beats ``best``, the card winning the trick so far."""
    return (card >> 3 == best >> 3 and card > best) or (card >> 3 == trump and best >> 3 != trump)


@njit("int64(int64[:], int64, int64, int64, int64, int64)", cache=False)
def _last_trick(w, leader, trump, gc0, gc1, jack_team):
    """The value for team 0 once each seat holds one card: the last trick plays itself."""
    best = -1
    pos = 0
    count = 0
    has_jack = False
    for i in range(4):
        h = w[HANDS + ((leader + i) & 3)]
        card = 0
        while not (h >> card) & 1:
            card += 1
        count += w[GC + card]
        has_jack |= card == trump * 8 + 4
        if i == 0 or _beats(card, best, trump):
            best = card
            pos = i
    team = (leader + pos) & 1
    if has_jack:
        jack_team = team
    if team == 0:
        gc0 += count
    else:
        gc1 += count
    game = -1 if gc0 == gc1 else (0 if gc0 > gc1 else 1)
    return _score(game, jack_team, w[CONSTS], w[CONSTS + 1], w[CONSTS + 2], w[CONSTS + 3])


@njit(cache=False, inline="always")
def _order_moves(w, order, t, n, leader, seat, trump, legal, tt_move):
    """Write the legal cards to ``w[order:]`` in the order to search them; returns how many."""
    # Move ordering: a leader tries the best card found here before, then trumps and the other
    # suits high to low; a follower the cheapest card that wins the trick so far (the led suit,
    # then trumps), then the others: count cards first if its partner is winning, last if not.
    m = 0
    if n == 0:
        if tt_move >= 0:
            w[order] = tt_move
            m = 1
        for k in range(4):
            suit = (trump + k) & 3
            if (legal >> (8 * suit)) & 0xFF == 0:
                continue
            for rank in range(7, -1, -1):
                card = suit * 8 + rank
                if card != tt_move and (legal >> card) & 1:
                    w[order + m] = card
                    m += 1
    else:
        winning = w[TRICKS + 4 * t]
        win_pos = 0
        for i in range(1, n):
            c = w[TRICKS + 4 * t + i]
            if _beats(c, winning, trump):
                winning = c
                win_pos = i
        partner_wins = ((leader + win_pos) & 1) == (seat & 1)
        led_suit = w[TRICKS + 4 * t] >> 3
        # Winners, cheapest first: the led suit, then trumps.
        for k in range(2 if led_suit != trump else 1):
            suit = led_suit if k == 0 else trump
            for rank in range(8):
                card = suit * 8 + rank
                if (legal >> card) & 1 and _beats(card, winning, trump):
                    w[order + m] = card
                    m += 1
        # Then the others: count cards first when the partner is winning, last when not.
        start = m
        sign = 1 if partner_wins else -1
        for suit in range(4):
            bits = (legal >> (8 * suit)) & 0xFF
            for rank in range(8 if bits else 0):
                card = suit * 8 + rank
                if (bits >> rank) & 1 and not _beats(card, winning, trump):
                    key = sign * (w[GC + card] * 8 + rank)
                    j = m
                    while j > start and sign * (w[GC + w[order + j - 1]] * 8 + (w[order + j - 1] & 7)) < key:
                        w[order + j] = w[order + j - 1]
                        j -= 1
                    w[order + j] = card
                    m += 1
    return m


@njit(cache=False, inline="always")
def _legal_cards(w, t, n, hand, trump, first_lead):
    """R9, R11: the cards of ``hand`` that may be played now."""
    if n == 0:
        return hand & (0xFF << (8 * trump)) if first_lead else hand
    led = 0xFF << (8 * (w[TRICKS + 4 * t] >> 3))
    return hand & (led | (0xFF << (8 * trump))) if hand & led else hand


@njit(cache=False, inline="always")
def _in_play(w, t, n, remaining):
    """Cards still in play: held, or on the table in this trick (a card there separates ranks too)."""
    for i in range(n):
        remaining |= 1 << w[TRICKS + 4 * t + i]
    return remaining


@njit(cache=False, inline="always")
def _equivalent_below(w, card, hand, in_play, jack):
    """Whether ``card`` need not be searched: the next lower card in play in its suit is also in
    ``hand``, with the same game-count, neither being the Jack."""
    if not card & 7:
        return False
    lower = card - 1
    while lower >= (card & ~7) and not (in_play >> lower) & 1:
        lower -= 1
    return lower >= (card & ~7) and (hand >> lower) & 1 == 1 and w[GC + lower] == w[GC + card] and card != jack and lower != jack


@njit(cache=False, inline="always")
def _slot(k1, k2, extra):
    """The transposition-table slot of a position."""
    h = (k1 * -7046029254386353131) ^ (k2 * -4417276706812531889) ^ (extra * 1609587929392839161)
    return TT + TT_FIELDS * ((h >> (64 - TT_BITS)) & ((1 << TT_BITS) - 1))


@njit(cache=False, inline="always")
def _store(w, slot, k1, k2, extra, gen, best, best_move, alpha0, beta0):
    """Keep what a search of the window (alpha0, beta0) learnt: a bound, or the exact value."""
    if w[slot + 3] != gen or w[slot] != k1 or w[slot + 1] != k2 or w[slot + 2] != extra:
        w[slot] = k1
        w[slot + 1] = k2
        w[slot + 2] = extra
        w[slot + 3] = gen
        w[slot + 4] = _NEG
        w[slot + 5] = _POS
    w[slot + 6] = best_move
    if best <= alpha0:
        w[slot + 5] = min(w[slot + 5], best)
    elif best >= beta0:
        w[slot + 4] = max(w[slot + 4], best)
    else:
        w[slot + 4] = best
        w[slot + 5] = best


# fmt: off
# Explicit signatures compile once at import (a few seconds); numba cannot cache this recursive search.
@njit("int64(int64[:], int64, int64, int64, int64, int64, int64, int64, boolean, int64, int64, int64, boolean, int64)",
      cache=False)
def _search(w, t, n, leader, trump, gc0, gc1, jack_team, first_lead, alpha, beta, gen, is_root, left):
    """The exact value for team 0 of the position (fail-soft); at the root, every legal card's exact value goes to ``w[ROOT + card]``."""
    w[NODES] += 1
    if n == 0 and not is_root and not first_lead:
        h = w[HANDS + leader]
        if h != 0 and h & (h - 1) == 0:
            return _last_trick(w, leader, trump, gc0, gc1, jack_team)
    high_team = w[CONSTS]
    low_team = w[CONSTS + 1]
    bid_team = w[CONSTS + 2]
    bid = w[CONSTS + 3]
    remaining = w[HANDS] | w[HANDS + 1] | w[HANDS + 2] | w[HANDS + 3]
    jack = trump * 8 + 4
    slot = -1
    k1 = 0
    k2 = 0
    extra = 0
    tt_move = -1
    alpha0 = alpha
    beta0 = beta
    if n == 0 and not is_root:
        # Bounds from what is still open: who gets the Jack, who gets Game (or a tie).
        jack_open = (remaining >> jack) & 1 == 1
        jack_fixed = jack_team
        if jack_open:
            # The Jack goes to its holder's team if that team holds every trump still out above it.
            holder = 0 if (w[HANDS] | w[HANDS + 2]) >> jack & 1 else 1
            above = remaining & (0xE0 << (8 * trump))
            if above & (w[HANDS + holder] | w[HANDS + holder + 2]) == above:
                jack_open = False
                jack_fixed = holder
        lowest = _POS
        highest = _NEG
        for option in range(3):  # the Jack: still open (to either team), or already placed
            if jack_open == (option == 2):
                continue
            jt = option if jack_open else jack_fixed
            for game in (0, 1, -1):
                if game == 0 and not gc0 + left > gc1:
                    continue
                if game == 1 and not gc1 + left > gc0:
                    continue
                if game == -1 and not (abs(gc0 - gc1) <= left and (left - abs(gc0 - gc1)) % 2 == 0):
                    continue
                v = _score(game, jt, high_team, low_team, bid_team, bid)
                lowest = min(lowest, v)
                highest = max(highest, v)
        if lowest == highest or highest <= alpha:
            return highest
        if lowest >= beta:
            return lowest
        k1 = w[HANDS] | (w[HANDS + 1] << 32)
        k2 = w[HANDS + 2] | (w[HANDS + 3] << 32)
        extra = leader | ((gc0 - gc1 + 128) << 2) | ((jack_team + 1) << 11)
        slot = _slot(k1, k2, extra)
        if w[slot + 3] == gen and w[slot] == k1 and w[slot + 1] == k2 and w[slot + 2] == extra:
            lower = w[slot + 4]
            upper = w[slot + 5]
            tt_move = w[slot + 6]
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
    hand = w[HANDS + seat]
    legal = _legal_cards(w, t, n, hand, trump, first_lead)
    maximise = (seat & 1) == 0
    best = _NEG if maximise else _POS
    best_move = -1
    order = ORDERS + 32 * (4 * t + n)
    m = _order_moves(w, order, t, n, leader, seat, trump, legal, tt_move)
    guess = 0
    in_play = _in_play(w, t, n, remaining)
    for idx in range(m):
        card = w[order + idx]
        if not is_root and _equivalent_below(w, card, hand, in_play, jack):
            continue
        w[HANDS + seat] = hand & ~(1 << card)
        w[TRICKS + 4 * t + n] = card
        # The position after the card.
        nt = t
        nn = n + 1
        nl = leader
        ng0 = gc0
        ng1 = gc1
        nj = jack_team
        nf = first_lead
        nleft = left
        if n == 3:
            base = TRICKS + 4 * t
            pos = 0
            for i in range(1, 4):
                if _beats(w[base + i], w[base + pos], trump):
                    pos = i
            winner = (leader + pos) & 3
            count = w[GC + w[base]] + w[GC + w[base + 1]] + w[GC + w[base + 2]] + w[GC + w[base + 3]]
            for i in range(4):
                if w[base + i] == jack:
                    nj = winner & 1
            nt = t + 1
            nn = 0
            nl = winner
            nf = False
            nleft = left - count
            if winner & 1 == 0:
                ng0 += count
            else:
                ng1 += count
        if is_root:
            # Every root card gets an exact value: null-window tests (MTD(f)) from the last card's value,
            # the transposition table carrying bounds from one test to the next.
            lo = _NEG
            hi = _POS
            g = guess
            while lo < hi:
                bb = g + 1 if g == lo else g
                g = _search(w, nt, nn, nl, trump, ng0, ng1, nj, nf, bb - 1, bb, gen, False, nleft)
                if g < bb:
                    hi = g
                else:
                    lo = g
            v = lo
            guess = v
            w[ROOT + card] = v
        else:
            v = _search(w, nt, nn, nl, trump, ng0, ng1, nj, nf, alpha, beta, gen, False, nleft)
        w[HANDS + seat] = hand
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
        _store(w, slot, k1, k2, extra, gen, best, best_move, alpha0, beta0)
    return best
# fmt: on


class Solver:
    """A reusable workspace for the search; one per agent (not thread-safe)."""

    def __init__(self) -> None:
        self.w = np.zeros(SIZE, dtype=np.int64)
        self.w[GC : GC + 32] = GAME_COUNT
        self.gen = 0
        self._setup: tuple | None = None

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return int(self.w[NODES])

    def _run(
        self,
        hands,
        trick,
        leader,
        trump,
        game_count,
        jack_team,
        consts,
        first_lead,
        root: bool,
        reuse: bool = False,
        guess: int = 0,
    ) -> tuple[int, np.ndarray]:
        # The table's entries hold for one trump and one scoring (consts): kept only while both are.
        setup = (int(trump), tuple(int(c) for c in consts))
        if not (reuse and setup == self._setup):
            self.gen += 1
        self._setup = setup
        w = self.w
        w[HANDS : HANDS + 4] = hands
        w[TRICKS : TRICKS + len(trick)] = trick
        w[CONSTS : CONSTS + 4] = consts
        w[ROOT : ROOT + 32] = -9999
        held = w[HANDS] | w[HANDS + 1] | w[HANDS + 2] | w[HANDS + 3]
        left = sum(GAME_COUNT[c] for c in range(32) if held >> c & 1) + sum(GAME_COUNT[c] for c in trick)
        args = (w, 0, len(trick), int(leader), int(trump), int(game_count[0]), int(game_count[1]), int(jack_team), bool(first_lead))  # fmt: skip
        if root:
            best = _search(*args, _NEG, _POS, self.gen, True, left)
            return int(best), w[ROOT : ROOT + 32].copy()
        # MTD(f): null-window tests converge on the exact value; the table keeps bounds between them.
        lo, hi, g = _NEG, _POS, guess
        while lo < hi:
            bb = g + 1 if g == lo else g
            g = _search(*args, bb - 1, bb, self.gen, False, left)
            if g < bb:
                hi = g
            else:
                lo = g
        return int(lo), w[ROOT : ROOT + 32]

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
        reuse: bool = False,
        guess: int = 0,
    ) -> int:
        """The exact value for team 0 of a position at the start of a trick (cheaper than :meth:`card_values`).

        ``reuse``: keep what the last search learnt if it had the same trump and scoring (positions
        of another candidate contract on the same deal); ``guess``: a value to start the
        null-window tests from (the closer, the fewer tests)."""
        consts = (high_team, low_team, bidder_team, bid)
        return self._run(hands, [], leader, trump, game_count, -1, consts, first_lead, root=False, reuse=reuse, guess=guess)[0]

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
        consts = (high_team, low_team, bidder_team, bid)
        return self._run(hands, trick, leader, trump, game_count, jack_team, consts, first_lead, root=True)[1]
