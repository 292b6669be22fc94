"""What one seat may know (RULES.md "Who knows what"), and deals consistent with it.

:func:`seat_knowledge` is the single function that decides what a seat knows;
the observation vector is encoded from its result only. :func:`seat_view` gives the
same knowledge as a readable dataclass with cards as strings, for non-neural agents. :func:`sample_game` turns a view back into a full game by dealing the
cards the seat cannot see, for determinized (PIMC) search.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .cards import ALL_CARDS, NUM_CARDS, SUITS
from .game import KITTY_CARDS, Game, Phase
from .rules import Rules

CARD_INDEX = {name: i for i, name in enumerate(ALL_CARDS)}


@dataclass(frozen=True)
class TrickView:
    """A completed trick: who led, the (seat, card) plays in order, who won."""

    leader: int
    plays: tuple[tuple[int, str], ...]
    winner: int


@dataclass(frozen=True)
class SeatView:
    """Everything seat ``seat`` may know at this moment. Cards are strings (``"JH"``)."""

    seat: int
    """The seat this view belongs to (0-3)."""
    rules: Rules
    """The rule settings in force (public; includes ``kitty_size``)."""
    phase: Phase
    """BID, TRUMP, DISCARD, PLAY or GAME_OVER."""
    to_act: int
    """The seat whose turn it is."""
    dealer: int
    """The dealer's seat."""
    hand_index: int
    """Hands dealt before this one in the game (redeals counted)."""
    scores: tuple[int, int]
    """Team scores before this hand (team 0 = seats 0 and 2)."""
    hand: tuple[str, ...]
    """The cards this seat holds now, sorted by suit and rank."""
    hand_sizes: tuple[int, int, int, int]
    """How many cards each seat holds now."""
    bids: tuple[tuple[int, int], ...]
    """Every bidding turn so far as (seat, bid); 0 is a pass."""
    bidder: int | None
    """The highest bidder so far (the bidder once bidding has ended)."""
    bid: int
    """The highest bid so far (0: none)."""
    trump: str | None
    """The declared trump suit, or None before it is declared."""
    picked_up: tuple[str, ...] | None
    """The kitty cards this seat picked up, if it is the bidder; None otherwise."""
    discards: tuple[str, ...] | None
    """This seat's discards, if it is the bidder; None otherwise."""
    num_discards: int
    """How many cards the bidder has discarded (public)."""
    tricks: tuple[TrickView, ...]
    """The completed tricks of this hand."""
    trick: tuple[tuple[int, str], ...]
    """The (seat, card) plays of the trick in progress."""
    leader: int | None
    """The seat that leads (or led) the trick in progress."""
    voids: tuple[str, str, str, str]
    """By seat, the suits that seat has shown it holds none of (R11 inference)."""
    legal_actions: tuple[int, ...]
    """The legal action ids if it is this seat's turn, else empty."""

    @property
    def team(self) -> int:
        """This seat's team (0 or 1)."""
        return self.seat & 1


class Knowledge(NamedTuple):
    """What a seat may know, in the engine's integer form (cards 0-31, suits 0-3).

    Built by :func:`seat_knowledge` without copying (do not mutate its lists); the
    observation is encoded from it, and :class:`SeatView` is its readable form.
    """

    seat: int
    rules: Rules
    phase: Phase
    to_act: int
    dealer: int
    hand_index: int
    scores: list[int] | tuple[int, int]
    hand: list[int]
    bids: list[tuple[int, int]]
    bidder: int | None
    bid: int
    trump: int | None
    picked_up: list[int] | None
    discards: list[int] | None
    tricks: list[tuple[int, list[tuple[int, int]], int]]
    trick: list[tuple[int, int]]
    leader: int | None
    voids: list[list[bool]]
    cache: dict | None = None  # the game's per-hand cache of what completed tricks encode to


def seat_knowledge(game: Game, seat: int) -> Knowledge:
    """What ``seat`` may know of ``game`` now: the one function that decides it."""
    is_bidder = game.bidder == seat and game.phase != Phase.BID
    return Knowledge(
        seat,
        game.rules,
        game.phase,
        game.to_act,
        game.dealer,
        game.hand_index,
        game.scores,
        game.holding[seat],
        game.bids,
        game.bidder,
        game.high_bid,
        game.trump,
        game.picked_up if is_bidder else None,
        game.discards if is_bidder else None,
        game.tricks,
        game.trick,
        game.leader,
        game.voids,
        game.obs_cache,
    )


def knowledge_of_view(view: SeatView) -> Knowledge:
    """The integer form of a seat view (inverse of the conversion in :func:`seat_view`)."""
    return Knowledge(
        view.seat,
        view.rules,
        view.phase,
        view.to_act,
        view.dealer,
        view.hand_index,
        view.scores,
        [CARD_INDEX[c] for c in view.hand],
        list(view.bids),
        view.bidder,
        view.bid,
        None if view.trump is None else SUITS.index(view.trump),
        None if view.picked_up is None else [CARD_INDEX[c] for c in view.picked_up],
        None if view.discards is None else [CARD_INDEX[c] for c in view.discards],
        [(t.leader, [(s, CARD_INDEX[c]) for s, c in t.plays], t.winner) for t in view.tricks],
        [(s, CARD_INDEX[c]) for s, c in view.trick],
        view.leader,
        [[SUITS[u] in view.voids[s] for u in range(4)] for s in range(4)],
    )


def seat_view(game: Game, seat: int) -> SeatView:
    """What ``seat`` may know of ``game`` now, with cards as strings (from :func:`seat_knowledge`)."""
    k = seat_knowledge(game, seat)
    return SeatView(
        seat=seat,
        rules=k.rules,
        phase=k.phase,
        to_act=k.to_act,
        dealer=k.dealer,
        hand_index=k.hand_index,
        scores=(k.scores[0], k.scores[1]),
        hand=tuple(ALL_CARDS[c] for c in sorted(k.hand)),
        hand_sizes=tuple(len(h) for h in game.holding),  # type: ignore[arg-type]
        bids=tuple(k.bids),
        bidder=k.bidder,
        bid=k.bid,
        trump=None if k.trump is None else SUITS[k.trump],
        picked_up=None if k.picked_up is None else tuple(ALL_CARDS[c] for c in k.picked_up),
        discards=None if k.discards is None else tuple(ALL_CARDS[c] for c in k.discards),
        num_discards=len(game.discards),
        tricks=tuple(TrickView(leader, tuple((s, ALL_CARDS[c]) for s, c in plays), winner) for leader, plays, winner in k.tricks),
        trick=tuple((s, ALL_CARDS[c]) for s, c in k.trick),
        leader=k.leader,
        voids=tuple("".join(SUITS[u] for u in range(4) if k.voids[s][u]) for s in range(4)),  # type: ignore[arg-type]
        legal_actions=tuple(game.legal_actions()) if k.to_act == seat and k.phase != Phase.GAME_OVER else (),
    )


def _feasible(counts: list[int], capacity: list[int], allowed: list[list[bool]]) -> bool:
    """Hall's condition for dealing ``counts[suit]`` cards into slots of ``capacity`` that allow them."""
    for subset in range(1, 16):
        demand = sum(counts[u] for u in range(4) if subset >> u & 1)
        supply = sum(cap for cap, ok in zip(capacity, allowed, strict=True) if any(ok[u] for u in range(4) if subset >> u & 1))
        if demand > supply:
            return False
    return True


def sample_game(view: SeatView, rng: np.random.Generator) -> Game:
    """A full game consistent with ``view``: the hidden cards dealt at random.

    Respects hand sizes, the cards played, the seat's own pick-up and discards, and
    the voids R11 revealed. Another bidder's discards are drawn from non-trump cards
    (a trump discard needs seven trumps, R10, which the sampler does not consider).
    Rejection sampling makes the deal uniform when it succeeds within a few tries;
    otherwise cards are dealt one by one into slots chosen in proportion to their
    free space, keeping Hall's condition so the deal never dead-ends.
    """
    if view.phase == Phase.GAME_OVER:
        raise ValueError("sample_game: the game is over; there is nothing to search")
    seat, bidder = view.seat, view.bidder
    trump = None if view.trump is None else SUITS.index(view.trump)
    bidding = view.phase == Phase.BID
    known = {CARD_INDEX[c] for c in view.hand}
    for t in view.tricks:
        known.update(CARD_INDEX[c] for _, c in t.plays)
    known.update(CARD_INDEX[c] for _, c in view.trick)
    if view.discards:
        known.update(CARD_INDEX[c] for c in view.discards)
    pool = [c for c in range(NUM_CARDS) if c not in known]
    # Slots: the other three hands, another bidder's discards, the kitty cards never picked up.
    others = [s for s in range(4) if s != seat]
    capacity = [view.hand_sizes[s] for s in others]
    allowed = [[SUITS[u] not in view.voids[s] for u in range(4)] for s in others]
    other_discards = 0 if bidder == seat or bidding else view.num_discards
    capacity.append(other_discards)
    allowed.append([u != trump for u in range(4)])
    kitty_rest = KITTY_CARDS if bidding else KITTY_CARDS - view.rules.kitty_size
    capacity.append(kitty_rest)
    allowed.append([True] * 4)
    if sum(capacity) != len(pool):
        raise ValueError(f"sample_game: inconsistent view ({len(pool)} hidden cards for {sum(capacity)} places)")

    slots: list[list[int]] | None = None
    for _ in range(20):
        order = [pool[i] for i in rng.permutation(len(pool))]
        slots, start = [], 0
        for cap in capacity:
            slots.append(order[start : start + cap])
            start += cap
        if all(allowed[j][c >> 3] for j, slot in enumerate(slots) for c in slot):
            break
        slots = None
    if slots is None:
        counts = [0] * 4
        for c in pool:
            counts[c >> 3] += 1
        if not _feasible(counts, capacity, allowed):
            raise ValueError("sample_game: no deal is consistent with this view")
        free = list(capacity)
        slots = [[] for _ in capacity]
        for i in rng.permutation(len(pool)):
            card = pool[i]
            suit = card >> 3
            counts[suit] -= 1
            candidates = [j for j in range(len(free)) if free[j] and allowed[j][suit]]
            weights = np.array([free[j] for j in candidates], dtype=float)
            for j in rng.choice(candidates, size=len(candidates), replace=False, p=weights / weights.sum()):
                free[j] -= 1
                if _feasible(counts, free, allowed):
                    slots[j].append(card)
                    break
                free[j] += 1

    game = Game.__new__(Game)
    game.rules = view.rules
    game.rng = np.random.default_rng(rng.integers(2**63))
    game.game_id = "sampled"
    game.scores = list(view.scores)
    game.hand_index = view.hand_index
    game.records = []
    game.winner = None
    game.truncated = False
    game.dealer = view.dealer
    holding = [[] for _ in range(4)]
    holding[seat] = [CARD_INDEX[c] for c in view.hand]
    for s, slot in zip(others, slots[:3], strict=True):
        holding[s] = slot
    game.holding = holding
    game.discards = [CARD_INDEX[c] for c in view.discards] if view.discards is not None else slots[3]
    game.kitty = list(slots[4])
    game.picked_up = [CARD_INDEX[c] for c in view.picked_up] if view.picked_up is not None else []
    # What each seat was dealt is not needed to play on from here.
    game.dealt = [list(h) for h in holding]
    game.bids = list(view.bids)
    game.high_bid = view.bid
    game.bidder = bidder
    game.trump = trump
    game.tricks = [(t.leader, [(s, CARD_INDEX[c]) for s, c in t.plays], t.winner) for t in view.tricks]
    game.trick = [(s, CARD_INDEX[c]) for s, c in view.trick]
    game.leader = view.leader
    game.voids = [[SUITS[u] in view.voids[s] for u in range(4)] for s in range(4)]
    game.phase = view.phase
    game._legal = None
    game.obs_cache = {}
    game.to_act = view.to_act
    return game


__all__ = ["CARD_INDEX", "Knowledge", "SeatView", "TrickView", "knowledge_of_view", "sample_game", "seat_knowledge", "seat_view"]
