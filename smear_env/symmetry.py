"""The suits are alike: no rule (R1-R16) names one, so relabelling the suits of a deal gives a
deal that plays the same way, card for card. :data:`OBS_INDEX` and :data:`ACTION_INDEX` carry
that relabelling to the observation vector and the action table, for the 24 orders of the suits
(:data:`SUIT_PERMUTATIONS`): with ``p`` a row, ``obs[..., OBS_INDEX[p]]`` is the observation of
the relabelled game and ``values[..., ACTION_INDEX[p]]`` the values of its actions.
``smear_nets.SuitMean`` averages a network's values over several orders (``neural:PATH,suits=K``).
"""

from __future__ import annotations

from itertools import permutations

import numpy as np

from .actions import DISCARD_BASE, NUM_ACTIONS, PLAY_BASE, TRUMP_BASE
from .cards import CARDS_PER_SUIT, NUM_CARDS
from .observer import LAYOUT, OBS_DIM, OFFSETS

# p[s]: the new suit of suit s. The four turns of the suits come first (the identity, then each suit
# moved one place on, two, three): in the first four orders every suit takes every place once.
_TURNS = tuple(tuple((s + k) % 4 for s in range(4)) for k in range(4))
SUIT_PERMUTATIONS: tuple[tuple[int, ...], ...] = _TURNS + tuple(p for p in permutations(range(4)) if p not in _TURNS)
CARD_SEGMENTS = ("hand", "played", "trick", "picked_up", "discards")  # runs of 32 entries, one per card
SUIT_SEGMENTS = ("trump", "voids")  # runs of 4 entries, one per suit


def relabel_card(card: int, perm: tuple[int, ...]) -> int:
    """``card`` with its suit relabelled by ``perm``."""
    return perm[card // CARDS_PER_SUIT] * CARDS_PER_SUIT + card % CARDS_PER_SUIT


def relabel_action(action: int, perm: tuple[int, ...]) -> int:
    """The action of the relabelled game that ``action`` becomes (bids and pass stay)."""
    if TRUMP_BASE <= action < DISCARD_BASE:
        return TRUMP_BASE + perm[action - TRUMP_BASE]
    if action >= DISCARD_BASE:
        base = PLAY_BASE if action >= PLAY_BASE else DISCARD_BASE
        return base + relabel_card(action - base, perm)
    return action


def _gather(size: int, moved: dict[int, int]) -> np.ndarray:
    """The index ``i`` with ``new[..., j] = old[..., i[j]]``, from where each old entry goes."""
    index = np.arange(size)
    for old, new in moved.items():
        index[new] = old
    return index


def observation_index(perm: tuple[int, ...]) -> np.ndarray:
    """``obs[..., observation_index(perm)]``: the observation once the suits are relabelled by ``perm``."""
    sizes = {name: size for name, size, _ in LAYOUT}
    moved: dict[int, int] = {}
    for name in CARD_SEGMENTS:
        for start in range(OFFSETS[name], OFFSETS[name] + sizes[name], NUM_CARDS):
            moved.update({start + c: start + relabel_card(c, perm) for c in range(NUM_CARDS)})
    for name in SUIT_SEGMENTS:
        for start in range(OFFSETS[name], OFFSETS[name] + sizes[name], 4):
            moved.update({start + s: start + perm[s] for s in range(4)})
    return _gather(OBS_DIM, moved)


def action_index(perm: tuple[int, ...]) -> np.ndarray:
    """``values[..., action_index(perm)]``: per-action values once the suits are relabelled by ``perm``."""
    return _gather(NUM_ACTIONS, {a: relabel_action(a, perm) for a in range(NUM_ACTIONS)})


OBS_INDEX = np.stack([observation_index(p) for p in SUIT_PERMUTATIONS])
ACTION_INDEX = np.stack([action_index(p) for p in SUIT_PERMUTATIONS])
