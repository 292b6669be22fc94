"""The per-step loops of the batched engine, compiled with numba.

Each kernel walks the batch once, game by game, over the same arrays that
``SmearVectorEnv`` keeps (hands as 32-bit masks). They hold the common path of a
step: one action per game (R6-R12), the observation of the seat to act (the
``smear_v0`` layout) and its legal actions. The rare end of a hand (scoring R13-R16,
records, new deals) stays in numpy in ``smear_env.vector``. ``tests/test_vector_parity.py``
proves the result equal to the single-game engine at every step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import GAME_COUNT
from .core import team_reward
from .observer import OFFSETS

BID, TRUMP, DISCARD, PLAY = 0, 1, 2, 3
_GC = np.array(GAME_COUNT, dtype=np.int64)
# Observation offsets, in LAYOUT order (see smear_env.observer).
_O = np.array(
    [
        OFFSETS[name]
        for name in (
            "hand", "played", "trick", "picked_up", "discards", "phase", "to_act", "dealer", "bids", "bidder",
            "bid", "trump", "kitty_size", "leader", "voids", "points", "tricks_won",
        )
    ],
    dtype=np.int64,
)  # fmt: skip


_DEBRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                      31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], dtype=np.int64)  # fmt: skip


@njit(cache=True, inline="always")
def _lowest(x):
    """The index of the lowest set bit of a nonzero 32-bit mask (de Bruijn multiplication)."""
    low = np.uint64(x) & (np.uint64(0) - np.uint64(x)) & np.uint64(0xFFFFFFFF)
    return _DEBRUIJN[((low * np.uint64(0x077CB531)) & np.uint64(0xFFFFFFFF)) >> np.uint64(27)]


# _UNPACK[b] is byte b as 8 floats 0/1: a 32-card segment is four table rows (cheaper than bit by bit).
_UNPACK = np.array([[(b >> j) & 1 for j in range(8)] for b in range(256)], dtype=np.float32)
# The card segments (hand, played, trick, picked_up, discards) fill the first _CARDS entries
# of a row, so encode() writes them whole and zeroes only the rest.
_CARDS = OFFSETS["phase"]
assert [OFFSETS[n] for n in ("hand", "played", "trick", "picked_up", "discards")] == [0, 32, 160, 288, 320] and _CARDS == 352


@njit(cache=True, inline="always")
def _put_cards(row, offset, x):
    """row[offset + c] = bit c of the 32-bit mask x, for all c in 0..31."""
    x = np.uint32(x)
    for q in range(4):
        b = (x >> np.uint32(8 * q)) & np.uint32(0xFF)
        for j in range(8):
            row[offset + 8 * q + j] = _UNPACK[b, j]


@njit(cache=True, inline="always")
def _set_bits(row, offset, x):
    """row[offset + c] = 1 for every bit c set in the mask x."""
    x = np.uint64(x)
    while x:
        row[offset + _lowest(x)] = 1
        x &= x - np.uint64(1)


@njit(cache=True, inline="always")
def _high_low(owner, i, trump, high_low_in_play):
    """R13a/b (R13v): the seats that played the High and the Low card of game i so far, -1 if none."""
    if not high_low_in_play:
        return owner[i, trump * 8 + 7], owner[i, trump * 8]
    high = -1
    low = -1
    for r in range(8):
        if owner[i, trump * 8 + r] >= 0:
            if low < 0:
                low = owner[i, trump * 8 + r]
            high = owner[i, trump * 8 + r]
    return high, low


@njit(cache=True)
def advance(actions, phase, to_act, dealer, leader, hold, bids, high_bid, bidder, trump, deck, kitty_size, picked,
            discard_bits, discard_order, num_discards, played, trick_bits, owner, trick_cards, trick_leader,
            trick_winner, num_tricks, num_in_trick, tricks_won, game_count, jack_team, voids, scored, redeal):  # fmt: skip
    """Apply one action in every game; mark hands that ended (``scored``: six tricks; ``redeal``: all passed)."""
    n = actions.shape[0]
    for i in range(n):
        a = actions[i]
        seat = to_act[i]
        p = phase[i]
        if p == BID:
            bid = 0 if a == 0 else a + 1
            bids[i, seat] = bid
            if bid > 0:
                high_bid[i] = bid
                bidder[i] = seat
            # R7: bidding ends after the dealer's turn or at once on a bid of 4.
            if seat != dealer[i] and bid != 4:
                to_act[i] = (seat + 1) & 3
            elif bidder[i] < 0:
                redeal[i] = True
            else:
                # R8: the bidder picks up the first k kitty cards.
                b = bidder[i]
                up = np.uint32(0)
                for j in range(kitty_size):
                    up |= np.uint32(1) << np.uint32(deck[i, 24 + j])
                picked[i] = up
                hold[i, b] |= up
                phase[i] = TRUMP
                to_act[i] = b
                leader[i] = b
        elif p == TRUMP:
            trump[i] = a - 4
            phase[i] = DISCARD if kitty_size > 0 else PLAY
        elif p == DISCARD:
            card = a - 8
            bit = np.uint32(1) << np.uint32(card)
            hold[i, seat] &= ~bit
            discard_order[i, num_discards[i]] = card
            discard_bits[i] |= bit
            num_discards[i] += 1
            if num_discards[i] == kitty_size:
                phase[i] = PLAY
        else:
            card = a - 40
            bit = np.uint32(1) << np.uint32(card)
            hold[i, seat] &= ~bit
            t = num_tricks[i]
            pos = num_in_trick[i]
            if pos == 0:
                leader[i] = seat
            else:
                led = trick_cards[i, t, 0] >> 3
                suit = card >> 3
                if suit != led and suit != trump[i]:
                    # R11: neither the suit led nor a trump: no card of the suit led.
                    voids[i, seat] |= np.uint32(1) << np.uint32(led)
            trick_cards[i, t, pos] = card
            played[i, seat] |= bit
            trick_bits[i, seat] |= bit
            owner[i, card] = seat
            num_in_trick[i] = pos + 1
            to_act[i] = (seat + 1) & 3
            if pos == 3:
                # R12: the highest trump, else the highest card of the suit led.
                tr = trump[i]
                led = trick_cards[i, t, 0] >> 3
                best = 0
                best_key = -1
                count = 0
                has_jack = False
                for j in range(4):
                    c = trick_cards[i, t, j]
                    key = (16 if c >> 3 == tr else 0) + (8 if c >> 3 == led else 0) + (c & 7)
                    if key > best_key:
                        best_key = key
                        best = j
                    count += _GC[c]
                    if c == tr * 8 + 4:
                        has_jack = True
                winner = (leader[i] + best) & 3
                team = winner & 1
                trick_leader[i, t] = leader[i]
                trick_winner[i, t] = winner
                tricks_won[i, team] += 1
                game_count[i, team] += count
                if has_jack:
                    jack_team[i] = team
                num_tricks[i] = t + 1
                num_in_trick[i] = 0
                for s in range(4):
                    trick_bits[i, s] = 0
                to_act[i] = winner
                leader[i] = winner
                if t + 1 == 6:
                    scored[i] = True


@njit(cache=True)
def encode(out, games, me, hold, played, trick_bits, picked, discard_bits, bidder, phase, to_act, dealer, high_bid, trump,
           kitty_size, leader, bids, voids, owner, jack_team, tricks_won, game_count, scores, target, high_low_in_play):  # fmt: skip
    """The observation of seat ``me[j]`` in game ``games[j]``, written into row j of ``out`` ([n, OBS_DIM] float32)."""
    o = _O
    n = out.shape[0]
    width = out.shape[1]
    for j in range(n):
        i = games[j]
        row = out[j]
        m = me[j]
        mine = m & 1
        p = phase[i]
        _put_cards(row, o[0], hold[i, m])
        for r in range(4):
            s = (m + r) & 3
            _put_cards(row, o[1] + 32 * r, played[i, s])
            _put_cards(row, o[2] + 32 * r, trick_bits[i, s])
        is_bidder = bidder[i] == m and p != BID
        _put_cards(row, o[3], picked[i] if is_bidder else 0)
        _put_cards(row, o[4], discard_bits[i] if is_bidder else 0)
        for c in range(_CARDS, width):
            row[c] = 0.0
        for r in range(4):
            s = (m + r) & 3
            b = bids[i, s]
            if b >= 0:
                row[o[8] + 4 * r + (0 if b == 0 else b - 1)] = 1.0
            _set_bits(row, o[14] + 4 * r, voids[i, s])
        if p < 4:
            row[o[5] + p] = 1.0
        row[o[6] + ((to_act[i] - m) & 3)] = 1.0
        row[o[7] + ((dealer[i] - m) & 3)] = 1.0
        if bidder[i] >= 0:
            row[o[9] + ((bidder[i] - m) & 3)] = 1.0
            row[o[10] + high_bid[i] - 2] = 1.0
        tr = trump[i]
        if tr >= 0:
            row[o[11] + tr] = 1.0
        row[o[12] + kitty_size] = 1.0
        if p == PLAY:
            row[o[13] + ((leader[i] - m) & 3)] = 1.0
        if tr >= 0:
            high, low = _high_low(owner, i, tr, high_low_in_play)
            if high >= 0:
                row[o[15] + (1 if (high & 1) != mine else 0)] = 1.0
            if low >= 0:
                row[o[15] + 2 + (1 if (low & 1) != mine else 0)] = 1.0
            if jack_team[i] >= 0:
                row[o[15] + 4 + (1 if jack_team[i] != mine else 0)] = 1.0
        tail = o[16]
        row[tail] = tricks_won[i, mine] / 6
        row[tail + 1] = tricks_won[i, 1 - mine] / 6
        row[tail + 2] = game_count[i, mine] / 80
        row[tail + 3] = game_count[i, 1 - mine] / 80
        row[tail + 4] = min(1.0, max(-1.0, scores[i, mine] / target))
        row[tail + 5] = min(1.0, max(-1.0, scores[i, 1 - mine] / target))


@njit(cache=True)
def legal(mask, words, phase, to_act, dealer, high_bid, hold, trump, trick_cards, num_tricks, num_in_trick, stick_the_dealer):  # fmt: skip
    """The legal actions of the seat to act: ``mask`` [n, 72] int8 (given all zero) and ``words``
    [n, 3] uint32 (bits 0-7: pass, bids, trumps; then the discard and the play card masks)."""
    n = mask.shape[0]
    for i in range(n):
        words[i, 0] = 0
        words[i, 1] = 0
        words[i, 2] = 0
        p = phase[i]
        me = to_act[i]
        hand = hold[i, me]
        tr = trump[i]
        trump_bits = np.uint32(0xFF) << np.uint32(8 * tr) if tr >= 0 else np.uint32(0)
        if p == BID:
            # R6, R7v: pass unless the stuck dealer; any bid above the highest.
            small = np.uint32(0)
            if not (stick_the_dealer and me == dealer[i] and high_bid[i] == 0):
                small |= np.uint32(1)
            for b in range(2, 5):
                if b > high_bid[i]:
                    small |= np.uint32(1) << np.uint32(b - 1)
            words[i, 0] = small
        elif p == TRUMP:
            # R9: a suit the bidder holds.
            small = np.uint32(0)
            for u in range(4):
                if hand & (np.uint32(0xFF) << np.uint32(8 * u)):
                    small |= np.uint32(1) << np.uint32(4 + u)
            words[i, 0] = small
        elif p == DISCARD:
            # R10: a trump only while more than six are held.
            count = 0
            x = hand & trump_bits
            while x:
                x &= x - np.uint32(1)
                count += 1
            words[i, 1] = hand if count > 6 else hand & ~trump_bits
        elif p == PLAY:
            # R9, R11: lead a trump first; follow the suit led or trump; else anything.
            if num_in_trick[i] == 0:
                words[i, 2] = hand & trump_bits if num_tricks[i] == 0 else hand
            else:
                led_bits = np.uint32(0xFF) << np.uint32(8 * (trick_cards[i, num_tricks[i], 0] >> 3))
                words[i, 2] = hand & (led_bits | trump_bits) if hand & led_bits else hand
        row = mask[i]
        _set_bits(row, 0, words[i, 0])
        _set_bits(row, 8, words[i, 1])
        _set_bits(row, 40, words[i, 2])


@njit(cache=True)
def illegal(actions, words):
    """For each game, whether ``actions[i]`` is not a legal action of the legal words (see ``legal``)."""
    n = actions.shape[0]
    bad = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        a = actions[i]
        if a < 0 or a >= 72:
            bad[i] = True
        else:
            w = 0 if a < 8 else (1 if a < 40 else 2)
            bit = a - (0 if a < 8 else (8 if a < 40 else 40))
            bad[i] = not (words[i, w] >> np.uint32(bit)) & np.uint32(1)
    return bad


@njit(cache=True)
def sample(words, uniforms, out):
    """A uniformly random legal action per game: the k-th set bit of the legal words."""
    bases = (0, 8, 40)
    for i in range(words.shape[0]):
        total = 0
        for w in range(3):
            x = words[i, w]
            while x:
                x &= x - np.uint32(1)
                total += 1
        k = int(uniforms[i] * total)
        for w in range(3):
            x = np.uint64(words[i, w])
            while x:
                if k == 0:
                    out[i] = bases[w] + _lowest(x)
                    break
                k -= 1
                x &= x - np.uint64(1)
            if x:
                break


@njit(cache=True)
def score_hands(h, trump, owner, jack_team, game_count, discard_order, num_discards, bidder, high_bid, scores,
                defender_cap, target, win_only_on_made_bid, high_low_in_play, reward_mode, rewards, ep_points,
                ep_bids, ep_made, out_winner, out_points, out_game_count, out_hand_points, out_made, out_before):  # fmt: skip
    """Score the finished hands of games ``h`` (R13-R15 and the variants); reward_mode 0 game, 1 hand, 2 margin."""
    for j in range(h.shape[0]):
        i = h[j]
        tr = trump[i]
        out_before[j, 0] = scores[i, 0]
        out_before[j, 1] = scores[i, 1]
        high, low = _high_low(owner, i, tr, high_low_in_play)
        bt = bidder[i] & 1
        # R13d: the bidder's discards count for the bidder's team.
        gc0 = game_count[i, 0]
        gc1 = game_count[i, 1]
        for d in range(num_discards[i]):
            if bt == 0:
                gc0 += _GC[discard_order[i, d]]
            else:
                gc1 += _GC[discard_order[i, d]]
        out_game_count[j, 0] = gc0
        out_game_count[j, 1] = gc1
        out_points[j, 0] = -1 if high < 0 else high & 1
        out_points[j, 1] = -1 if low < 0 else low & 1
        out_points[j, 2] = jack_team[i]
        out_points[j, 3] = -1 if gc0 == gc1 else (1 if gc1 > gc0 else 0)
        hp0 = 0
        hp1 = 0
        for k in range(4):
            if out_points[j, k] == 0:
                hp0 += 1
            elif out_points[j, k] == 1:
                hp1 += 1
            if out_points[j, k] >= 0:
                ep_points[i, out_points[j, k], k] += 1
        out_hand_points[j, 0] = hp0
        out_hand_points[j, 1] = hp1
        bid = high_bid[i]
        taken = hp0 if bt == 0 else hp1
        other = hp1 if bt == 0 else hp0
        made = taken >= bid
        out_made[j] = made
        # R14, R15v-b
        bidder_score = scores[i, bt] + (taken if made else -bid)
        defender_score = scores[i, 1 - bt] + other
        if defender_cap >= 0 and defender_score > defender_cap:
            defender_score = defender_cap
        scores[i, bt] = bidder_score
        scores[i, 1 - bt] = defender_score
        # R15, R15v-a
        winner = -1
        if win_only_on_made_bid:
            if made and bidder_score >= target:
                winner = bt
        elif bidder_score >= target:
            winner = bt
        elif defender_score >= target:
            winner = 1 - bt
        out_winner[j] = winner
        ep_bids[i, bt, bid - 2] += 1
        if made:
            ep_made[i, bt, bid - 2] += 1
        c0 = scores[i, 0] - out_before[j, 0]
        c1 = scores[i, 1] - out_before[j, 1]
        outcome = 0 if winner < 0 else (1 if winner == 0 else -1)
        r0 = team_reward(reward_mode, c0, c1, outcome)
        r1 = team_reward(reward_mode, c1, c0, -outcome)
        rewards[i, 0] = r0
        rewards[i, 2] = r0
        rewards[i, 1] = r1
        rewards[i, 3] = r1


@njit(cache=True)
def deal(games, deal_buf, deal_pos, deck, hold, bids, high_bid, bidder, trump, picked, discard_bits, num_discards,
         played, trick_bits, owner, num_tricks, num_in_trick, tricks_won, game_count, jack_team, voids, phase,
         to_act, dealer, leader):  # fmt: skip
    """R4: deal each game of ``games`` its next drawn deck and clear the hand's state."""
    for i in games:
        pos = deal_pos[i]
        deal_pos[i] = pos + 1
        for c in range(32):
            deck[i, c] = deal_buf[i, pos, c]
        for s in range(4):
            m = np.uint32(0)
            for j in range(6):
                m |= np.uint32(1) << np.uint32(deck[i, 6 * s + j])
            hold[i, s] = m
            bids[i, s] = -1
            played[i, s] = 0
            trick_bits[i, s] = 0
            voids[i, s] = 0
        for c in range(32):
            owner[i, c] = -1
        high_bid[i] = 0
        bidder[i] = -1
        trump[i] = -1
        picked[i] = 0
        discard_bits[i] = 0
        num_discards[i] = 0
        num_tricks[i] = 0
        num_in_trick[i] = 0
        tricks_won[i, 0] = 0
        tricks_won[i, 1] = 0
        game_count[i, 0] = 0
        game_count[i, 1] = 0
        jack_team[i] = -1
        phase[i] = BID
        to_act[i] = (dealer[i] + 1) & 3  # R6
        leader[i] = -1
