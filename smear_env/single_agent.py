"""A Gymnasium single-agent view of Smear: one seat learns, the other three are agents.

``SmearSingleAgentEnv(seat=0, partner=..., opponents=...)`` is a ``gymnasium.Env`` whose
observation is the learning seat's ``smear_v0`` observation vector and whose action space
is the same ``Discrete(72)``; ``action_masks()`` gives the legal actions (the interface
``sb3_contrib.MaskablePPO`` reads) and ``info`` carries ``action_mask`` too. The other seats
act inside ``step`` until it is the learner's turn again. ``partner`` and ``opponents``
are agent objects (anything with ``act(observation, action_mask, seat_view)``, such as an
``agents.Agent``): the rules package loads no agents. ``agents.single_agent_env(partner="heuristic",
opponents="random", ...)`` builds this env from agent spec strings.

Rewards are the learner team's, as in ``smear_v0`` (``reward=`` game, hand or margin); an
episode is a game or a hand (``episode=``; a one-hand episode ends on the finished hand).
As PettingZoo's classic envs do, an illegal action ends the episode with reward -1 by
default (``illegal_action="terminate"``: what ``gymnasium.utils.env_checker.check_env``'s
unmasked samples need); ``illegal_action="raise"`` raises ``smear_env.IllegalActionError``
instead. A ``step`` after the episode ended raises; call ``reset()``.
"""

from __future__ import annotations

from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from .actions import NUM_ACTIONS
from .core import team_reward
from .game import Game, game_label, game_rng, run_entropy, team_of
from .observer import OBS_DIM, observe
from .rules import REWARDS, Rules, check_episode_settings, rules_of
from .view import SeatView, seat_view


class Player(Protocol):
    """What the env needs of the other seats' agents (``agents.Agent`` is one)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> int: ...


class SmearSingleAgentEnv(gym.Env):
    """One learning seat against agents (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        seat: int,
        partner: Player,
        opponents: Player,
        episode: str = "game",
        reward: str = "margin",
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        rules: Rules | None = None,
        **rule_settings: Any,
    ) -> None:
        if seat not in (0, 1, 2, 3):
            raise ValueError(f"seat={seat!r}: one of 0, 1, 2, 3")
        if illegal_action not in ("raise", "terminate"):
            raise ValueError(f"illegal_action={illegal_action!r}: 'terminate' (the default) or 'raise'")
        self.illegal_action = illegal_action
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r}: None or 'ansi'")
        check_episode_settings(episode, reward)
        self.rules = rules_of(rules, rule_settings)
        self.seat = seat
        self.episode_mode, self.reward_mode, self.render_mode = episode, reward, render_mode
        self._mode = REWARDS.index(reward)
        partner_agent, opponent_agent = partner, opponents
        for agent in (partner_agent, opponent_agent):
            if isinstance(agent, str):
                raise ValueError(
                    f"{agent!r} is an agent spec: the rules package loads no agents; pass an agent object, or build "
                    f"the env with agents.single_agent_env(partner=..., opponents=...), which reads specs"
                )
            if not callable(getattr(agent, "act", None)):
                raise ValueError(f"{agent!r} is not an agent: it needs act(observation, action_mask, view)")
            check = getattr(agent, "check_rules", None)
            if check is not None:
                check(self.rules)
        self.others = {(seat + 2) % 4: partner_agent, (seat + 1) % 4: opponent_agent, (seat + 3) % 4: opponent_agent}
        self.observation_space = gym.spaces.Box(-1.0, 1.0, (OBS_DIM,), np.float32)
        self.action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self._entropy: int | None = None
        self._episode = 0
        self._done = True
        self._game: Game | None = None

    @property
    def game(self) -> Game:
        """The game being played (after ``reset()``)."""
        if self._game is None:
            raise RuntimeError("call reset() before step()")
        return self._game

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game, played on by the other seats until the learning seat is to act; its observation and info (``action_mask``)."""
        super().reset(seed=seed)
        if seed is not None or self._entropy is None:
            self._entropy = run_entropy(seed)
            self._episode = 0
        self._game = Game(
            self.rules,
            game_rng(self._entropy, 0, self._episode),
            game_id=game_label(self._entropy, 0, self._episode),
            stop_after_hand=self.episode_mode == "hand",
        )
        for s, agent in self.others.items():
            seed_agent = getattr(agent, "seed", None)
            if seed_agent is not None:
                seed_agent([self._entropy % 2**63, self._episode, s])
        self._episode += 1
        self._done = False
        self._pending_reward = self._others_play()
        self._done = self.game.game_over
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play ``action`` for the learning seat, then the other seats until it is to act again or the game ends.

        Returns:
            The observation, the learning team's reward, terminated, truncated (R16) and info.

        Raises:
            RuntimeError: a step before ``reset`` or after the end.
        """
        if self._done and self._game is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode has ended: call reset() to start the next one")
        reward = self._pending_reward
        self._pending_reward = 0.0
        if self.illegal_action == "terminate" and not self.action_masks()[int(action)]:
            # As PettingZoo's TerminateIllegalWrapper: the episode ends, -1 for the offender.
            self._done = True
            return self._obs(), -1.0, True, False, self._info()
        reward += self._apply(int(action))
        if not self.game.game_over:
            reward += self._others_play()
        self._done = self.game.game_over
        return self._obs(), float(reward), self._done and not self.game.truncated, bool(self.game.truncated), self._info()

    def _apply(self, action: int) -> float:
        """One action of the seat to act; the learner team's reward (nonzero only when a hand ends)."""
        game = self.game
        before, scores = len(game.records), list(game.scores)
        game.step(action)
        if len(game.records) == before:
            return 0.0
        team = team_of(self.seat)
        change = [game.scores[t] - scores[t] for t in (0, 1)]
        outcome = 0 if game.winner is None else (1 if game.winner == team else -1)
        return float(team_reward(self._mode, change[team], change[1 - team], outcome))

    def _others_play(self) -> float:
        reward = 0.0
        game = self.game
        while not game.game_over and game.to_act != self.seat:
            s = game.to_act
            reward += self._apply(int(self.others[s].act(observe(game, s), game.action_mask(), seat_view(game, s))))
        return reward

    def _obs(self) -> np.ndarray:
        return observe(self.game, self.seat)

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learning seat (all False once the episode is over)."""
        if self.game.game_over or self.game.to_act != self.seat:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return self.game.action_mask().astype(bool)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks().astype(np.int8)}

    def render(self) -> Any:  # the ansi table (str), or None without a render mode
        """The table as the learning seat sees it (``render_mode="ansi"``: a string), or None without a render mode."""
        if self.render_mode == "ansi":
            from .render import render_table

            return render_table(self.game, self.seat)
        return None
