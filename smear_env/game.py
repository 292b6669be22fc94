"""The Smear rules engine: one game to the target score, one action at a time.

Plain Python (numpy only for the random generator). Every rule of docs/rules.md lives
here; the PettingZoo env, the batched engine's parity test, the record checker and
the search agents all drive this class. Actions are the ids of ``smear_env.actions``.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import numpy as np

from .actions import (
    BID_BASE,
    DISCARD_BASE,
    MAX_BID,
    MIN_BID,
    NUM_ACTIONS,
    PASS,
    PLAY_BASE,
    TRUMP_BASE,
    action_name,
    bid_action,
)
from .cards import ACE, ALL_CARDS, GAME_COUNT, JACK, NUM_CARDS, SEVEN, SUITS, rank_of, suit_of
from .rules import Rules

HAND_SIZE = 6
KITTY_CARDS = 8
TRICKS_PER_HAND = 6
SCHEMA = "smear-hand/1"
_INT8 = np.dtype(np.int8)


class Phase(IntEnum):
    """Where a hand is: whose turn means what."""

    BID = 0
    TRUMP = 1
    DISCARD = 2
    PLAY = 3
    GAME_OVER = 4


class IllegalActionError(ValueError):
    """An action that the rules do not allow now; the game is left unchanged."""


def team_of(seat: int) -> int:
    """R2: seats 0 and 2 are team 0, seats 1 and 3 team 1."""
    return seat & 1


def trick_winner(plays: list[tuple[int, int]], trump: int) -> int:
    """R12: the seat whose card wins a trick of (seat, card) plays."""
    led = suit_of(plays[0][1])
    best_seat, best_card = plays[0]
    for seat, card in plays[1:]:
        suit, best_suit = suit_of(card), suit_of(best_card)
        if suit == best_suit:
            if card > best_card:
                best_seat, best_card = seat, card
        elif suit == trump or (best_suit != trump and suit == led):
            best_seat, best_card = seat, card
    return best_seat


def fold_high_low(high: tuple[int, int] | None, low: tuple[int, int] | None, card: int, seat: int, in_play: bool):
    """R13a/b (R13v): fold one played trump into the High and Low seen so far, each (card, seat) or None.

    With ``high_low_in_play`` they are the highest and lowest trump played; otherwise only the
    ace and the seven of trump count."""
    if in_play:
        if high is None or card > high[0]:
            high = (card, seat)
        if low is None or card < low[0]:
            low = (card, seat)
    elif rank_of(card) == ACE:
        high = (card, seat)
    elif rank_of(card) == SEVEN:
        low = (card, seat)
    return high, low


def game_count_of(cards: list[int] | tuple[int, ...]) -> int:
    """R13d: the game-count of some cards: A=4, K=3, Q=2, J=1, 10=10, the rest 0."""
    return sum(GAME_COUNT[c] for c in cards)


class Tally:
    """R13 as the tricks come in: the engine's one account of a hand's points so far.

    High and Low go to the team that played the card (R13a/b, R13v), Jack to the team that
    won the trick holding it (R13c), Game to the team with more game-count in its won cards,
    nobody on a tie (R13d); a point whose card was not played goes to nobody."""

    __slots__ = ("trump", "in_play", "high", "low", "jack_team", "won", "game_count")

    def __init__(self, trump: int, high_low_in_play: bool) -> None:
        self.trump, self.in_play = trump, high_low_in_play
        self.high: tuple[int, int] | None = None  # (card, seat)
        self.low: tuple[int, int] | None = None
        self.jack_team: int | None = None
        self.won = [0, 0]  # tricks won by team
        self.game_count = [0, 0]  # game-count of the cards each team won

    def copy(self) -> Tally:
        other = Tally(self.trump, self.in_play)
        other.high, other.low, other.jack_team = self.high, self.low, self.jack_team
        other.won, other.game_count = list(self.won), list(self.game_count)
        return other

    def add_cards(self, plays: list[tuple[int, int]] | tuple) -> None:
        """(seat, card) plays of a trick still in progress: they can take High and Low already."""
        for seat, card in plays:
            if suit_of(card) == self.trump:
                self.high, self.low = fold_high_low(self.high, self.low, card, seat, self.in_play)

    def add_trick(self, plays: list[tuple[int, int]], winner: int) -> None:
        """A completed trick and the seat that won it."""
        team = team_of(winner)
        self.won[team] += 1
        self.add_cards(plays)
        for _, card in plays:
            self.game_count[team] += GAME_COUNT[card]
            if card == self.trump * 8 + JACK:
                self.jack_team = team

    def points(self) -> dict[str, int | None]:
        """{"high", "low", "jack", "game"} -> the team that has it now, or None."""
        count = self.game_count
        return {
            "high": None if self.high is None else team_of(self.high[1]),
            "low": None if self.low is None else team_of(self.low[1]),
            "jack": self.jack_team,
            "game": None if count[0] == count[1] else int(count[1] > count[0]),
        }


def tally(
    rules: Rules,
    trump: int,
    tricks: list[tuple[int, list[tuple[int, int]], int]],
    trick: list[tuple[int, int]] | tuple = (),
    bidder: int | None = None,
    discards: list[int] | tuple = (),
) -> tuple[dict[str, int | None], list[int]]:
    """R13: the four points as they stand after ``tricks`` (leader, plays, winner) and the cards of the
    ``trick`` in progress, and each team's game-count, the ``bidder``'s ``discards`` included (a
    :class:`Tally`). Returns ({"high", "low", "jack", "game"} -> team or None, [team 0, team 1])."""
    account = Tally(trump, rules.high_low_in_play)
    for _, plays, winner in tricks:
        account.add_trick(plays, winner)
    account.add_cards(trick)
    if bidder is not None:
        account.game_count[team_of(bidder)] += game_count_of(discards)
    return account.points(), account.game_count


def score_hand(
    rules: Rules,
    trump: int,
    tricks: list[tuple[int, list[tuple[int, int]], int]],
    bidder: int,
    discards: list[int],
) -> tuple[dict[str, int | None], list[int]]:
    """R13: the four points of a played hand and each team's game-count (:func:`tally` of its six tricks)."""
    return tally(rules, trump, tricks, (), bidder, discards)


def hand_record(
    *,
    game_id: str,
    hand_index: int,
    rules: Rules,
    dealer: int,
    dealt: list[list[int]],
    kitty: list[int],
    bids: list[tuple[int, int]],
    bidder: int | None,
    bid: int,
    trump: int | None,
    discards: list[int],
    tricks: list[tuple[int, list[tuple[int, int]], int]],
    points: dict[str, int | None] | None,
    game_count: list[int] | None,
    hand_points: list[int] | None,
    made_bid: bool | None,
    score_before: list[int],
    score_after: list[int],
    winner: int | None,
) -> dict[str, Any]:
    """A docs/records.md hand record (``bidder`` None: an all-pass redeal) from the engine's integers."""
    record: dict[str, Any] = {
        "schema": SCHEMA,
        "game_id": game_id,
        "hand_index": hand_index,
        "rules": rules.to_dict(),  # a fresh dict per record: records may be edited
        "dealer": dealer,
        "hands": [[ALL_CARDS[c] for c in h] for h in dealt],
        "kitty": [ALL_CARDS[c] for c in kitty],
        "bids": [[s, b] for s, b in bids],
        "redeal": bidder is None,
    }
    played = bidder is not None
    record.update(
        bidder=bidder,
        bid=bid if played else None,
        trump=SUITS[trump] if played and trump is not None else None,
        discards=[ALL_CARDS[c] for c in discards] if played else None,
        tricks=[
            {"leader": leader, "plays": [[s, ALL_CARDS[c]] for s, c in plays], "winner": won_by}
            for leader, plays, won_by in tricks
        ]
        if played
        else None,
        points=points,
        game_count=game_count,
        hand_points=hand_points,
        made_bid=made_bid,
        score_before=score_before,
        score_after=score_after,
        game_over=winner is not None,
        winner=winner,
    )
    return record


def run_entropy(seed: int | None) -> int:
    """The entropy of a run seeded ``seed`` (fresh entropy for None): what :func:`game_rng` draws games from."""
    entropy = np.random.SeedSequence(seed).entropy
    assert isinstance(entropy, int)
    return entropy


def game_rng(entropy: int, slot: int = 0, episode: int = 0) -> np.random.Generator:
    """The random generator of one game: game ``episode`` of slot ``slot`` in a run seeded ``entropy``.

    Every engine seeds its games this way, so the same (seed, slot, episode) deals
    the same cards in the PettingZoo env, the batched engine and the commands.
    """
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(slot, episode)))


def game_label(entropy: int, slot: int = 0, episode: int = 0) -> str:
    """The ``game_id`` of the game :func:`game_rng` seeds: ``{entropy:x}-{slot}-{episode}``."""
    return f"{entropy:x}-{slot}-{episode}"


def draw_deck(rng: np.random.Generator) -> list[int]:
    """R4: a shuffled deck, the order of 32 uniform draws (batched engines draw many rows at once)."""
    return np.argsort(rng.random(NUM_CARDS), kind="stable").tolist()


def split_deck(deck: list[int]) -> tuple[list[list[int]], list[int]]:
    """R4: six cards to each seat in turn of the deck, the last eight to the kitty."""
    return [deck[6 * s : 6 * s + 6] for s in range(4)], deck[24:]


def _generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator or an int seed, not {type(rng).__name__}")
    return rng


def highest_bid(bids: list[tuple[int, int]]) -> tuple[int, int | None]:
    """R6: the highest bid of the (seat, bid) turns so far and who made it; (0, None) while all passed."""
    bid, bidder = 0, None
    for seat, b in bids:
        if b > bid:
            bid, bidder = b, seat
    return bid, bidder


def shows_void(led: int, card: int, trump: int | None) -> bool:
    """R11: following ``led`` with ``card``, neither of the suit led nor a trump, shows no card of the
    suit led (when trump was led: no trump). Trumping reveals nothing: it is allowed while holding it."""
    return suit_of(card) != suit_of(led) and suit_of(card) != trump


class Game:
    """One game of Smear to ``rules.target_score``.

    Chance comes only from the ``numpy.random.Generator`` given (or made from an int
    seed), so a game replays exactly from (rules, seed, actions). Finished hands are
    kept as docs/records.md hand records in ``records``.
    """

    def __init__(
        self,
        rules: Rules | None = None,
        rng: np.random.Generator | int | None = None,
        game_id: str = "game",
        dealer: int | None = None,
        *,
        deal: tuple[list[list[int]], list[int]] | None = None,
        scores: tuple[int, int] | list[int] = (0, 0),
        hand_index: int = 0,
        stop_after_hand: bool = False,
    ) -> None:
        """A new game: the first dealer drawn from ``rng`` unless given (R3), the first hand dealt
        from ``rng`` unless ``deal`` (hands by seat, kitty) is given. ``stop_after_hand`` ends the
        game after its first scored hand (one-hand episodes: the table stays as the hand ended)."""
        self.rules = rules if rules is not None else Rules()
        if not isinstance(self.rules, Rules):
            raise TypeError(f"rules must be a smear_env.Rules, not {type(self.rules).__name__}")
        self.rng = _generator(rng)
        self.game_id = game_id
        self.scores = list(scores)
        self.hand_index = hand_index
        self.records: list[dict[str, Any]] = []
        self.winner: int | None = None
        self.truncated = False
        self.stop_after_hand = stop_after_hand
        # R3: the first dealer is drawn from the game's seed.
        self.dealer = int(self.rng.integers(4)) if dealer is None else dealer
        self.start_hand(*(deal if deal is not None else split_deck(draw_deck(self.rng))))

    @classmethod
    def at_hand(
        cls,
        rules: Rules,
        dealer: int,
        hands: list[list[int]],
        kitty: list[int],
        scores: tuple[int, int] | list[int] = (0, 0),
        hand_index: int = 0,
        game_id: str = "game",
        rng: np.random.Generator | int | None = None,
    ) -> Game:
        """A game positioned at the start of a given deal (for replaying records)."""
        return cls(rules, rng, game_id, dealer, deal=(hands, kitty), scores=scores, hand_index=hand_index)

    @classmethod
    def from_state(
        cls,
        rules: Rules,
        *,
        phase: Phase,
        to_act: int,
        dealer: int,
        dealt: list[list[int]],
        holding: list[list[int]],
        kitty: list[int],
        bids: list[tuple[int, int]] | tuple = (),
        trump: int | None = None,
        picked_up: list[int] | tuple = (),
        discards: list[int] | tuple = (),
        tricks: list[tuple[int, list[tuple[int, int]], int]] | tuple = (),
        trick: list[tuple[int, int]] | tuple = (),
        leader: int | None = None,
        voids: list[list[bool]] | None = None,
        scores: tuple[int, int] | list[int] = (0, 0),
        hand_index: int = 0,
        game_id: str = "game",
        rng: np.random.Generator | int | None = None,
        winner: int | None = None,
        truncated: bool = False,
        stop_after_hand: bool = False,
    ) -> Game:
        """A game at any point of a hand, from its whole state: the one way to build a game other than
        dealing one (copies, deals sampled for search, snapshots of the batched engine).

        The highest of ``bids`` makes the bidder; ``voids`` (by seat, by suit) default to what the
        plays revealed (R11). Lists are copied; ``records`` start empty."""
        game = cls.__new__(cls)
        game.rules = rules
        game.rng = _generator(rng)
        game.game_id = game_id
        game.scores = list(scores)
        game.hand_index = hand_index
        game.records = []
        game.winner = winner
        game.truncated = truncated
        game.stop_after_hand = stop_after_hand
        game.dealer = dealer
        game.dealt = [list(h) for h in dealt]
        game.holding = [list(h) for h in holding]
        game.kitty = list(kitty)
        game.bids = list(bids)
        game.high_bid, game.bidder = highest_bid(game.bids)
        game.trump = trump
        game.picked_up = list(picked_up)
        game.discards = list(discards)
        game.tricks = [(first, list(plays), won_by) for first, plays, won_by in tricks]
        game.trick = list(trick)
        game.leader = leader
        if voids is None:
            voids = [[False] * 4 for _ in range(4)]
            for plays in [p for _, p, _ in game.tricks] + [game.trick]:
                for seat, card in plays[1:]:
                    if shows_void(plays[0][1], card, trump):
                        voids[seat][suit_of(plays[0][1])] = True
        game.voids = [list(v) for v in voids]
        game.phase = phase
        game.to_act = to_act
        game._legal = None
        return game

    # ------------------------------------------------------------------ setup
    def start_hand(self, hands: list[list[int]], kitty: list[int]) -> None:
        """R4: begin a hand with the given deal (6 cards a seat, 8 in the kitty)."""
        self.dealt = [list(h) for h in hands]
        self.holding = [list(h) for h in hands]
        self.kitty = list(kitty)
        self.bids: list[tuple[int, int]] = []
        self.high_bid = 0
        self.bidder: int | None = None
        self.trump: int | None = None
        self.picked_up: list[int] = []
        self.discards: list[int] = []
        self.tricks: list[tuple[int, list[tuple[int, int]], int]] = []
        self.trick: list[tuple[int, int]] = []
        self.leader: int | None = None
        self.voids = [[False] * 4 for _ in range(4)]
        self.phase = Phase.BID
        self._legal: list[int] | None = None
        # R6: bidding starts left of the dealer.
        self.to_act = (self.dealer + 1) % 4

    def copy(self) -> Game:
        """An independent copy to search from, its random generator in the same state (``records`` start empty)."""
        bit_generator = type(self.rng.bit_generator)()
        bit_generator.state = self.rng.bit_generator.state
        return Game.from_state(
            self.rules,
            phase=self.phase,
            to_act=self.to_act,
            dealer=self.dealer,
            dealt=self.dealt,
            holding=self.holding,
            kitty=self.kitty,
            bids=self.bids,
            trump=self.trump,
            picked_up=self.picked_up,
            discards=self.discards,
            tricks=self.tricks,
            trick=self.trick,
            leader=self.leader,
            voids=self.voids,
            scores=self.scores,
            hand_index=self.hand_index,
            game_id=self.game_id,
            rng=np.random.Generator(bit_generator),
            winner=self.winner,
            truncated=self.truncated,
            stop_after_hand=self.stop_after_hand,
        )

    # ------------------------------------------------------------------ queries
    @property
    def game_over(self) -> bool:
        """True once the game has a winner (R15), was truncated (R16) or, with ``stop_after_hand``, scored its hand."""
        return self.phase == Phase.GAME_OVER

    def legal_actions(self) -> list[int]:
        """The action ids the player to act may take now, ascending (do not mutate the list)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase == Phase.PLAY:
            return [PLAY_BASE + c for c in sorted(self.legal_cards())]
        if phase == Phase.BID:
            actions = [bid_action(b) for b in range(max(MIN_BID, self.high_bid + 1), MAX_BID + 1)]
            stuck = self.rules.stick_the_dealer and self.to_act == self.dealer and self.high_bid == 0
            return actions if stuck else [PASS] + actions
        if phase == Phase.TRUMP:
            return [TRUMP_BASE + s for s in sorted({suit_of(c) for c in self.holding[self.to_act]})]
        if phase == Phase.DISCARD:
            hand = self.holding[self.to_act]
            trump = self.trump
            # R10: a trump may go only while the hand holds more than 6 trumps.
            trump_ok = sum(1 for c in hand if suit_of(c) == trump) > HAND_SIZE
            return [DISCARD_BASE + c for c in sorted(hand) if trump_ok or suit_of(c) != trump]
        return []

    def legal_cards(self) -> list[int]:
        """R11: the cards the player to act may play to the trick."""
        hand = self.holding[self.to_act]
        trump = self.trump
        if not self.trick:
            if not self.tricks:
                # R9: the bidder's first lead is a trump.
                return [c for c in hand if suit_of(c) == trump]
            return list(hand)
        led = suit_of(self.trick[0][1])
        suits = [suit_of(c) for c in hand]
        if led in suits:
            return [c for c, suit in zip(hand, suits, strict=True) if suit in (led, trump)]
        return list(hand)

    def action_mask(self) -> np.ndarray:
        """The legal actions as an int8 vector of length NUM_ACTIONS."""
        mask = bytearray(NUM_ACTIONS)  # set byte by byte: half the cost of numpy fancy indexing
        for action in self.legal_actions():
            mask[action] = 1
        return np.frombuffer(mask, _INT8)

    # ------------------------------------------------------------------ play
    def step(self, action: int) -> None:
        """Apply one action of the player to act; raises IllegalActionError (game unchanged) if not legal."""
        legal = self.legal_actions()
        if action not in legal or isinstance(action, bool):
            raise IllegalActionError(
                f"seat {self.to_act} cannot take action {action!r}"
                f"{' (' + action_name(action) + ')' if isinstance(action, (int, np.integer)) and 0 <= action < NUM_ACTIONS else ''}"
                f" in phase {self.phase.name}: legal are {[f'{a} ({action_name(a)})' for a in legal]}"
            )
        action = int(action)
        self._legal = None
        phase = self.phase
        if phase == Phase.BID:
            self._bid(0 if action == PASS else action - BID_BASE + MIN_BID)
        elif phase == Phase.TRUMP:
            self.trump = action - TRUMP_BASE
            self.phase = Phase.DISCARD if len(self.holding[self.to_act]) > HAND_SIZE else Phase.PLAY
        elif phase == Phase.DISCARD:
            card = action - DISCARD_BASE
            self.holding[self.to_act].remove(card)
            self.discards.append(card)
            if len(self.holding[self.to_act]) == HAND_SIZE:
                self.phase = Phase.PLAY
        else:
            self._play(action - PLAY_BASE)

    def _bid(self, bid: int) -> None:
        seat = self.to_act
        self.bids.append((seat, bid))
        self.high_bid, self.bidder = highest_bid(self.bids)
        # R7: bidding ends after the dealer's turn or at once on a bid of 4.
        if seat != self.dealer and bid != MAX_BID:
            self.to_act = (seat + 1) % 4
            return
        if self.bidder is None:
            # R7: all passed: thrown in, redealt by the same dealer.
            self._finish_hand(redeal=True)
            return
        # R8: the bidder picks up the first k kitty cards.
        k = self.rules.kitty_size
        self.picked_up = self.kitty[:k]
        self.holding[self.bidder].extend(self.picked_up)
        self.to_act = self.bidder
        self.leader = self.bidder
        self.phase = Phase.TRUMP

    def _play(self, card: int) -> None:
        seat = self.to_act
        self.holding[seat].remove(card)
        if self.trick:
            led = self.trick[0][1]
            if shows_void(led, card, self.trump):
                # docs/rules.md's "has none of either" goes further than R11 allows: a player out of the
                # suit led may throw any card while holding trumps.
                self.voids[seat][suit_of(led)] = True
        else:
            self.leader = seat
        self.trick.append((seat, card))
        if len(self.trick) < 4:
            self.to_act = (seat + 1) % 4
            return
        assert self.trump is not None  # declared before the first lead (R9)
        winner = trick_winner(self.trick, self.trump)
        self.tricks.append((self.trick[0][0], self.trick, winner))
        self.trick = []
        self.to_act = winner
        self.leader = winner
        if len(self.tricks) == TRICKS_PER_HAND:
            self._finish_hand(redeal=False)

    def _finish_hand(self, redeal: bool) -> None:
        rules = self.rules
        score_before = list(self.scores)
        if redeal:
            points, game_count, hand_points, made = None, None, None, None
        else:
            bidder, bid = self.bidder, self.high_bid
            assert bidder is not None and self.trump is not None
            points, game_count = score_hand(rules, self.trump, self.tricks, bidder, self.discards)
            hand_points = [sum(1 for t in points.values() if t == team) for team in (0, 1)]
            bid_team = team_of(bidder)
            made = hand_points[bid_team] >= bid
            # R14: made: add all points taken; set: subtract the bid. Defenders always add.
            self.scores[bid_team] += hand_points[bid_team] if made else -bid
            self.scores[1 - bid_team] += hand_points[1 - bid_team]
            if rules.defender_cap is not None:
                # R15v-b: the non-bidding team's score is capped.
                self.scores[1 - bid_team] = min(self.scores[1 - bid_team], rules.defender_cap)
            target = rules.target_score
            if rules.win_only_on_made_bid:
                # R15v-a: only the bidder's team, having made its bid, can win.
                if made and self.scores[bid_team] >= target:
                    self.winner = bid_team
            elif self.scores[bid_team] >= target:
                # R15: both over the target: the bidder's team wins.
                self.winner = bid_team
            elif self.scores[1 - bid_team] >= target:
                self.winner = 1 - bid_team
        record = hand_record(
            game_id=self.game_id,
            hand_index=self.hand_index,
            rules=rules,
            dealer=self.dealer,
            dealt=self.dealt,
            kitty=self.kitty,
            bids=self.bids,
            bidder=None if redeal else self.bidder,
            bid=self.high_bid,
            trump=self.trump,
            discards=self.discards,
            tricks=self.tricks,
            points=points,
            game_count=game_count,
            hand_points=hand_points,
            made_bid=made,
            score_before=score_before,
            score_after=list(self.scores),
            winner=self.winner,
        )
        self.records.append(record)
        self.hand_index += 1
        if self.winner is not None or (self.stop_after_hand and not redeal):
            self.phase = Phase.GAME_OVER  # won, or a one-hand game: the table stays as the hand ended
            return
        if self.hand_index >= rules.max_hands:
            # R16: too many hands without a winner: the game is truncated.
            self.truncated = True
            self.phase = Phase.GAME_OVER
            return
        if not redeal:
            # R3: the deal passes left after a scored hand.
            self.dealer = (self.dealer + 1) % 4
        self.start_hand(*split_deck(draw_deck(self.rng)))
