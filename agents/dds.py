"""A double-dummy solver for the trick play of one Smear hand (open cards), compiled with numba.

Every card still held is played before the hand ends, so High and Low (R13a/b, and
R13v) are already decided by who holds the cards; play decides only the Jack (R13c:
who wins the trick holding it) and the Game (R13d: the game-count split). The solver
returns the best final value for team 0 (team 0 maximises, team 1 minimises) where the
value of a finished hand is team 0's score change minus team 1's as the engine settles
it (R14: a set bidder loses its bid; R15v-b: the defenders' cap, given the scores); with
``bid = 0`` it is simply the difference in points taken. Every rule it applies (legal
plays, the trick's winner, the points, the settlement) is a call into the fast core,
``smear_env.core``; ``tests/test_pimc.py`` plays its principal lines through the engine.

Alpha-beta over the plays, with a transposition table at trick boundaries keyed by
the four hands, the leader, the game-count difference so far and the Jack's owner,
and equivalent cards (adjacent ranks in one hand with equal game-count, no card in
play between them, the trick on the table included) searched once. At each trick
boundary the search stops if the values still possible cannot leave the window: who
may yet get the Jack (it counts as decided once its holder's team holds every trump
still out above it) and who may yet get Game (a team's trumps above all the other
team's trumps win their tricks, so their count is already that team's). Leads are
tried in the order: the table's best card, the last lead that cut off in this trick,
then trumps; the last trick, one card each, is scored without a search.
Exact values come from null-window tests (MTD(f)): of the position for :meth:`Solver.value`,
of each root card for :meth:`Solver.card_values` (equal root cards are searched once).
The whole search state lives in one int64 workspace array (hands, tricks, move lists,
tables), so a recursive call passes one array; card sets are bit masks walked with
bit tricks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from smear_env.cards import GAME_COUNT, JACK
from smear_env.core import (
    HIGHEST_IN_BYTE,
    SUIT,
    beats,
    hand_points,
    jack_card,
    lowest_card,
    play_choices,
    settle,
    suit_cards,
    winning_place,
)

TT_BITS = 16
_ABOVE_JACK = SUIT & ~((2 << JACK) - 1)  # the ranks above the jack (Q, K, A) in a suit's byte
# The game-count of the ranks in a byte of one suit.
_BYTE_COUNT = np.array([sum(GAME_COUNT[r] for r in range(8) if b >> r & 1) for b in range(256)], dtype=np.int64)
# Followers not winning the trick order their other cards by game-count, then rank.
_COUNT_RANK = np.array([GAME_COUNT[c] * 8 + (c & 7) for c in range(32)], dtype=np.int64)
_NEG, _POS = -1000, 1000
# Workspace layout (int64 offsets).
HANDS = 0  # 4 hands as card bit masks
TRICKS = 4  # 8 tricks x 4 cards, card of trick t, position n at TRICKS + 4 t + n
CONSTS = 36  # high team, low team, bidder team, bid, team 0's score, team 1's score, defender cap (-1: none)
GC = 44  # game-count of each card
ROOT = 76  # value of each root card (-9999: not legal)
ORDERS = 108  # move lists, 32 per depth 4 t + n
NODES = ORDERS + 33 * 32  # positions searched
SCORES = NODES + 8  # the final value by Jack team and Game team (-1, 0, 1 each): 3 x 3
KILLERS = SCORES + 16  # per trick: the last lead that caused a cut-off (-1: none)
RANGES = KILLERS + 8  # lowest and highest value by Jack (nobody, team 0, team 1, open) x who may get Game (3 bits)
TT = RANGES + 64  # the table: TT_FIELDS per slot
TT_FIELDS = 4  # key 1, key 2, extra | generation << 16, lower bound | upper bound << 12 | best card << 24 (each offset)
SIZE = TT + TT_FIELDS * (1 << TT_BITS)


@njit(cache=False)
def _score(w, game_team, jack_team):
    """R13, R14: team 0's score change minus team 1's for a hand whose Jack and Game went to these
    teams (-1: nobody), High and Low to the teams in the constants, the bid settled as the engine does."""
    taken0, taken1 = hand_points(w[CONSTS], w[CONSTS + 1], jack_team, game_team)
    score0, score1 = w[CONSTS + 4], w[CONSTS + 5]
    new0, new1, _, _ = settle(score0, score1, w[CONSTS + 2], w[CONSTS + 3], taken0, taken1, w[CONSTS + 6], 1 << 30, False)
    return (new0 - score0) - (new1 - score1)


@njit("int64(int64[::1], int64, int64, int64, int64, int64)", cache=False)
def _last_trick(w, leader, trump, gc0, gc1, jack_team):
    """The value for team 0 once each seat holds one card: the last trick plays itself."""
    best = -1
    pos = 0
    count = 0
    has_jack = False
    for i in range(4):
        card = lowest_card(w[HANDS + ((leader + i) & 3)])
        count += w[GC + card]
        has_jack |= card == jack_card(trump)
        if i == 0 or beats(card, best, trump):
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
    return w[SCORES + 3 * jack_team + game + 4]


@njit(cache=False, inline="always")
def _put_low_first(w, order, m, cards):
    """Append the cards of mask ``cards`` to the move list at ``w[order + m]``, lowest first."""
    while cards:
        card = lowest_card(cards)
        cards ^= 1 << card
        w[order + m] = card
        m += 1
    return m


@njit(cache=False, inline="always")
def _order_moves(w, order, t, n, leader, seat, trump, legal, tt_move):
    """Write the legal cards to ``w[order:]`` in the order to search them; returns how many."""
    # Move ordering: a leader tries the best card found here before, then the last lead that
    # caused a cut-off in this trick, then trumps and the other suits high to low; a follower
    # the cheapest card that wins the trick so far (the led suit, then trumps), then the
    # others: count cards first if its partner is winning, last if not.
    m = 0
    if n == 0:
        if tt_move >= 0:
            w[order] = tt_move
            m = 1
            legal &= ~(1 << tt_move)
        killer = w[KILLERS + t]
        if killer >= 0 and (legal >> killer) & 1:
            w[order + m] = killer
            m += 1
            legal &= ~(1 << killer)
        for k in range(4):
            suit = (trump + k) & 3
            bits = (legal >> (8 * suit)) & SUIT
            while bits:
                rank = HIGHEST_IN_BYTE[bits]
                bits ^= 1 << rank
                w[order + m] = suit * 8 + rank
                m += 1
        return m
    base = TRICKS + 4 * t
    winning, win_pos = winning_place(w, base, n, trump)
    partner_wins = ((leader + win_pos) & 1) == (seat & 1)
    led_suit = w[base] >> 3
    trumps = suit_cards(trump)
    above = -(2 << winning)  # the cards above the winning one, in its suit or a higher suit
    if winning >> 3 == led_suit:
        first = legal & suit_cards(led_suit) & above
        second = legal & trumps if led_suit != trump else 0
    else:
        first = legal & trumps & above
        second = 0
    rest = legal & ~(first | second)
    # Winners, cheapest first: the led suit, then trumps.
    m = _put_low_first(w, order, m, first)
    m = _put_low_first(w, order, m, second)
    # Then the others: count cards first when the partner is winning, last when not.
    start = m
    sign = 1 if partner_wins else -1
    while rest:
        card = lowest_card(rest)
        rest ^= 1 << card
        key = sign * _COUNT_RANK[card]
        j = m
        while j > start and sign * _COUNT_RANK[w[order + j - 1]] < key:
            w[order + j] = w[order + j - 1]
            j -= 1
        w[order + j] = card
        m += 1
    return m


@njit(cache=False, inline="always")
def _legal_cards(w, t, n, hand, trump, first_lead):
    """R9, R11: the cards of ``hand`` that may be played now (the fast core's rule)."""
    return play_choices(hand, w[TRICKS + 4 * t] if n else -1, trump, first_lead)


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
    suit = card & ~7
    below = (in_play >> suit) & ((1 << (card & 7)) - 1)
    if not below:
        return False
    lower = suit + HIGHEST_IN_BYTE[below]
    return (hand >> lower) & 1 == 1 and w[GC + lower] == w[GC + card] and card != jack and lower != jack


@njit(cache=False, inline="always")
def _value_range(w, held, in_play, trump, gc0, gc1, left, jack_team):
    """The lowest and highest final values still possible, from the table :func:`_solve` fills:
    who may get the Jack (``in_play``: held or on the table), who may get Game (or a tie), with
    ``left`` game-count still to take."""
    jack = jack_card(trump)
    jack_code = jack_team + 1
    if (in_play >> jack) & 1:
        jack_code = 3
        if (held >> jack) & 1:
            # The Jack goes to its holder's team if that team holds every trump still out above it.
            holder = 0 if (w[HANDS] | w[HANDS + 2]) >> jack & 1 else 1
            above = in_play & (_ABOVE_JACK << (8 * trump))
            if above & (w[HANDS + holder] | w[HANDS + holder + 2]) == above:
                jack_code = holder + 1
    if held == in_play:
        # A team's trumps above every trump of the other team win their tricks: their count is its.
        t0 = ((w[HANDS] | w[HANDS + 2]) >> (8 * trump)) & SUIT
        t1 = ((w[HANDS + 1] | w[HANDS + 3]) >> (8 * trump)) & SUIT
        sure0 = _BYTE_COUNT[t0 & ~((2 << HIGHEST_IN_BYTE[t1]) - 1)] if t1 else _BYTE_COUNT[t0]
        sure1 = _BYTE_COUNT[t1 & ~((2 << HIGHEST_IN_BYTE[t0]) - 1)] if t0 else _BYTE_COUNT[t1]
        gc0 += sure0
        gc1 += sure1
        left -= sure0 + sure1
    d = gc0 - gc1
    game = 0  # bit 0: team 0 may get Game, bit 1: team 1 may, bit 2: a tie may come
    if d + left > 0:
        game |= 1
    if left - d > 0:
        game |= 2
    if abs(d) <= left and (left - abs(d)) % 2 == 0:
        game |= 4
    i = RANGES + 2 * (8 * jack_code + game)
    return w[i], w[i + 1]


@njit(cache=False, inline="always")
def _slot(k1, k2, extra):
    """The transposition-table slot of a position."""
    h = (k1 * -7046029254386353131) ^ (k2 * -4417276706812531889) ^ (extra * 1609587929392839161)
    return TT + TT_FIELDS * ((h >> (64 - TT_BITS)) & ((1 << TT_BITS) - 1))


@njit(cache=False, inline="always")
def _store(w, slot, k1, k2, meta, best, best_move, alpha0, beta0):
    """Keep what a search of the window (alpha0, beta0) learnt: a bound, or the exact value."""
    lower = _NEG
    upper = _POS
    if w[slot + 2] == meta and w[slot] == k1 and w[slot + 1] == k2:
        data = w[slot + 3]
        lower = (data & 0xFFF) - 2048
        upper = ((data >> 12) & 0xFFF) - 2048
    else:
        w[slot] = k1
        w[slot + 1] = k2
        w[slot + 2] = meta
    if best <= alpha0:
        upper = min(upper, best)
    elif best >= beta0:
        lower = max(lower, best)
    else:
        lower = best
        upper = best
    w[slot + 3] = (lower + 2048) | ((upper + 2048) << 12) | ((best_move + 1) << 24)


@njit(cache=False, inline="always")
def _after(w, t, n, leader, trump, gc0, gc1, jack_team, first_lead, left):
    """The position once the card at ``n`` of trick ``t`` is on the table: trick, place in it,
    leader, game-counts, the Jack's team, first lead, game-count left."""
    if n < 3:
        return t, n + 1, leader, gc0, gc1, jack_team, first_lead, left
    base = TRICKS + 4 * t
    winner = (leader + winning_place(w, base, 4, trump)[1]) & 3
    count = w[GC + w[base]] + w[GC + w[base + 1]] + w[GC + w[base + 2]] + w[GC + w[base + 3]]
    for i in range(4):
        if w[base + i] == jack_card(trump):
            jack_team = winner & 1
    if winner & 1 == 0:
        gc0 += count
    else:
        gc1 += count
    return t + 1, 0, winner, gc0, gc1, jack_team, False, left - count


# Explicit signatures compile once at import (a few seconds); numba cannot cache this recursive search.
@njit("int64(int64[::1], int64, int64, int64, int64, int64, int64, int64, boolean, int64, int64, int64, int64)", cache=False)
def _search(w, t, n, leader, trump, gc0, gc1, jack_team, first_lead, alpha, beta, gen, left):
    """The value for team 0 of the position, fail-soft: a bound if outside (alpha, beta)."""
    w[NODES] += 1
    if n == 0 and not first_lead:
        h = w[HANDS + leader]
        if h != 0 and h & (h - 1) == 0:
            return _last_trick(w, leader, trump, gc0, gc1, jack_team)
    remaining = w[HANDS] | w[HANDS + 1] | w[HANDS + 2] | w[HANDS + 3]
    jack = jack_card(trump)
    slot = -1
    k1 = 0
    k2 = 0
    extra = 0
    tt_move = -1
    alpha0 = alpha
    beta0 = beta
    if n == 0:
        lowest, highest = _value_range(w, remaining, remaining, trump, gc0, gc1, left, jack_team)
        if lowest == highest or highest <= alpha:
            return highest
        if lowest >= beta:
            return lowest
        k1 = w[HANDS] | (w[HANDS + 1] << 32)
        k2 = w[HANDS + 2] | (w[HANDS + 3] << 32)
        extra = leader | ((gc0 - gc1 + 128) << 2) | ((jack_team + 1) << 11)
        slot = _slot(k1, k2, extra)
        extra |= gen << 16
        if w[slot + 2] == extra and w[slot] == k1 and w[slot + 1] == k2:
            data = w[slot + 3]
            lower = (data & 0xFFF) - 2048
            upper = ((data >> 12) & 0xFFF) - 2048
            tt_move = (data >> 24) - 1
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
    in_play = _in_play(w, t, n, remaining)
    for idx in range(m):
        card = w[order + idx]
        if _equivalent_below(w, card, hand, in_play, jack):
            continue
        w[HANDS + seat] = hand & ~(1 << card)
        w[TRICKS + 4 * t + n] = card
        nt, nn, nl, ng0, ng1, nj, nf, nleft = _after(w, t, n, leader, trump, gc0, gc1, jack_team, first_lead, left)
        h = w[HANDS + nl]
        if nn == 0 and h != 0 and h & (h - 1) == 0:
            v = _last_trick(w, nl, trump, ng0, ng1, nj)
        else:
            v = _search(w, nt, nn, nl, trump, ng0, ng1, nj, nf, alpha, beta, gen, nleft)
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
        if alpha >= beta:
            if n == 0:
                w[KILLERS + t] = card
            break
    if slot >= 0:
        _store(w, slot, k1, k2, extra, best, best_move, alpha0, beta0)
    return best


@njit(cache=False)
def _mtd(w, t, n, leader, trump, gc0, gc1, jack_team, first_lead, gen, left, lo, hi, guess):
    """The exact value of a position known to lie in [lo, hi], by null-window tests (MTD(f))
    from ``guess``, the table carrying bounds from one test to the next."""
    g = min(max(guess, lo), hi)
    while lo < hi:
        bb = g + 1 if g == lo else g
        g = _search(w, t, n, leader, trump, gc0, gc1, jack_team, first_lead, bb - 1, bb, gen, left)
        if g < bb:
            hi = g
        else:
            lo = g
    return lo


@njit("int64(int64[::1], int64, int64, int64, int64, int64, int64, boolean, int64, boolean, int64)", cache=False, nogil=True)
def _solve(w, n, leader, trump, gc0, gc1, jack_team, first_lead, gen, root, guess):
    """Fill the scoring tables and return the position's exact value; with ``root``, also every
    legal card's exact value in ``w[ROOT + card]``, each card's tests starting from the last
    card's value."""
    for jt in range(-1, 2):
        for game in range(-1, 2):
            w[SCORES + 3 * jt + game + 4] = _score(w, game, jt)
    for jack_code in range(4):
        for game in range(8):
            lowest = _POS
            highest = _NEG
            for jt in range(-1, 2):
                for gt in range(-1, 2):
                    bit = 4 if gt == -1 else 1 << gt
                    if (jack_code == 3 and jt >= 0 or jt == jack_code - 1) and game & bit:
                        lowest = min(lowest, w[SCORES + 3 * jt + gt + 4])
                        highest = max(highest, w[SCORES + 3 * jt + gt + 4])
            w[RANGES + 2 * (8 * jack_code + game)] = lowest
            w[RANGES + 2 * (8 * jack_code + game) + 1] = highest
    held = w[HANDS] | w[HANDS + 1] | w[HANDS + 2] | w[HANDS + 3]
    in_play = _in_play(w, 0, n, held)
    left = 0
    for c in range(32):
        left += w[GC + c] * ((in_play >> c) & 1)
    lo, hi = _value_range(w, held, in_play, trump, gc0, gc1, left, jack_team)
    if not root:
        return _mtd(w, 0, n, leader, trump, gc0, gc1, jack_team, first_lead, gen, left, lo, hi, guess)
    seat = (leader + n) & 3
    hand = w[HANDS + seat]
    legal = _legal_cards(w, 0, n, hand, trump, first_lead)
    for c in range(32):
        w[ROOT + c] = -9999
    best = _NEG if seat & 1 == 0 else _POS
    for card in range(32):
        if not (legal >> card) & 1:
            continue
        suit = card & ~7
        if _equivalent_below(w, card, hand, in_play, jack_card(trump)):
            # Searched once: the next lower card in play is this hand's, and alike.
            v = w[ROOT + suit + HIGHEST_IN_BYTE[(in_play >> suit) & ((1 << (card & 7)) - 1)]]
        else:
            w[HANDS + seat] = hand & ~(1 << card)
            w[TRICKS + n] = card
            nt, nn, nl, ng0, ng1, nj, nf, nleft = _after(w, 0, n, leader, trump, gc0, gc1, jack_team, first_lead, left)
            v = _mtd(w, nt, nn, nl, trump, ng0, ng1, nj, nf, gen, nleft, lo, hi, guess)
            w[HANDS + seat] = hand
            guess = v
        w[ROOT + card] = v
        best = max(best, v) if seat & 1 == 0 else min(best, v)
    return best


class Solver:
    """A reusable workspace for the search; one per agent (not thread-safe)."""

    def __init__(self) -> None:
        self.w = np.zeros(SIZE, dtype=np.int64)
        self.w[GC : GC + 32] = GAME_COUNT
        self.w[KILLERS : KILLERS + 8] = -1
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
    ) -> int:
        # The table's entries hold for one trump and one scoring (consts): kept only while both are.
        setup = (int(trump), tuple(int(c) for c in consts))
        if not (reuse and setup == self._setup):
            self.gen += 1
        self._setup = setup
        w = self.w
        for i in range(4):
            w[HANDS + i] = hands[i]
        for i, card in enumerate(trick):
            w[TRICKS + i] = card
        for i, c in enumerate(consts):
            w[CONSTS + i] = c
        return _solve(w, len(trick), leader, trump, game_count[0], game_count[1], jack_team, first_lead, self.gen, root, guess)

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
        scores: tuple[int, int] = (0, 0),
        defender_cap: int = -1,
    ) -> int:
        """The exact value for team 0 of a position at the start of a trick (cheaper than :meth:`card_values`).

        ``reuse``: keep what the last search learnt if it had the same trump and scoring (positions
        of another candidate contract on the same deal); ``guess``: a value to start the
        null-window tests from (the closer, the fewer tests); ``scores`` and ``defender_cap``
        (R15v-b, -1: none) settle the hand as the engine does."""
        consts = (high_team, low_team, bidder_team, bid, scores[0], scores[1], defender_cap)
        return self._run(hands, [], leader, trump, game_count, -1, consts, first_lead, root=False, reuse=reuse, guess=guess)

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
        scores: tuple[int, int] = (0, 0),
        defender_cap: int = -1,
    ) -> np.ndarray:
        """The exact final value for team 0 of each legal card of the player to act (-9999: not legal).

        ``hands`` are the four seats' remaining cards as 32-bit masks; ``trick`` the cards
        already played to the trick in progress, led by ``leader``; ``game_count`` what
        each team has won so far (the bidder's discards included); ``jack_team``,
        ``high_team``, ``low_team`` -1 for nobody. ``bid`` 0 scores points taken, unset. The value
        is the change of team 0's score minus team 1's, from ``scores`` with the defenders capped
        at ``defender_cap`` (R15v-b; -1: no cap), as the engine settles the hand (R14).
        """
        consts = (high_team, low_team, bidder_team, bid, scores[0], scores[1], defender_cap)
        self._run(hands, trick, leader, trump, game_count, jack_team, consts, first_lead, root=True)
        return self.w[ROOT : ROOT + 32].copy()
