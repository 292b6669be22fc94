"""The one observer: a seat view encoded as a flat float32 vector, and the global state.

The card segments come first, each 32 entries on a 32-aligned offset, so that the
batched engine writes them as unpacked bit masks. Seats in the observation are *relative*: 0 = me, 1 = my left, 2 = my partner,
3 = my right. Cards are indexed ``suit * 8 + rank`` (``smear_env.cards``).
``python -m smear_env.observer`` prints the table below from :data:`LAYOUT`, so the
documentation is generated from the code.
"""

from __future__ import annotations

import numpy as np

from .cards import ACE, GAME_COUNT, JACK, NUM_CARDS, SEVEN
from .game import Game, Phase
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


def observe(game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``seat`` in ``game`` (the same as ``encode(seat_view(game, seat))``)."""
    return encode_knowledge(seat_knowledge(game, seat), out)


def _history(tricks: list, trump: int | None) -> tuple:
    """What completed tricks add to every observation of a hand: the cards each (absolute) seat
    played as 32 bytes, tricks and game-count won by each team, the Jack's team, trumps played."""
    patterns = [bytearray(32) for _ in range(4)]
    won, counted, trumps, jack_team = [0, 0], [0, 0], [], -1
    for _, plays, winner in tricks:
        team = winner & 1
        won[team] += 1
        for s, card in plays:
            patterns[s][card] = 1
            counted[team] += GAME_COUNT[card]
            if card >> 3 == trump:
                trumps.append((card, s))
                if card & 7 == JACK:
                    jack_team = team
    return [bytes(p) for p in patterns], won, counted, jack_team, trumps


def encode_knowledge(k: Knowledge, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of what a seat knows (see the layout above)."""
    me = k.seat
    mine = me & 1
    rel = _REL[me]  # absolute seat -> relative seat
    on = bytearray(OBS_DIM)  # the 0/1 part, set byte by byte: cheaper than a list of indices
    for c in k.hand:
        on[c] = 1
    phase = k.phase
    if phase != Phase.GAME_OVER:
        on[_PHASE + phase] = 1
    on[_TO_ACT + rel[k.to_act]] = 1
    on[_DEALER + rel[k.dealer]] = 1
    for s, b in k.bids:
        on[_BIDS + 4 * rel[s] + (b - 1 if b else 0)] = 1
    if k.bidder is not None:
        on[_BIDDER + rel[k.bidder]] = 1
        on[_BID + k.bid - 2] = 1
    trump = k.trump
    if trump is not None:
        on[_TRUMP + trump] = 1
    on[_KITTY + k.rules.kitty_size] = 1
    # The completed tricks change only once a trick: their part is kept per hand in the game's cache.
    cache = k.cache
    history = cache.get(len(k.tricks)) if cache is not None else None
    if history is None:
        history = _history(k.tricks, trump)
        if cache is not None:
            cache[len(k.tricks)] = history
    patterns, won, counted, jack_team, trumps_done = history
    for s in range(4):
        base = _PLAYED + 32 * rel[s]
        on[base : base + 32] = patterns[s]
    tricks_won = [won[mine], won[1 - mine]]
    game_count = [counted[mine], counted[1 - mine]]
    jack_side = -1 if jack_team < 0 else int(jack_team != mine)
    trumps_played = list(trumps_done)  # (card, seat)
    for s, card in k.trick:
        r = 32 * rel[s] + card
        on[_PLAYED + r] = 1
        on[_TRICK + r] = 1
        if card >> 3 == trump:
            trumps_played.append((card, s))
    if k.leader is not None and phase == Phase.PLAY:
        on[_LEADER + rel[k.leader]] = 1
    if k.picked_up is not None:
        for c in k.picked_up:
            on[_PICKED_UP + c] = 1
    if k.discards is not None:
        for c in k.discards:
            on[_DISCARDS + c] = 1
    for s, voids in enumerate(k.voids):
        if True in voids:
            base = _VOIDS + 4 * rel[s]
            for u in range(4):
                if voids[u]:
                    on[base + u] = 1
    if trumps_played:
        if k.rules.high_low_in_play:
            high, low = max(trumps_played), min(trumps_played)
        else:
            high = low = None
            for played in trumps_played:
                if played[0] & 7 == ACE:
                    high = played
                elif played[0] & 7 == SEVEN:
                    low = played
        if high is not None:
            on[_POINTS + ((high[1] & 1) != mine)] = 1
        if low is not None:
            on[_POINTS + 2 + ((low[1] & 1) != mine)] = 1
        if jack_side >= 0:
            on[_POINTS + 4 + jack_side] = 1
    if out is None:
        obs = np.frombuffer(on, dtype=np.uint8).astype(np.float32)
    else:
        obs = out
        obs[:] = np.frombuffer(on, dtype=np.uint8)
    target = k.rules.target_score
    obs[_TAIL] = tricks_won[0] / 6
    obs[_TAIL + 1] = tricks_won[1] / 6
    obs[_TAIL + 2] = game_count[0] / 80
    obs[_TAIL + 3] = game_count[1] / 80
    obs[_TAIL + 4] = max(-1.0, min(1.0, k.scores[mine] / target))
    obs[_TAIL + 5] = max(-1.0, min(1.0, k.scores[1 - mine] / target))
    return obs


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
