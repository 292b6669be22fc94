"""Smear as an RLCard environment: ``rlcard.make("smear")`` once this module is imported.

    import rlcard
    import smear_env.rlcard_env  # registers "smear" (pip install "smear-rl[rlcard]")

    env = rlcard.make("smear", config={"seed": 0, "game_kitty_size": 2})

A thin adapter over the kit's rules engine (:class:`smear_env.Game`; no rule is written here), in RLCard's
shape: a :class:`SmearRLCardGame` with ``init_game``, ``step``, ``get_state``, ``get_payoffs``, ... and the
:class:`SmearRLCardEnv` around it.

* The **state** of a seat: ``obs`` the kit's observation (427 floats, ``smear_env.observe``), ``legal_actions``
  the legal action ids (an ordered mapping, as RLCard's agents read it), ``raw_obs`` the seat's
  :class:`smear_env.SeatView`, ``raw_legal_actions`` their names (``smear_env.action_name``).
* **Actions** are the kit's 72 ids.
* **Episodes** (``game_episode``): ``"hand"`` (the default) is one hand, as ``smear_v0``'s
  ``episode="hand"`` (a thrown-in hand is redealt within it); ``"game"`` a whole game to ``target_score``.
* **Payoffs**: of a hand, its score margin (the kit's ``reward="margin"``): each seat gets its partnership's
  points of the hand less the other's, partners equal, opponents opposite; of a game, the kit's
  ``reward="game"``, +1 to both partners of the team that won it, -1 to the other two, 0 to all on a game
  truncated by R16. RLCard has no teams; the team's payoff is each seat's own.
* **Rule settings** are game config keys, ``game_`` and the setting's name (``game_kitty_size``,
  ``game_stick_the_dealer``, ...), checked by :class:`smear_env.Rules`.
* **Seeds**: ``config={"seed": S}`` deals the games of ``smear_v0`` reset with ``seed=S`` (the same cards,
  game for game), so a game played here equals the PettingZoo env's move for move, records included
  (``SmearRLCardGame.records``).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
from rlcard.envs import Env
from rlcard.envs.registration import register as _register
from rlcard.envs.registration import registry

from .actions import NUM_ACTIONS, action_name
from .cards import card_str
from .game import Game, game_label, game_rng, run_entropy, team_of
from .observer import OBS_DIM, observe
from .rules import Rules
from .view import seat_view

NAME = "smear"
PLAYERS = 4
EPISODES = ("hand", "game")
DEFAULT_GAME_CONFIG = {**{f"game_{name}": value for name, value in Rules().to_dict().items()}, "game_episode": "hand"}
"""The rule settings as RLCard game config keys (``game_kitty_size``: 3, ...), and ``game_episode``."""


class SmearRLCardGame:
    """RLCard's game object: one game of Smear on the kit's engine."""

    def __init__(self, rules: Rules | None = None, allow_step_back: bool = False) -> None:
        self.rules = rules or Rules()
        self.episode_mode = "hand"
        self.allow_step_back = allow_step_back
        self.np_random = np.random.RandomState()
        self.entropy: int | None = None  # the seed's entropy (smear_v0's), set by SmearRLCardEnv.seed
        self.episode = 0
        self.game: Game | None = None
        self.history: list[Game] = []

    def configure(self, config: dict[str, Any]) -> None:
        """The rule settings and the episode from RLCard's game config keys (a ValueError naming a bad one)."""
        episode = config.get("game_episode", "hand")
        if episode not in EPISODES:
            raise ValueError(f"game_episode={episode!r}: 'hand' (one hand, the default) or 'game' (a game to target_score)")
        self.episode_mode = episode
        settings = {k.removeprefix("game_"): v for k, v in config.items() if k in DEFAULT_GAME_CONFIG and k != "game_episode"}
        self.rules = Rules.from_dict(settings)

    def init_game(self) -> tuple[dict[str, Any], int]:
        """A new game, dealt as ``smear_v0`` deals its games for the same seed; the first seat's state and id."""
        if self.entropy is None:
            self.entropy = run_entropy(int(self.np_random.randint(2**31)))
        self.game = Game(
            self.rules,
            game_rng(self.entropy, 0, self.episode),
            game_id=game_label(self.entropy, 0, self.episode),
            stop_after_hand=self.episode_mode == "hand",
        )
        self.episode += 1
        self.history = []
        player = self.get_player_id()
        return self.get_state(player), player

    def step(self, action: int) -> tuple[dict[str, Any], int]:
        assert self.game is not None
        if self.allow_step_back:
            self.history.append(self.game.copy())
            self.history[-1].records = list(self.game.records)
        self.game.step(int(action))
        player = self.get_player_id()
        return self.get_state(player), player

    def step_back(self) -> bool:
        if not self.history:
            return False
        self.game = self.history.pop()
        return True

    def get_num_players(self) -> int:
        return PLAYERS

    @staticmethod
    def get_num_actions() -> int:
        return NUM_ACTIONS

    def get_player_id(self) -> int:
        assert self.game is not None
        return self.game.to_act

    def is_over(self) -> bool:
        return self.game is not None and self.game.game_over

    def get_legal_actions(self) -> list[int]:
        assert self.game is not None
        return [] if self.game.game_over else sorted(self.game.legal_actions())

    def get_state(self, player: int) -> dict[str, Any]:
        """What ``player`` may know (``seat_view``), its observation and its legal actions (none unless it is to act)."""
        assert self.game is not None
        view = seat_view(self.game, player)
        legal = list(view.legal_actions)
        return {
            "obs": observe(self.game, player),
            "legal_actions": legal,
            "raw_obs": view,
            "raw_legal_actions": [action_name(a) for a in legal],
        }

    def get_payoffs(self) -> list[float]:
        """Each seat's payoff once the episode is over (0 before): its team's margin of the hand, or +1/-1 for the game."""
        assert self.game is not None
        if self.episode_mode == "hand":
            scores = self.game.scores if self.game.game_over else (0, 0)  # a hand episode starts at 0 to 0
            return [float(scores[team_of(seat)] - scores[1 - team_of(seat)]) for seat in range(PLAYERS)]
        winner = self.game.winner
        if not self.game.game_over or winner is None:
            return [0.0] * PLAYERS
        return [1.0 if team_of(seat) == winner else -1.0 for seat in range(PLAYERS)]

    @property
    def records(self) -> list[dict[str, Any]]:
        """The hand records of the game's finished hands (``smear-hand/1``)."""
        return [] if self.game is None else self.game.records


class SmearRLCardEnv(Env):
    """RLCard's env (see the module docstring)."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.name = NAME
        self.default_game_config = DEFAULT_GAME_CONFIG
        self.game = SmearRLCardGame()
        self.game.configure({**DEFAULT_GAME_CONFIG, **config})
        super().__init__(config)
        self.state_shape = [[OBS_DIM] for _ in range(PLAYERS)]
        self.action_shape = [None for _ in range(PLAYERS)]

    def seed(self, seed: int | None = None) -> int | None:
        """RLCard's seeding, and the deals of ``smear_v0`` reset with ``seed`` (fresh ones for None)."""
        super().seed(seed)
        self.game.entropy = run_entropy(seed)
        self.game.episode = 0
        return seed

    def _extract_state(self, state: dict[str, Any]) -> dict[str, Any]:
        return {**state, "legal_actions": OrderedDict((a, None) for a in state["legal_actions"])}

    def _decode_action(self, action_id: int) -> int:
        return int(action_id)

    def _get_legal_actions(self) -> list[int]:
        return self.game.get_legal_actions()

    def get_payoffs(self) -> np.ndarray:
        return np.array(self.game.get_payoffs())

    def get_perfect_information(self) -> dict[str, Any]:
        """Every hand, the kitty, the bids, the trump and the scores (for debugging and full-information learners)."""
        game = self.game.game
        assert game is not None
        return {
            "hands": [[card_str(c) for c in hand] for hand in game.holding],
            "kitty": [card_str(c) for c in game.kitty],
            "bids": list(game.bids),
            "trump": game.trump,
            "scores": list(game.scores),
            "to_act": game.to_act,
        }


def register() -> None:
    """Make ``rlcard.make("smear")`` make this env (done once, on import)."""
    if NAME not in registry.env_specs:
        _register(env_id=NAME, entry_point=f"{__name__}:SmearRLCardEnv")


register()
