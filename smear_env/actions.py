"""The fixed action table shared by every engine, agent and record.

======  ==========================  ========================================
ids     meaning                     legal when
======  ==========================  ========================================
0       pass                        bidding (R6; not the stuck dealer, R7v)
1-3     bid 2, 3, 4                 bidding, above the highest bid (R6)
4-7     declare trump C, D, H, S    the bidder, after the pick-up (R9)
8-39    discard card 0-31           the bidder, down to 6 cards (R10)
40-71   play card 0-31              trick play (R11)
======  ==========================  ========================================

Card ``c`` is ``suit * 8 + rank`` (see ``smear_env.cards``): discard ``JH`` is
``8 + 20 = 28``, play ``JH`` is ``40 + 20 = 60``. The ids are stable for ``smear_v0``.
"""

from __future__ import annotations

from .cards import SUITS, card_str, parse_card, parse_suit

PASS = 0
BID_BASE = 1  # bid b is action BID_BASE + b - 2
TRUMP_BASE = 4
DISCARD_BASE = 8
PLAY_BASE = 40
NUM_ACTIONS = 72
MIN_BID, MAX_BID = 2, 4


def bid_action(bid: int) -> int:
    """The action id of bidding ``bid`` (0 = pass)."""
    return PASS if bid == 0 else BID_BASE + bid - MIN_BID


def action_name(action: int) -> str:
    """A short name for an action id: ``pass``, ``bid 3``, ``trump H``, ``discard 7C``, ``JH``."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action!r} out of range: actions are 0 to {NUM_ACTIONS - 1}")
    if action == PASS:
        return "pass"
    if action < TRUMP_BASE:
        return f"bid {action - BID_BASE + MIN_BID}"
    if action < DISCARD_BASE:
        return f"trump {SUITS[action - TRUMP_BASE]}"
    if action < PLAY_BASE:
        return f"discard {card_str(action - DISCARD_BASE)}"
    return card_str(action - PLAY_BASE)


def parse_action(name: str) -> int:
    """The action id of a short name (inverse of :func:`action_name`)."""
    words = name.strip().split()
    try:
        if words == ["pass"]:
            return PASS
        if len(words) == 2 and words[0] == "bid" and words[1] in ("2", "3", "4"):
            return bid_action(int(words[1]))
        if len(words) == 2 and words[0] == "trump":
            return TRUMP_BASE + parse_suit(words[1].upper())
        if len(words) == 2 and words[0] == "discard":
            return DISCARD_BASE + parse_card(words[1].upper())
        if len(words) == 1:
            return PLAY_BASE + parse_card(words[0].upper())
    except ValueError:
        pass
    raise ValueError(f"unknown action {name!r}: say 'pass', 'bid 2'..'bid 4', 'trump H', 'discard 7C' or a card such as 'JH'")


def action_table() -> str:
    """The action table as text, generated from the code above."""
    rows = [f"{a:>3}  {action_name(a)}" for a in range(NUM_ACTIONS)]
    return "\n".join(rows)
