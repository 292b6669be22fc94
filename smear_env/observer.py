"""The one observer: a seat view encoded as a flat float32 vector, and the global state.

Seats in the observation are *relative*: 0 = me, 1 = my left, 2 = my partner,
3 = my right. Cards are indexed ``suit * 8 + rank`` (``smear_env.cards``).
``python -m smear_env.observer`` prints the table below from :data:`LAYOUT`, so the
documentation is generated from the code.
"""

from __future__ import annotations

import numpy as np

from .cards import ACE, GAME_COUNT, JACK, NUM_CARDS, SEVEN, SUITS
from .game import Game, Phase
from .view import CARD_INDEX, SeatView, seat_view

LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("hand", 32, "cards I hold"),
    ("phase", 4, "one-hot: bid, trump, discard, play (all zero when the game is over)"),
    ("to_act", 4, "one-hot relative seat whose turn it is"),
    ("dealer", 4, "one-hot relative seat of the dealer"),
    ("bids", 16, "per relative seat, one-hot of its bidding turn: pass, 2, 3, 4"),
    ("bidder", 4, "one-hot relative seat of the highest bidder so far"),
    ("bid", 3, "one-hot highest bid so far: 2, 3, 4"),
    ("trump", 4, "one-hot trump suit C, D, H, S once declared"),
    ("kitty_size", 4, "one-hot kitty_size 0-3"),
    ("played", 128, "per relative seat, the cards it has played this hand"),
    ("trick", 128, "per relative seat, its card in the trick in progress"),
    ("leader", 4, "one-hot relative seat leading the trick in progress"),
    ("picked_up", 32, "the kitty cards I picked up (bidder only)"),
    ("discards", 32, "my discards (bidder only)"),
    ("voids", 16, "per relative seat, suits C, D, H, S it has shown it lacks (R11)"),
    ("tricks_won", 2, "tricks won this hand by my team, the other team, / 6"),
    ("game_count", 2, "game-count in tricks won by my team, the other team, / 80"),
    ("points", 6, "High, Low, Jack as taken so far: (mine, theirs) for each"),
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


_PHASE_SLOT = {Phase.BID: 0, Phase.TRUMP: 1, Phase.DISCARD: 2, Phase.PLAY: 3}


def encode(view: SeatView, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of a seat view (float32, length OBS_DIM)."""
    obs = np.zeros(OBS_DIM, dtype=np.float32) if out is None else out
    if out is not None:
        obs[:] = 0
    me = view.seat
    on: list[int] = [CARD_INDEX[c] for c in view.hand]
    o = OFFSETS
    if view.phase in _PHASE_SLOT:
        on.append(o["phase"] + _PHASE_SLOT[view.phase])
    on.append(o["to_act"] + (view.to_act - me) % 4)
    on.append(o["dealer"] + (view.dealer - me) % 4)
    for s, b in view.bids:
        on.append(o["bids"] + 4 * ((s - me) % 4) + (b - 1 if b else 0))
    if view.bidder is not None:
        on.append(o["bidder"] + (view.bidder - me) % 4)
        on.append(o["bid"] + view.bid - 2)
    trump = None if view.trump is None else SUITS.index(view.trump)
    if trump is not None:
        on.append(o["trump"] + trump)
    on.append(o["kitty_size"] + view.rules.kitty_size)
    played_by: dict[int, int] = {}
    won_by: dict[int, int] = {}
    tricks_won = [0, 0]
    game_count = [0, 0]
    mine = me & 1
    for t in view.tricks:
        side = (t.winner & 1) != mine
        tricks_won[side] += 1
        for s, c in t.plays:
            card = CARD_INDEX[c]
            played_by[card] = s
            won_by[card] = t.winner
            game_count[side] += GAME_COUNT[card]
    for s, c in view.trick:
        card = CARD_INDEX[c]
        played_by[card] = s
        on.append(o["trick"] + 32 * ((s - me) % 4) + card)
    for card, s in played_by.items():
        on.append(o["played"] + 32 * ((s - me) % 4) + card)
    if view.leader is not None and view.phase == Phase.PLAY:
        on.append(o["leader"] + (view.leader - me) % 4)
    if view.picked_up is not None:
        on.extend(o["picked_up"] + CARD_INDEX[c] for c in view.picked_up)
    if view.discards is not None:
        on.extend(o["discards"] + CARD_INDEX[c] for c in view.discards)
    for s in range(4):
        for u in view.voids[s]:
            on.append(o["voids"] + 4 * ((s - me) % 4) + SUITS.index(u))
    if trump is not None and played_by:
        trumps = [c for c in played_by if c >> 3 == trump]
        if view.rules.high_low_in_play:
            high = max(trumps) if trumps else None
            low = min(trumps) if trumps else None
        else:
            high, low = trump * 8 + ACE, trump * 8 + SEVEN
        if high in played_by:
            on.append(o["points"] + ((played_by[high] & 1) != mine))
        if low in played_by:
            on.append(o["points"] + 2 + ((played_by[low] & 1) != mine))
        jack = trump * 8 + JACK
        if jack in won_by:
            on.append(o["points"] + 4 + ((won_by[jack] & 1) != mine))
    obs[on] = 1.0
    obs[o["tricks_won"] : o["tricks_won"] + 2] = (tricks_won[0] / 6, tricks_won[1] / 6)
    obs[o["game_count"] : o["game_count"] + 2] = (game_count[0] / 80, game_count[1] / 80)
    target = view.rules.target_score
    s_mine, s_theirs = view.scores[mine], view.scores[1 - mine]
    obs[o["scores"]] = max(-1.0, min(1.0, s_mine / target))
    obs[o["scores"] + 1] = max(-1.0, min(1.0, s_theirs / target))
    return obs


def observe(game: Game, seat: int) -> np.ndarray:
    """The observation of ``seat`` in ``game``."""
    return encode(seat_view(game, seat))


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
    encode(seat_view(game, 0), out[224:])
    return out


if __name__ == "__main__":
    print(layout_table())
