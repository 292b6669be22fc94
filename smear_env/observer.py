"""The one observer: a seat view encoded as a flat float32 vector, and the global state.

The card segments come first, each 32 entries on a 32-aligned offset, so that the
batched engine writes them as unpacked bit masks. Seats in the observation are *relative*: 0 = me, 1 = my left, 2 = my partner,
3 = my right. Cards are indexed ``suit * 8 + rank`` (``smear_env.cards``).
``python -m smear_env.observer`` prints the table below from :data:`LAYOUT`, so the
documentation is generated from the code.
"""

from __future__ import annotations

import weakref
from array import array

import numpy as np

from .cards import NUM_CARDS, suit_of
from .game import Game, Phase, Tally, fold_high_low, team_of
from .view import Knowledge, SeatView, knowledge_of_view, seat_knowledge

LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", 32, "cards I hold"),
    ("played", 128, "per relative seat, the cards it has played this hand"),
    ("trick", 128, "per relative seat, its card in the trick in progress"),
    ("picked_up", 32, "the kitty cards I picked up (bidder only)"),
    ("discards", 32, "my discards (bidder only)"),
    ("phase", 4, "one-hot: bid, trump, discard, play (all zero when the game is over)"),
    ("to_act", 4, "one-hot relative seat whose turn it is"),
    ("dealer", 4, "one-hot relative seat of the dealer"),
    ("bids", 16, "per relative seat, one-hot of its bidding turn: pass, 2, 3, 4"),
    ("bidder", 4, "one-hot relative seat of the highest bidder so far"),
    ("bid", 3, "one-hot highest bid so far: 2, 3, 4"),
    ("trump", 4, "one-hot trump suit C, D, H, S once declared"),
    ("kitty_size", 4, "one-hot kitty_size 0-3"),
    ("leader", 4, "one-hot relative seat leading the trick in progress"),
    ("voids", 16, "per relative seat, suits C, D, H, S it has shown it lacks (R11)"),
    ("points", 6, "High, Low, Jack as taken so far: (mine, theirs) for each"),
    ("tricks_won", 2, "tricks won this hand by my team, the other team, / 6"),
    ("game_count", 2, "game-count in tricks won by my team, the other team, / 80"),
    ("scores", 2, "team scores (mine, theirs) / target_score, clipped to [-1, 1]"),
)

OFFSETS: dict[str, int] = {}
_offset = 0
for _name, _size, _ in LAYOUT:
    OFFSETS[_name] = _offset
    _offset += _size
OBS_DIM = _offset
STATE_DIM = 4 * NUM_CARDS + 3 * NUM_CARDS + OBS_DIM


def layout_table() -> str:
    """The observation layout as a text table (name, index range, meaning)."""
    rows = [f"{'name':<11} {'indices':<9} meaning"]
    for name, size, meaning in LAYOUT:
        start = OFFSETS[name]
        rows.append(f"{name:<11} {f'{start}-{start + size - 1}':<9} {meaning}")
    rows.append(f"total {OBS_DIM} floats")
    return "\n".join(rows)


_REL = tuple(tuple((s - me) % 4 for s in range(4)) for me in range(4))
_PHASE, _TO_ACT, _DEALER, _BIDS, _BIDDER, _BID = (OFFSETS[n] for n in ("phase", "to_act", "dealer", "bids", "bidder", "bid"))
_TRUMP, _KITTY, _PLAYED, _TRICK, _LEADER = (OFFSETS[n] for n in ("trump", "kitty_size", "played", "trick", "leader"))
_PICKED_UP, _DISCARDS, _VOIDS, _POINTS, _TAIL = (OFFSETS[n] for n in ("picked_up", "discards", "voids", "points", "tricks_won"))
assert [n for n, _, _ in LAYOUT[-3:]] == ["tricks_won", "game_count", "scores"]  # the six floats at _TAIL


def encode(view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of a seat view (float32, length OBS_DIM)."""
    return encode_knowledge(knowledge_of_view(view), out)


class HandCache:
    """What :func:`observe` keeps of one hand of one game: the parts of the vector that only a bid,
    a discard or a completed trick change. Kept outside the engine, by game, for as long as the
    game lives; a new hand (a new list of dealt hands) starts a new one."""

    __slots__ = ("dealt", "static", "history")

    def __init__(self, dealt: list) -> None:
        self.dealt = dealt
        self.static: dict[tuple, array] = {}  # (seat, phase, bids, discards) -> 0/1 entries
        self.history: dict[tuple, tuple] = {}  # (tricks, score, score) -> what the tricks add


_CACHES: dict[int, HandCache] = {}  # by id(game); a game's entry goes when the game does


def observe(game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``seat`` in ``game`` (the same as ``encode(seat_view(game, seat))``), with
    the game's :class:`HandCache`."""
    cache = _CACHES.get(id(game))
    if cache is None or cache.dealt is not game.dealt:
        if cache is None:
            weakref.finalize(game, _CACHES.pop, id(game), None)
        cache = _CACHES[id(game)] = HandCache(game.dealt)
    return encode_knowledge(seat_knowledge(game, seat), out, cache)


_F32 = np.dtype(np.float32)
_ZEROS = bytes(4 * OBS_DIM)  # as the initializer of array("f"): OBS_DIM zeros


def _history(k: Knowledge, prev: tuple | None) -> tuple:
    """What the completed tricks add to every observation of a hand, with the scores: per
    observer seat, the cards each relative seat played (128 floats); per team, the six floats
    at the end of the vector; the cards played by absolute seat; the engine's :class:`Tally`
    of the points (None before the first trick) and from it the High, Low and Jack so far.
    ``prev`` is the same for one trick fewer: then only the last trick is added."""
    if prev is None or prev[3] is None:
        absolute, account = array("f", _ZEROS[:512]), None
        new_tricks = k.tricks
    else:
        absolute, account = prev[2][:], prev[3].copy()
        new_tricks = k.tricks[-1:]
    for _, plays, winner in new_tricks:
        if account is None:
            assert k.trump is not None  # a trick is played after trump is declared (R9)
            account = Tally(k.trump, k.rules.high_low_in_play)
        account.add_trick(plays, winner)
        for s, card in plays:
            absolute[32 * s + card] = 1.0
    blocks = [absolute[32 * me :] + absolute[: 32 * me] for me in range(4)]
    w, c = (account.won, account.game_count) if account is not None else ([0, 0], [0, 0])
    s0, s1 = (max(-1.0, min(1.0, score / k.rules.target_score)) for score in k.scores)
    tails = (
        array("f", [w[0] / 6, w[1] / 6, c[0] / 80, c[1] / 80, s0, s1]),
        array("f", [w[1] / 6, w[0] / 6, c[1] / 80, c[0] / 80, s1, s0]),
    )
    taken = (None, None, None) if account is None else (account.jack_team, account.high, account.low)
    return blocks, tails, absolute, account, taken


def _static(k: Knowledge) -> array:
    """The 0/1 entries that change only with the phase, a bid or a discard."""
    rel = _REL[k.seat]
    on = array("f", _ZEROS)
    if k.phase != Phase.GAME_OVER:
        on[_PHASE + k.phase] = 1.0
    on[_DEALER + rel[k.dealer]] = 1.0
    for s, b in k.bids:
        on[_BIDS + 4 * rel[s] + (b - 1 if b else 0)] = 1.0
    if k.bidder is not None:
        on[_BIDDER + rel[k.bidder]] = 1.0
        on[_BID + k.bid - 2] = 1.0
    if k.trump is not None:
        on[_TRUMP + k.trump] = 1.0
    on[_KITTY + k.rules.kitty_size] = 1.0
    for c in k.picked_up or ():
        on[_PICKED_UP + c] = 1.0
    for c in k.discards or ():
        on[_DISCARDS + c] = 1.0
    return on


def encode_knowledge(k: Knowledge, out: np.ndarray | None = None, cache: HandCache | None = None) -> np.ndarray:
    """The observation vector of what a seat knows (see the layout above); ``cache``: what
    :func:`observe` keeps for this hand of this game."""
    me, rules, phase, trump = k.seat, k.rules, k.phase, k.trump
    bids, discards, tricks, scores, voids = k.bids, k.discards, k.tricks, k.scores, k.voids
    mine = team_of(me)
    rel = _REL[me]  # absolute seat -> relative seat
    # What changes only with the phase, a bid or a discard, and what the completed tricks add
    # (once a trick), are kept per hand in the cache, keyed (seat, phase, bids, discards) and
    # (tricks, score, score) respectively.
    statics, histories = (cache.static, cache.history) if cache is not None else ({}, {})
    key = (me, phase, len(bids), 0 if discards is None else len(discards))
    static = statics.get(key)
    if static is None:
        static = statics[key] = _static(k)
    # Scores change only when a hand ends (a new hand starts a new cache), or with the
    # sixth trick; the key has both, so a cached history is never stale.
    n = len(tricks)
    history = histories.get((n, scores[0], scores[1]))
    if history is None:
        prev = histories.get((n - 1, scores[0], scores[1])) if n else None
        history = histories[(n, scores[0], scores[1])] = _history(k, prev)
    blocks, tails, _, _, (jack_team, high, low) = history
    # The vector is built in an array("f") (entry by entry: cheaper than numpy) and handed over without a copy.
    on = static[:]
    for c in k.hand:
        on[c] = 1.0
    on[_TO_ACT + rel[k.to_act]] = 1.0
    on[_PLAYED : _PLAYED + 128] = blocks[me]
    for s, card in k.trick:
        r = 32 * rel[s] + card
        on[_PLAYED + r] = 1.0
        on[_TRICK + r] = 1.0
        if suit_of(card) == trump:
            high, low = fold_high_low(high, low, card, s, rules.high_low_in_play)
    if k.leader is not None and phase == Phase.PLAY:
        on[_LEADER + rel[k.leader]] = 1.0
    for s in range(4):
        if True in voids[s]:
            base = _VOIDS + 4 * rel[s]
            for u, void in enumerate(voids[s]):
                if void:
                    on[base + u] = 1.0
    if high is not None:
        on[_POINTS + (team_of(high[1]) != mine)] = 1.0
    if low is not None:
        on[_POINTS + 2 + (team_of(low[1]) != mine)] = 1.0
    if jack_team is not None:
        on[_POINTS + 4 + (jack_team != mine)] = 1.0
    on[_TAIL:] = tails[mine]
    if out is None:
        return np.frombuffer(on, _F32)
    out[:] = np.frombuffer(on, _F32)
    return out


def state(game: Game) -> np.ndarray:
    """The global (full-information) vector for centralized critics, length STATE_DIM.

    Layout: the hand of each seat by absolute seat (4 x 32), the kitty cards nobody
    picked up (32; all 8 during bidding), the bidder's pick-up (32), the bidder's
    discards (32), then seat 0's observation.
    """
    out = np.zeros(STATE_DIM, dtype=np.float32)
    idx: list[int] = []
    for s in range(4):
        idx.extend(32 * s + c for c in game.holding[s])
    rest = game.kitty if game.phase == Phase.BID else game.kitty[game.rules.kitty_size :]
    idx.extend(128 + c for c in rest)
    if game.phase != Phase.BID:
        idx.extend(160 + c for c in game.picked_up)
    idx.extend(192 + c for c in game.discards)
    out[idx] = 1.0
    observe(game, 0, out[224:])
    return out


if __name__ == "__main__":
    print(layout_table())
