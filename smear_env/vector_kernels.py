"""The per-step loops of the batched engine, compiled with numba, and the layout of its state.

A batch keeps each game's state in two rows: ``g[i]`` (int8: the phase, seats, bids, tricks,
who played each card, the deck) and ``m[i]`` (uint32 card masks: hands, cards played, the
trick on the table, revealed voids, the pick-up and the discards), with the named columns
below, so that a game's whole state sits in two cache lines' worth of memory. The kernels
walk the batch game by game; every rule they apply is a call into the fast core
(:mod:`smear_env.core`). They hold the common path of a step: one action per game (R6-R12),
the observation of the seat to act (the ``smear_v0`` layout) and its legal actions; the end
of a hand (scoring R13-R16) is :func:`score_hands`, the records and new deals are numpy in
``smear_env.vector``. ``tests/test_vector_parity.py`` proves the result equal to the
single-game engine at every step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import actions, cards, core, game, observer
from .actions import BID_BASE, DISCARD_BASE, MIN_BID, NUM_ACTIONS, PASS, PLAY_BASE, TRUMP_BASE
from .cards import NUM_CARDS
from .compiled import forget_stale
from .core import (
    GAME_COUNT_OF,
    bid_choices,
    bidding_over,
    discard_choices,
    game_team,
    hand_points,
    high_low_cards,
    jack_card,
    lowest_card,
    play_choices,
    settle,
    shows_void,
    team_reward,
    trump_choices,
    winning_place,
)
from .game import HAND_SIZE, TRICKS_PER_HAND, Phase
from .observer import OFFSETS

forget_stale(__file__, actions.__file__, cards.__file__, core.__file__, game.__file__, observer.__file__)

# ---------------------------------------------------------------------- the state of a game: g[i] (int8)
PHASE, TO_ACT, DEALER, LEADER, HIGH_BID, BIDDER, TRUMP, NUM_DISCARDS, NUM_TRICKS, IN_TRICK, JACK_TEAM = range(11)
BIDS = 11  # 4: each seat's bid this hand (0 pass, -1 no turn yet)
TRICKS_WON = 15  # 2: tricks won by each team
GAME_COUNT = 17  # 2: game-count in each team's won tricks
DISCARD_ORDER = 19  # 3: the bidder's discards in order
TRICK_LEADER = 22  # 6: who led each trick
TRICK_WINNER = 28  # 6: who won it
TRICK_CARDS = 34  # 6 x 4: trick t's cards in the order played at TRICK_CARDS + 4 t
OWNER = 58  # 32: who played each card this hand (-1: nobody)
DECK = 90  # 32: this hand's deal (6 cards a seat in seat order, then the kitty)
G_WIDTH = 122
# ---------------------------------------------------------------------- its card masks: m[i] (uint32)
HOLD = 0  # 4: each seat's hand
PLAYED = 4  # 4: the cards each seat has played this hand
ON_TABLE = 8  # 4: each seat's card in the trick in progress
VOIDS = 12  # 4: the suits each seat has shown it lacks (R11), as bits 0-3
PICKED = 16  # the bidder's pick-up
DISCARDED = 17  # the bidder's discards
ALL_PLAYED = 18  # every card played this hand
M_WIDTH = 19

# The observation segments (smear_env.observer.LAYOUT).
O_HAND, O_PLAYED, O_TRICK, O_PICKED_UP, O_DISCARDS = (OFFSETS[k] for k in ("hand", "played", "trick", "picked_up", "discards"))
O_PHASE, O_TO_ACT, O_DEALER, O_BIDS, O_BIDDER, O_BID = (
    OFFSETS[k] for k in ("phase", "to_act", "dealer", "bids", "bidder", "bid")
)
O_TRUMP, O_KITTY, O_LEADER, O_VOIDS, O_POINTS = (OFFSETS[k] for k in ("trump", "kitty_size", "leader", "voids", "points"))
O_TRICKS_WON, O_GAME_COUNT, O_SCORES = (OFFSETS[k] for k in ("tricks_won", "game_count", "scores"))
# The card segments fill the first _CARDS entries of a row, so encode() writes them whole and zeroes only the rest.
_CARDS = O_PHASE
assert (O_HAND, O_PLAYED, O_TRICK, O_PICKED_UP, O_DISCARDS, _CARDS) == (0, 32, 160, 288, 320, 352)
# _UNPACK[b] is byte b as 8 floats 0/1: a 32-card segment is four table rows (cheaper than bit by bit).
_UNPACK = np.array([[(b >> j) & 1 for j in range(8)] for b in range(256)], dtype=np.float32)
# The legal actions as three bit words: the small actions (pass, bids, trumps), the discards, the plays.
SMALL, DISCARD_WORD, PLAY_WORD = 0, 1, 2
_WORD_BASE = (PASS, DISCARD_BASE, PLAY_BASE)


@njit(cache=True, inline="always")
def _put_cards(row, offset, cards):
    """row[offset + c] = bit c of the card mask, for all 32 cards."""
    for q in range(4):
        b = (cards >> (8 * q)) & 0xFF
        for j in range(8):
            row[offset + 8 * q + j] = _UNPACK[b, j]


@njit(cache=True, inline="always")
def _set_bits(row, offset, bits):
    """row[offset + k] = 1 for every bit k set."""
    while bits:
        row[offset + lowest_card(bits)] = 1
        bits &= bits - 1


@njit(cache=True)
def deal(games, deal_buf, deal_pos, g, m):
    """R4: deal each game of ``games`` its next drawn deck and clear the hand's state."""
    for i in games:
        pos = deal_pos[i]
        deal_pos[i] = pos + 1
        for c in range(NUM_CARDS):
            g[i, DECK + c] = deal_buf[i, pos, c]
            g[i, OWNER + c] = -1
        for s in range(4):
            hand = 0
            for j in range(HAND_SIZE):
                hand |= 1 << g[i, DECK + HAND_SIZE * s + j]
            m[i, HOLD + s] = hand
            m[i, PLAYED + s] = 0
            m[i, ON_TABLE + s] = 0
            m[i, VOIDS + s] = 0
            g[i, BIDS + s] = -1
        m[i, PICKED] = 0
        m[i, DISCARDED] = 0
        m[i, ALL_PLAYED] = 0
        for k in (HIGH_BID, NUM_DISCARDS, NUM_TRICKS, IN_TRICK, TRICKS_WON, TRICKS_WON + 1, GAME_COUNT, GAME_COUNT + 1):
            g[i, k] = 0
        for k in (BIDDER, TRUMP, JACK_TEAM, LEADER):
            g[i, k] = -1
        g[i, PHASE] = Phase.BID
        g[i, TO_ACT] = (g[i, DEALER] + 1) & 3  # R6: left of the dealer


@njit(cache=True)
def advance(actions, g, m, kitty_size, scored, redeal):
    """Apply one action in every game; mark hands that ended (``scored``: six tricks; ``redeal``: all passed)."""
    for i in range(actions.shape[0]):
        a = actions[i]
        seat = g[i, TO_ACT]
        phase = g[i, PHASE]
        if phase == Phase.BID:
            bid = 0 if a == PASS else a - BID_BASE + MIN_BID
            g[i, BIDS + seat] = bid
            if bid > 0:  # always above the highest (R6)
                g[i, HIGH_BID] = bid
                g[i, BIDDER] = seat
            if not bidding_over(seat, g[i, DEALER], bid):
                g[i, TO_ACT] = (seat + 1) & 3
            elif g[i, BIDDER] < 0:
                redeal[i] = True  # R7: all passed
            else:
                # R8: the bidder picks up the first k kitty cards.
                bidder = g[i, BIDDER]
                up = 0
                for j in range(kitty_size):
                    up |= 1 << g[i, DECK + 4 * HAND_SIZE + j]
                m[i, PICKED] = up
                m[i, HOLD + bidder] |= up
                g[i, PHASE] = Phase.TRUMP
                g[i, TO_ACT] = bidder
                g[i, LEADER] = bidder
        elif phase == Phase.TRUMP:
            g[i, TRUMP] = a - TRUMP_BASE
            g[i, PHASE] = Phase.DISCARD if kitty_size > 0 else Phase.PLAY  # 6 + k cards to bring down to 6
        elif phase == Phase.DISCARD:
            card = a - DISCARD_BASE
            m[i, HOLD + seat] &= ~(1 << card)
            m[i, DISCARDED] |= 1 << card
            g[i, DISCARD_ORDER + g[i, NUM_DISCARDS]] = card
            g[i, NUM_DISCARDS] += 1
            if g[i, NUM_DISCARDS] == kitty_size:
                g[i, PHASE] = Phase.PLAY
        else:
            _play(g, m, i, seat, a - PLAY_BASE, scored)


@njit(cache=True, inline="always")
def _play(g, m, i, seat, card, scored):
    """R11, R12: ``seat`` plays ``card`` to game i's trick; a fourth card completes it."""
    trump = g[i, TRUMP]
    t = g[i, NUM_TRICKS]
    place = g[i, IN_TRICK]
    base = TRICK_CARDS + 4 * t
    m[i, HOLD + seat] &= ~(1 << card)
    if place == 0:
        g[i, LEADER] = seat
    elif shows_void(g[i, base], card, trump):
        m[i, VOIDS + seat] |= 1 << (g[i, base] >> 3)
    g[i, base + place] = card
    m[i, PLAYED + seat] |= 1 << card
    m[i, ALL_PLAYED] |= 1 << card
    m[i, ON_TABLE + seat] |= 1 << card
    g[i, OWNER + card] = seat
    g[i, IN_TRICK] = place + 1
    g[i, TO_ACT] = (seat + 1) & 3
    if place < 3:
        return
    winner = (g[i, LEADER] + winning_place(g[i], base, 4, trump)[1]) & 3
    team = winner & 1
    count = 0
    for j in range(4):
        count += GAME_COUNT_OF[g[i, base + j]]
        if g[i, base + j] == jack_card(trump):
            g[i, JACK_TEAM] = team
    g[i, TRICK_LEADER + t] = g[i, LEADER]
    g[i, TRICK_WINNER + t] = winner
    g[i, TRICKS_WON + team] += 1
    g[i, GAME_COUNT + team] += count
    g[i, NUM_TRICKS] = t + 1
    g[i, IN_TRICK] = 0
    for s in range(4):
        m[i, ON_TABLE + s] = 0
    g[i, TO_ACT] = winner
    g[i, LEADER] = winner
    if t + 1 == TRICKS_PER_HAND:
        scored[i] = True


@njit(cache=True, inline="always")
def _encode_row(row, g, m, i, me, scores, kitty_size, target, high_low_in_play):
    """The observation of seat ``me`` in game i (the smear_v0 layout, smear_env.observer)."""
    mine = me & 1
    phase = g[i, PHASE]
    trump = g[i, TRUMP]
    bidder = g[i, BIDDER]
    # Read before the row is written (the compiler cannot tell the row from the state arrays):
    # the High and Low so far, from the trumps played, and who played them.
    high, low = high_low_cards(np.int64(m[i, ALL_PLAYED]), trump, high_low_in_play) if trump >= 0 else (-1, -1)
    high_team = g[i, OWNER + high] & 1 if high >= 0 else -1
    low_team = g[i, OWNER + low] & 1 if low >= 0 else -1
    is_bidder = bidder == me and phase != Phase.BID
    _put_cards(row, O_HAND, m[i, HOLD + me])
    for r in range(4):
        s = (me + r) & 3
        _put_cards(row, O_PLAYED + 32 * r, m[i, PLAYED + s])
        _put_cards(row, O_TRICK + 32 * r, m[i, ON_TABLE + s])
    _put_cards(row, O_PICKED_UP, m[i, PICKED] if is_bidder else 0)
    _put_cards(row, O_DISCARDS, m[i, DISCARDED] if is_bidder else 0)
    for c in range(_CARDS, row.shape[0]):
        row[c] = 0.0
    for r in range(4):
        s = (me + r) & 3
        bid = g[i, BIDS + s]
        if bid >= 0:
            row[O_BIDS + 4 * r + (0 if bid == 0 else bid - 1)] = 1.0
        _set_bits(row, O_VOIDS + 4 * r, np.int64(m[i, VOIDS + s]))
    if phase < Phase.GAME_OVER:
        row[O_PHASE + phase] = 1.0
    row[O_TO_ACT + ((g[i, TO_ACT] - me) & 3)] = 1.0
    row[O_DEALER + ((g[i, DEALER] - me) & 3)] = 1.0
    if bidder >= 0:
        row[O_BIDDER + ((bidder - me) & 3)] = 1.0
        row[O_BID + g[i, HIGH_BID] - MIN_BID] = 1.0
    row[O_KITTY + kitty_size] = 1.0
    if phase == Phase.PLAY:
        row[O_LEADER + ((g[i, LEADER] - me) & 3)] = 1.0
    if trump >= 0:
        row[O_TRUMP + trump] = 1.0
    if high_team >= 0:
        row[O_POINTS + (1 if high_team != mine else 0)] = 1.0
    if low_team >= 0:
        row[O_POINTS + 2 + (1 if low_team != mine else 0)] = 1.0
    if g[i, JACK_TEAM] >= 0:
        row[O_POINTS + 4 + (1 if g[i, JACK_TEAM] != mine else 0)] = 1.0
    row[O_TRICKS_WON] = g[i, TRICKS_WON + mine] / TRICKS_PER_HAND
    row[O_TRICKS_WON + 1] = g[i, TRICKS_WON + 1 - mine] / TRICKS_PER_HAND
    row[O_GAME_COUNT] = g[i, GAME_COUNT + mine] / 80
    row[O_GAME_COUNT + 1] = g[i, GAME_COUNT + 1 - mine] / 80
    row[O_SCORES] = min(1.0, max(-1.0, scores[i, mine] / target))
    row[O_SCORES + 1] = min(1.0, max(-1.0, scores[i, 1 - mine] / target))


@njit(cache=True)
def encode(out, me, g, m, scores, kitty_size, target, high_low_in_play):
    """The observation of seat ``me[i]`` in every game i, written into ``out`` ([n, OBS_DIM] float32)."""
    for i in range(out.shape[0]):
        _encode_row(out[i], g, m, i, me[i], scores, kitty_size, target, high_low_in_play)


@njit(cache=True)
def encode_games(out, games, me, g, m, scores, kitty_size, target, high_low_in_play):
    """The observation of seat ``me[j]`` in game ``games[j]``, written into row j of ``out``."""
    for j in range(out.shape[0]):
        _encode_row(out[j], g, m, games[j], me[j], scores, kitty_size, target, high_low_in_play)


@njit(cache=True)
def legal(mask, words, g, m, stick_the_dealer):
    """The legal actions of the seat to act: ``mask`` [n, 72] int8 (given all zero) and ``words``
    [n, 3] uint32: the small actions (pass, bids, trumps, as action ids 0-7), the discards and the
    plays (card masks)."""
    for i in range(mask.shape[0]):
        words[i, SMALL] = 0
        words[i, DISCARD_WORD] = 0
        words[i, PLAY_WORD] = 0
        phase = g[i, PHASE]
        me = g[i, TO_ACT]
        hand = np.int64(m[i, HOLD + me])
        trump = g[i, TRUMP]
        if phase == Phase.BID:
            stuck = stick_the_dealer and me == g[i, DEALER] and g[i, HIGH_BID] == 0
            words[i, SMALL] = bid_choices(g[i, HIGH_BID], stuck)
        elif phase == Phase.TRUMP:
            words[i, SMALL] = trump_choices(hand) << TRUMP_BASE
        elif phase == Phase.DISCARD:
            words[i, DISCARD_WORD] = discard_choices(hand, trump)
        elif phase == Phase.PLAY:
            t = g[i, NUM_TRICKS]
            led = g[i, TRICK_CARDS + 4 * t] if g[i, IN_TRICK] else -1
            words[i, PLAY_WORD] = play_choices(hand, led, trump, t == 0)
        row = mask[i]
        for w in range(3):
            _set_bits(row, _WORD_BASE[w], np.int64(words[i, w]))


@njit(cache=True)
def illegal(actions, words):
    """For each game, whether ``actions[i]`` is not a legal action of the legal words (see :func:`legal`)."""
    bad = np.zeros(actions.shape[0], dtype=np.bool_)
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= NUM_ACTIONS:
            bad[i] = True
        else:
            w = SMALL if a < DISCARD_BASE else (DISCARD_WORD if a < PLAY_BASE else PLAY_WORD)
            bad[i] = not (np.int64(words[i, w]) >> (a - _WORD_BASE[w])) & 1
    return bad


@njit(cache=True)
def sample(words, uniforms, out):
    """A uniformly random legal action per game: the k-th set bit of the legal words."""
    for i in range(words.shape[0]):
        total = 0
        for w in range(3):
            bits = np.int64(words[i, w])
            while bits:
                bits &= bits - 1
                total += 1
        k = int(uniforms[i] * total)
        for w in range(3):
            bits = np.int64(words[i, w])
            while bits:
                if k == 0:
                    out[i] = _WORD_BASE[w] + lowest_card(bits)
                    break
                k -= 1
                bits &= bits - 1
            if bits:
                break


@njit(cache=True)
def score_hands(h, g, m, scores, defender_cap, target, win_only_on_made_bid, high_low_in_play, reward_mode, rewards,
                ep_points, ep_bids, ep_made, out_winner, out_points, out_game_count, out_hand_points, out_made, out_before):  # fmt: skip
    """Score the finished hands of games ``h`` (R13-R15 and the variants) and hand out the rewards
    (``reward_mode``: the index of ``reward=`` in ``smear_env.rules.REWARDS``)."""
    for j in range(h.shape[0]):
        i = h[j]
        trump = g[i, TRUMP]
        out_before[j, 0] = scores[i, 0]
        out_before[j, 1] = scores[i, 1]
        high, low = high_low_cards(np.int64(m[i, ALL_PLAYED]), trump, high_low_in_play)
        bid_team = g[i, BIDDER] & 1
        discarded = 0
        for d in range(g[i, NUM_DISCARDS]):
            discarded += GAME_COUNT_OF[g[i, DISCARD_ORDER + d]]  # R13d: the bidder's discards count for it
        out_game_count[j, 0] = g[i, GAME_COUNT] + (discarded if bid_team == 0 else 0)
        out_game_count[j, 1] = g[i, GAME_COUNT + 1] + (discarded if bid_team == 1 else 0)
        out_points[j, 0] = -1 if high < 0 else g[i, OWNER + high] & 1
        out_points[j, 1] = -1 if low < 0 else g[i, OWNER + low] & 1
        out_points[j, 2] = g[i, JACK_TEAM]
        out_points[j, 3] = game_team(out_game_count[j, 0], out_game_count[j, 1])
        taken0, taken1 = hand_points(out_points[j, 0], out_points[j, 1], out_points[j, 2], out_points[j, 3])
        for k in range(4):
            if out_points[j, k] >= 0:
                ep_points[i, out_points[j, k], k] += 1
        out_hand_points[j, 0] = taken0
        out_hand_points[j, 1] = taken1
        bid = g[i, HIGH_BID]
        new0, new1, made, winner = settle(
            scores[i, 0], scores[i, 1], bid_team, bid, taken0, taken1, defender_cap, target, win_only_on_made_bid
        )
        scores[i, 0] = new0
        scores[i, 1] = new1
        out_made[j] = made
        out_winner[j] = winner
        ep_bids[i, bid_team, bid - MIN_BID] += 1
        if made:
            ep_made[i, bid_team, bid - MIN_BID] += 1
        change0 = new0 - out_before[j, 0]
        change1 = new1 - out_before[j, 1]
        outcome = 0 if winner < 0 else (1 if winner == 0 else -1)
        for s in range(4):
            if s & 1 == 0:
                rewards[i, s] = team_reward(reward_mode, change0, change1, outcome)
            else:
                rewards[i, s] = team_reward(reward_mode, change1, change0, -outcome)
