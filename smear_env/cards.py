"""Cards of the 32-card Smear deck (R1) as small integers.

A card is ``suit * 8 + rank`` with suits ``C D H S`` (0-3) and ranks
``7 8 9 T J Q K A`` (0-7), so a higher rank index is a higher card and
``card // 8`` is its suit. Outside the engine cards are two-character strings,
rank then suit (``"JH"``, ``"TC"``), as in docs/records.md.
"""

from __future__ import annotations

SUITS = "CDHS"
RANKS = "789TJQKA"
NUM_CARDS = 32
CARDS_PER_SUIT = 8

SEVEN, TEN, JACK, QUEEN, KING, ACE = 0, 3, 4, 5, 6, 7
# R13d: the game-count of each rank index, A=4, K=3, Q=2, J=1, 10=10.
GAME_COUNT_BY_RANK = (0, 0, 0, 10, 1, 2, 3, 4)
GAME_COUNT = tuple(GAME_COUNT_BY_RANK[c % 8] for c in range(NUM_CARDS))


def suit_of(card: int) -> int:
    """The suit index (0-3, ``C D H S``) of a card."""
    return card >> 3


def rank_of(card: int) -> int:
    """The rank index (0 = seven ... 7 = ace) of a card."""
    return card & 7


def card_str(card: int) -> str:
    """The two-character name of a card, e.g. ``"JH"``."""
    return RANKS[card & 7] + SUITS[card >> 3]


def parse_card(name: str) -> int:
    """The card index of a name such as ``"JH"``; raises ValueError for anything else."""
    if not isinstance(name, str) or len(name) != 2 or name[0] not in RANKS or name[1] not in SUITS:
        raise ValueError(
            f"bad card {name!r}: a card is a rank from {' '.join(RANKS)} followed by a suit from {' '.join(SUITS)}, e.g. 'JH'"
        )
    return SUITS.index(name[1]) * 8 + RANKS.index(name[0])


def parse_suit(name: str) -> int:
    """The suit index of ``"C"``, ``"D"``, ``"H"`` or ``"S"``."""
    if not isinstance(name, str) or len(name) != 1 or name not in SUITS:
        raise ValueError(f"bad suit {name!r}: allowed are 'C', 'D', 'H', 'S'")
    return SUITS.index(name)


ALL_CARDS = tuple(card_str(c) for c in range(NUM_CARDS))
