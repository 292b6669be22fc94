"""What one seat may know (docs/rules.md "Who knows what"), and deals consistent with it.

:func:`seat_knowledge` is the single function that decides what a seat knows;
the observation vector is encoded from its result only. :func:`seat_view` gives the
same knowledge as a readable dataclass with cards as strings, for non-neural agents.
:class:`DealSampler` (many deals of one view) and :func:`sample_game` (one) turn a view
back into full games, dealing the cards the seat cannot see uniformly at random among
the deals consistent with it, for determinized (PIMC) search.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from .cards import ALL_CARDS, NUM_CARDS, SUITS, suit_of
from .game import KITTY_CARDS, Game, Phase, team_of
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
        return team_of(self.seat)


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


class DealSampler:
    """Uniformly random full games consistent with one seat view (for PIMC: built once per
    decision, then :meth:`game` for each deal).

    The hidden cards go to five places: the other three hands, another bidder's
    discards and the kitty cards never picked up. Each place has a size and the suits
    it may take: a revealed void (R11) keeps a suit out of a hand, and another bidder's
    discards take no trump (a trump discard needs seven trumps, R10, which the sampler
    does not consider). Every deal meeting these constraints is equally likely.

    Places that take every suit are one group: shuffled cards fill it. For the others
    (a hand with a void, the discards), how many cards of each suit each gets is drawn
    in proportion to the number of deals with that split, counted once per view; the
    last such place takes a uniformly random choice of the cards it may take.
    """

    def __init__(self, view: SeatView, weights: np.ndarray | None = None) -> None:
        """``weights`` (optional, [32, 4]): how likely each card is to lie at the seat's left, partner,
        right, or out of play (the kitty left or another bidder's discards), e.g. a learned model's
        probabilities; deals are then drawn with probability proportional to the product of their
        cards' weights, still exactly consistent with the view (see :meth:`deal`)."""
        if view.phase == Phase.GAME_OVER:
            raise ValueError("sample_game: the game is over; there is nothing to search")
        self.view = view
        seat, bidder = view.seat, view.bidder
        self.trump = trump = None if view.trump is None else SUITS.index(view.trump)
        bidding = view.phase == Phase.BID
        known = {CARD_INDEX[c] for c in view.hand}
        for t in view.tricks:
            known.update(CARD_INDEX[c] for _, c in t.plays)
        known.update(CARD_INDEX[c] for _, c in view.trick)
        if view.discards:
            known.update(CARD_INDEX[c] for c in view.discards)
        self.pool = [c for c in range(NUM_CARDS) if c not in known]
        self.others = [s for s in range(4) if s != seat]
        capacity = [view.hand_sizes[s] for s in self.others]
        allowed = [tuple(SUITS[u] not in view.voids[s] for u in range(4)) for s in self.others]
        capacity.append(0 if bidder == seat or bidding else view.num_discards)
        allowed.append(tuple(u != trump for u in range(4)))
        capacity.append(KITTY_CARDS if bidding else KITTY_CARDS - view.rules.kitty_size)
        allowed.append((True,) * 4)
        if sum(capacity) != len(self.pool):
            raise ValueError(f"sample_game: inconsistent view ({len(self.pool)} hidden cards for {sum(capacity)} places)")
        self.capacity = capacity
        self.free = [j for j in range(5) if all(allowed[j])]
        # The constrained places, the one with the most ways to fill last (it is counted in closed form).
        self.constrained = sorted(
            (j for j in range(5) if capacity[j] and not all(allowed[j])),
            key=lambda j: math.comb(capacity[j] + sum(allowed[j]) - 1, capacity[j]),
        )
        self.allowed = allowed
        counts = tuple(sum(1 for c in self.pool if suit_of(c) == u) for u in range(4))
        self._hand = [CARD_INDEX[c] for c in view.hand]
        self._discards = None if view.discards is None else [CARD_INDEX[c] for c in view.discards]
        self._picked_up = [] if view.picked_up is None else [CARD_INDEX[c] for c in view.picked_up]
        self._tricks = [(t.leader, [(s, CARD_INDEX[c]) for s, c in t.plays], t.winner) for t in view.tricks]
        self._trick = [(s, CARD_INDEX[c]) for s, c in view.trick]
        self._voids = [[SUITS[u] in view.voids[s] for u in range(4)] for s in range(4)]
        # _choices[(k, left)]: the splits place k may take, with cumulative deal counts to draw from.
        self._choices: dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[int]]] = {}
        if self._count(0, counts) == 0:
            raise ValueError("sample_game: no deal is consistent with this view")
        self._weighted: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if weights is not None:
            self._weighted = self._weighted_table(np.asarray(weights, dtype=np.float64))

    def _weighted_table(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each hidden card's weight at each place (0 where the view forbids it) and the table of
        partition sums the weighted draw walks (:func:`_partition_sums`)."""
        if weights.shape != (NUM_CARDS, 4) or not np.all(np.isfinite(weights)) or (weights < 0).any():
            raise ValueError(f"DealSampler weights: a [32, 4] array of non-negative numbers, got shape {weights.shape}")
        column = [(s - self.view.seat) % 4 - 1 for s in self.others] + [3, 3]  # place -> left, partner, right, out
        pool = np.array(self.pool, dtype=np.int64)
        table = weights[pool][:, column]
        allowed = np.array([[self.allowed[j][suit_of(c)] for j in range(5)] for c in self.pool], dtype=bool)
        table = np.where(allowed, table, 0.0)
        capacity = np.array(self.capacity, dtype=np.int64)
        sums = _partition_sums(table, capacity)
        if not sums[0, _state_index(capacity, capacity)] > 0:
            raise ValueError("DealSampler weights: they give every deal consistent with the view weight 0")
        return table, capacity, sums

    def _count(self, k: int, left: tuple[int, ...]) -> int:
        """How many ways the constrained places k, k+1, ... can take cards, ``left[suit]`` of each suit
        still to place (the free places take the rest in a fixed number of ways)."""
        places = self.constrained
        if k == len(places):
            return 1
        cap, ok = self.capacity[places[k]], self.allowed[places[k]]
        if k == len(places) - 1:
            return math.comb(sum(n for n, fits in zip(left, ok, strict=True) if fits), cap)
        key = (k, left)
        if key not in self._choices:
            splits, cumulative, total = [], [], 0
            for split in _splits(cap, left, ok):
                ways = self._count(k + 1, tuple(n - x for n, x in zip(left, split, strict=True)))
                for n, x in zip(left, split, strict=True):
                    ways *= math.comb(n, x)
                if ways:
                    total += ways
                    splits.append(split)
                    cumulative.append(total)
            self._choices[key] = splits, cumulative
        cumulative = self._choices[key][1]
        return cumulative[-1] if cumulative else 0

    def deal(self, rng: np.random.Generator) -> list[list[int]]:
        """The hidden cards of one random deal, by place (the others' hands in seat order, another
        bidder's discards, the kitty cards never picked up): uniformly random among the deals
        consistent with the view, or with the given weights, in proportion to the product of each
        card's weight at its place."""
        if self._weighted is not None:
            return self._weighted_deal(rng)
        pool = self.pool
        by_suit: list[list[int]] = [[], [], [], []]
        for i in rng.permutation(len(pool)).tolist():
            by_suit[suit_of(pool[i])].append(pool[i])  # each suit in a random order
        places: list[list[int]] = [[] for _ in range(5)]
        left = tuple(len(cards) for cards in by_suit)
        for k, j in enumerate(self.constrained[:-1]):
            splits, cumulative = self._choices[(k, left)]  # counted by _count for every reachable split
            split = splits[min(bisect.bisect_right(cumulative, rng.random() * cumulative[-1]), len(splits) - 1)]
            for suit, x in enumerate(split):
                places[j].extend(by_suit[suit][:x])
                del by_suit[suit][:x]
            left = tuple(n - x for n, x in zip(left, split, strict=True))
        rest: list[int] = []
        if self.constrained:
            j = self.constrained[-1]
            fits = [c for suit in range(4) if self.allowed[j][suit] for c in by_suit[suit]]
            order = rng.permutation(len(fits)).tolist()
            places[j] = [fits[i] for i in order[: self.capacity[j]]]
            rest = [fits[i] for i in order[self.capacity[j] :]]
            rest += [c for suit in range(4) if not self.allowed[j][suit] for c in by_suit[suit]]
        else:
            rest = [c for cards in by_suit for c in cards]
        shuffled = [rest[i] for i in rng.permutation(len(rest)).tolist()]
        start = 0
        for j in self.free:
            places[j] = shuffled[start : start + self.capacity[j]]
            start += self.capacity[j]
        return places

    def _weighted_deal(self, rng: np.random.Generator) -> list[list[int]]:
        """One deal drawn with the weights (see :func:`_draw_places`), by place."""
        assert self._weighted is not None
        table, capacity, sums = self._weighted
        choice = _draw_places(table, capacity, sums, rng.random(len(self.pool)))
        places: list[list[int]] = [[] for _ in range(5)]
        for card, place in zip(self.pool, choice.tolist(), strict=True):
            places[place].append(card)
        rng.shuffle(places[4])  # the kitty's order decides a future bidder's pick-up: random
        return places

    def game(self, rng: np.random.Generator) -> Game:
        """A full game consistent with the view, the hidden cards dealt uniformly at random.
        Played on past this hand, it deals from ``rng``."""
        view = self.view
        places = self.deal(rng)
        holding: list[list[int]] = [[], [], [], []]
        holding[view.seat] = list(self._hand)
        for s, place in zip(self.others, places[:3], strict=True):
            holding[s] = place
        return Game.from_state(
            view.rules,
            phase=view.phase,
            to_act=view.to_act,
            dealer=view.dealer,
            dealt=holding,  # what each seat was dealt is not needed to play on
            holding=holding,
            kitty=places[4],
            bids=view.bids,
            trump=self.trump,
            picked_up=self._picked_up,
            discards=self._discards if self._discards is not None else places[3],
            tricks=self._tricks,
            trick=self._trick,
            leader=view.leader,
            voids=self._voids,
            scores=view.scores,
            hand_index=view.hand_index,
            game_id="sampled",
            rng=rng,
        )


@njit(cache=True)
def _state_index(left, capacity):
    """The index of a state of the weighted draw: how much room places 0-3 have left (place 4, the
    kitty, takes what remains)."""
    index = 0
    for j in range(4):
        index = index * (capacity[j] + 1) + left[j]
    return index


@njit(cache=True)
def _partition_sums(weights, capacity):
    """sums[i, state]: the total weight of placing hidden cards i, i+1, ... with ``state``'s room
    left (the product of each card's weight at its place, summed over every way)."""
    n = weights.shape[0]
    size = (capacity[0] + 1) * (capacity[1] + 1) * (capacity[2] + 1) * (capacity[3] + 1)
    stride = np.ones(4, dtype=np.int64)
    for j in range(2, -1, -1):
        stride[j] = stride[j + 1] * (capacity[j + 1] + 1)
    sums = np.zeros((n + 1, size))
    sums[n, 0] = 1.0
    left = np.zeros(4, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        for state in range(size):
            rest = state
            for j in range(3, -1, -1):
                left[j] = rest % (capacity[j] + 1)
                rest //= capacity[j] + 1
            kitty = (n - i) - left[0] - left[1] - left[2] - left[3]
            if kitty < 0 or kitty > capacity[4]:
                continue
            total = 0.0
            for j in range(4):
                if left[j] > 0 and weights[i, j] > 0:
                    total += weights[i, j] * sums[i + 1, state - stride[j]]
            if kitty > 0 and weights[i, 4] > 0:
                total += weights[i, 4] * sums[i + 1, state]
            sums[i, state] = total
    return sums


@njit(cache=True)
def _draw_places(weights, capacity, sums, uniforms):
    """A place for each hidden card, drawn card by card in proportion to its weight there times the
    weight of every way to place the rest."""
    n = weights.shape[0]
    stride = np.ones(4, dtype=np.int64)
    for j in range(2, -1, -1):
        stride[j] = stride[j + 1] * (capacity[j + 1] + 1)
    state = _state_index(capacity, capacity)
    left = capacity[:4].copy()
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        kitty = (n - i) - left[0] - left[1] - left[2] - left[3]
        target = uniforms[i] * sums[i, state]
        place = -1
        for j in range(5):
            if j < 4:
                if left[j] == 0 or weights[i, j] == 0:
                    continue
                part = weights[i, j] * sums[i + 1, state - stride[j]]
            else:
                if kitty == 0 or weights[i, 4] == 0:
                    continue
                part = weights[i, 4] * sums[i + 1, state]
            place = j
            if target < part:
                break
            target -= part
        out[i] = place
        if place < 4:
            left[place] -= 1
            state -= stride[place]
    return out


def _splits(n: int, left: tuple[int, ...], ok: tuple[bool, ...]):
    """Every way to take n cards by suit, at most ``left[suit]`` of a suit and none of a suit not ok."""
    if len(left) == 1:
        if n <= left[0] and (ok[0] or n == 0):
            yield (n,)
        return
    for x in range(min(n, left[0]) if ok[0] else 0, -1, -1):
        for rest in _splits(n - x, left[1:], ok[1:]):
            yield (x, *rest)


def sample_game(view: SeatView, rng: np.random.Generator) -> Game:
    """A full game consistent with ``view``, the hidden cards dealt uniformly at random
    (see :class:`DealSampler`; build one to draw many deals of the same view)."""
    return DealSampler(view).game(rng)


__all__ = [
    "CARD_INDEX",
    "DealSampler",
    "Knowledge",
    "SeatView",
    "TrickView",
    "knowledge_of_view",
    "sample_game",
    "seat_knowledge",
    "seat_view",
]
