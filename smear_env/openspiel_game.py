"""Smear as an OpenSpiel game: ``pyspiel.load_game("smear")`` once this module is imported.

    import pyspiel
    import smear_env.openspiel_game  # registers "smear" (pip install "smear-rl[openspiel]")

    game = pyspiel.load_game("smear(kitty_size=2,stick_the_dealer=true)")
    state = game.new_initial_state()

A thin adapter over the kit's rules engine (:class:`smear_env.Game`: no rule is written here): OpenSpiel
chooses the chance outcomes and the engine plays everything else.

* **Chance** is explicit: the first dealer (4 outcomes, R3), then each hand's deal card by card (32
  outcomes, each card of those left with the same chance: seat 0's six cards, seat 1's, ..., then the
  eight kitty cards in order, R4), again at every hand, a redeal included. A chance outcome is a card id
  (``smear_env.cards``) or, for the first dealer, a seat.
* **Actions** are the kit's 72 ids (``smear_env.actions``), named by ``smear_env.action_name``.
* **Returns** are the kit's ``reward="game"``: +1 to both partners of the team that wins the game, -1 to
  the other two, 0 to all on a game truncated by R16's hand limit (``max_hands``). OpenSpiel has no teams:
  the team reward is each player's own, so the game is zero-sum among four players; an algorithm that
  wants a team view adds partners itself.
* **Observation tensor** is the kit's observer (``smear_env.observe``, 427 floats, the same vector the
  PettingZoo env gives); the **information-state tensor** is the same vector: it holds what the seat saw in
  the hand (its own cards, every bid, the trump, the tricks in order as cards by seat, its discards) and
  the scores, which is all that bears on its decisions, though not the order of every past move. The
  **information-state string** is perfect recall: every finished hand as the seat saw it, then the hand
  in progress (the deal it was dealt, the bids, the trump, the kitty it picked up and its discards, each
  trick in order). While cards are being dealt the tensors are zeros.
* **Game parameters** are the rule settings (``smear_env.Rules``), ``defender_cap`` -1 for none.

A game played through this adapter writes the same hand records as the engine (``SmearState.records``),
so it is checked by ``smear-records --check`` and compared with ``smear_v0`` record for record.
``SmearState.resample_from_infostate`` draws the hidden cards consistently with a seat's view
(``smear_env.sample_game``), as OpenSpiel's IS-MCTS needs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from .actions import NUM_ACTIONS, action_name
from .cards import ALL_CARDS, card_str
from .game import Game, Phase, team_of
from .observer import OBS_DIM, observe
from .render import render_view
from .rules import Rules
from .view import sample_game as _sample_game
from .view import seat_view

NAME = "smear"
PLAYERS = 4
DECK = 32
HAND_CARDS = 6
DEFAULTS = Rules()
PARAMETERS: dict[str, Any] = {
    "kitty_size": DEFAULTS.kitty_size,
    "stick_the_dealer": DEFAULTS.stick_the_dealer,
    "high_low_in_play": DEFAULTS.high_low_in_play,
    "win_only_on_made_bid": DEFAULTS.win_only_on_made_bid,
    "defender_cap": -1,
    "target_score": DEFAULTS.target_score,
    "max_hands": DEFAULTS.max_hands,
    "one_hand": False,
}
"""The game's parameters and their defaults: the rule settings (``defender_cap`` -1: none), and ``one_hand``: the
game ends when its first hand is scored, each player's return its team's score margin in that hand / 8 (what a
search within one hand values, e.g. IS-MCTS as a kit agent)."""
MARGIN_SCALE = 8.0  # the widest margin of one hand: a set bid of 4 against 4 points taken

GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Four Point Northeastern Wisconsin Smear (smear-rl)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=PLAYERS,
    min_num_players=PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


def rules_of(params: dict[str, Any]) -> Rules:
    """The rule settings of a game's parameters (checked by :class:`smear_env.Rules`)."""
    values = {k: v for k, v in {**PARAMETERS, **params}.items() if k != "one_hand"}
    cap = values["defender_cap"]
    return Rules.from_dict({**values, "defender_cap": None if cap is None or cap < 0 else cap})


def game_info(rules: Rules, one_hand: bool = False) -> pyspiel.GameInfo:
    """Sizes and bounds of the game under ``rules``: a hand is at most 32 chance outcomes (the first hand's
    dealer one more), 4 bids, a trump, the discards and 24 cards; R16 caps the hands (``one_hand``: one,
    after any redeals)."""
    per_hand = DECK + 4 + 1 + rules.kitty_size + 4 * HAND_CARDS
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=DECK,
        num_players=PLAYERS,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=1 + rules.max_hands * per_hand,
    )


class _Finished(tuple):
    """The records of a game's finished hands: never changed once written, so a clone shares them (OpenSpiel
    clones a Python state by deep-copying its attributes, which made a clone's cost grow with the game)."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> _Finished:
        return self


class SmearGame(pyspiel.Game):
    """The OpenSpiel game (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.rules = rules_of(params or {})
        self.one_hand = bool((params or {}).get("one_hand", False))
        super().__init__(GAME_TYPE, game_info(self.rules, self.one_hand), params or {})

    def new_initial_state(self) -> SmearState:
        return SmearState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> SmearObserver:
        if params:
            raise ValueError(f"smear: observation parameters are not supported (got {params})")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return SmearObserver(perfect_recall)


class SmearState(pyspiel.State):
    """A game in progress: the engine's :class:`smear_env.Game` once the first deal is made, and the deal
    being drawn while cards are dealt."""

    def __init__(self, game: SmearGame) -> None:
        super().__init__(game)
        self.rules, self.one_hand = game.rules, game.one_hand
        self.kit: Game | None = None
        self.first_dealer: int | None = None
        self.drawn: list[int] = []  # the cards of the deal in progress, in the order dealt
        self.dealing = True
        self.past: list[list[str]] = [[] for _ in range(PLAYERS)]  # each seat's view of the finished hands
        self.finished = _Finished()  # the finished hands' records, moved out of the engine (shared by clones)

    # ------------------------------------------------------------------ OpenSpiel's state API
    def current_player(self) -> int:
        if self.kit is not None and self.kit.game_over:
            return pyspiel.PlayerId.TERMINAL
        if self.dealing:
            return pyspiel.PlayerId.CHANCE
        assert self.kit is not None
        return self.kit.to_act

    def _legal_actions(self, player: int) -> list[int]:
        assert self.kit is not None and player == self.kit.to_act
        return sorted(self.kit.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.dealing
        if self.first_dealer is None:
            return [(seat, 1.0 / PLAYERS) for seat in range(PLAYERS)]
        left = sorted(set(range(DECK)) - set(self.drawn))
        return [(card, 1.0 / len(left)) for card in left]

    def _apply_action(self, action: int) -> None:
        if self.dealing:
            if self.first_dealer is None:
                self.first_dealer = action
                return
            self.drawn.append(action)
            if len(self.drawn) == DECK:
                self._deal()
            return
        assert self.kit is not None
        self.kit.step(action)
        if self.kit.records:
            self._hand_over()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.first_dealer is None:
                return f"dealer: seat {action}"
            seat = len(self.drawn) // HAND_CARDS
            return f"deal {card_str(action)} to " + (f"seat {seat}" if seat < PLAYERS else "the kitty")
        return action_name(action)

    def is_terminal(self) -> bool:
        return self.kit is not None and self.kit.game_over

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * PLAYERS
        assert self.kit is not None
        if self.one_hand:
            record = next((r for r in reversed(self.finished) if not r["redeal"]), None)
            if record is None:  # every deal thrown in (R7) until R16's limit: no hand was scored, no margin
                return [0.0] * PLAYERS
            change = [after - before for before, after in zip(record["score_before"], record["score_after"], strict=True)]
            return [(change[team_of(s)] - change[1 - team_of(s)]) / MARGIN_SCALE for s in range(PLAYERS)]
        winner = self.kit.winner
        if winner is None:  # truncated by R16
            return [0.0] * PLAYERS
        return [1.0 if team_of(seat) == winner else -1.0 for seat in range(PLAYERS)]

    def __str__(self) -> str:
        if self.kit is None:
            return f"dealing the first hand: {len(self.drawn)} of {DECK} cards"
        if self.dealing:
            return f"hand {self.kit.hand_index}: dealing, {len(self.drawn)} of {DECK} cards; scores {self.kit.scores}"
        return render_view(seat_view(self.kit, self.kit.to_act), legal=False)

    # ------------------------------------------------------------------ the deals
    def _deal(self) -> None:
        """The 32 cards drawn: seat 0's six, ..., seat 3's, the kitty's eight; the hand begins."""
        hands = [self.drawn[HAND_CARDS * s : HAND_CARDS * (s + 1)] for s in range(PLAYERS)]
        kitty = self.drawn[PLAYERS * HAND_CARDS :]
        if self.kit is None:
            self.kit = Game(
                self.rules,
                rng=0,
                game_id="openspiel",
                dealer=self.first_dealer,
                deal=(hands, kitty),
                stop_after_hand=self.one_hand,
            )
        else:
            self.kit.start_hand(hands, kitty)  # the engine set the dealer, the scores and the hand's index
        self.drawn, self.dealing = [], False

    def _hand_over(self) -> None:
        """A hand was scored (or thrown in): each seat's view of it is kept; the next deal is drawn by chance."""
        assert self.kit is not None
        (record,) = self.kit.records
        self.kit.records = []
        self.finished = _Finished((*self.finished, record))
        for seat in range(PLAYERS):
            self.past[seat].append(_finished(record, seat))
        if not self.kit.game_over:
            self.dealing = True  # the engine drew a deal of its own: it is replaced, never seen

    # ------------------------------------------------------------------ what a seat knows
    @property
    def records(self) -> list[dict[str, Any]]:
        """The hand records of the finished hands (``smear-hand/1``, the engine's own)."""
        return list(self.finished)

    def seat_information(self, seat: int) -> str:
        """The seat's information state, perfect recall: the finished hands as it saw them, then this hand."""
        lines = list(self.past[seat])
        if self.kit is not None and not self.dealing and not self.kit.game_over:
            lines.append(_in_progress(self.kit, seat))
        elif self.dealing:
            lines.append(
                f"dealing ({len(self.drawn)} of {DECK} cards)" if self.first_dealer is not None else "first dealer to draw"
            )
        return "\n".join(lines)

    def seat_observation(self, seat: int) -> str:
        """What the seat sees now, as the kit's text table."""
        if self.kit is None or self.dealing:
            return f"seat {seat}: the cards are being dealt"
        return render_view(seat_view(self.kit, seat), legal=False)

    def seat_tensor(self, seat: int) -> np.ndarray:
        """The kit's observation of the seat (zeros while the cards are dealt)."""
        if self.kit is None or self.dealing:
            return np.zeros(OBS_DIM, dtype=np.float32)
        return observe(self.kit, seat)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> SmearState:
        """A state the seat cannot tell from this one: the hidden cards of the hand in progress drawn anew,
        consistently with everything it saw (``smear_env.sample_game``: the voids shown, the bidder's
        discards, the kitty); ``probability_sampler`` (OpenSpiel's, a callable of no argument giving a float
        in [0, 1)) seeds the draw. While cards are dealt nothing is hidden yet: a copy."""
        clone = self.clone()
        if self.kit is None or self.dealing or self.kit.game_over:
            return clone
        rng = np.random.default_rng(int(probability_sampler() * 2**63))
        sampled = _sample_game(seat_view(self.kit, player_id), rng)
        clone.kit = _with_hand(self.kit, sampled, player_id)
        return clone


def _with_hand(kit: Game, sampled: Game, seat: int) -> Game:
    """``kit`` with the hand in progress replaced by ``sampled``'s (its records, its game id and the six cards
    ``seat`` was dealt kept: the seat knows them, whatever it has played or discarded since)."""
    game = sampled.copy()
    game.records = list(kit.records)
    game.game_id, game.stop_after_hand = kit.game_id, kit.stop_after_hand
    game.dealt = [list(h) for h in game.dealt]
    game.dealt[seat] = list(kit.dealt[seat])
    return game


def _finished(record: dict[str, Any], seat: int) -> str:
    """A finished hand as ``seat`` saw it (its cards, the bids, the trump, the tricks, its own kitty and discards)."""
    head = f"hand {record['hand_index']} dealer {record['dealer']} scores {record['score_before']}: dealt {' '.join(record['hands'][seat])}"
    bids = " ".join(f"{s}:{b}" for s, b in record["bids"])
    if record["redeal"]:
        return f"{head}; bids {bids}; thrown in"
    mine = ""
    if record["bidder"] == seat:
        k = record["rules"]["kitty_size"]
        mine = f"; picked up {' '.join(record['kitty'][:k])}; discarded {' '.join(record['discards'])}"
    tricks = " / ".join(" ".join(f"{s}:{c}" for s, c in t["plays"]) for t in record["tricks"])
    return f"{head}; bids {bids}; trump {record['trump']}{mine}; tricks {tricks}; scores after {record['score_after']}"


def _in_progress(kit: Game, seat: int) -> str:
    """The hand in progress as ``seat`` saw it, move by move (what ``seat_view`` knows, with the deal it was dealt)."""
    view = seat_view(kit, seat)
    parts = [
        f"hand {view.hand_index} dealer {view.dealer} scores {list(view.scores)}: dealt {' '.join(ALL_CARDS[c] for c in kit.dealt[seat])}"
    ]
    parts.append("bids " + " ".join(f"{s}:{b}" for s, b in view.bids))
    if view.trump is not None:
        parts.append(f"trump {view.trump}")
    if view.picked_up is not None:
        parts.append(f"picked up {' '.join(view.picked_up)}; discarded {' '.join(view.discards or ())}")
    elif view.num_discards:
        parts.append(f"seat {view.bidder} discarded {view.num_discards}")
    if view.tricks or view.trick:
        done = [" ".join(f"{s}:{c}" for s, c in t.plays) for t in view.tricks]
        parts.append("tricks " + " / ".join([*done, " ".join(f"{s}:{c}" for s, c in view.trick)]))
    if view.phase != Phase.GAME_OVER:
        parts.append(f"to act {view.to_act}")
    return "; ".join(parts)


class SmearObserver:
    """OpenSpiel's py-observer: the kit's observation tensor (``dict["observation"]``) and, by the observation
    type, the seat's information-state string or its observation string."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(OBS_DIM, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: SmearState, player: int) -> None:
        self.tensor[:] = state.seat_tensor(player)

    def string_from(self, state: SmearState, player: int) -> str:
        return state.seat_information(player) if self.perfect_recall else state.seat_observation(player)


def register() -> None:
    """Make ``pyspiel.load_game("smear")`` load this game (done once, on import)."""
    if NAME not in pyspiel.registered_names():
        pyspiel.register_game(GAME_TYPE, SmearGame)


register()
