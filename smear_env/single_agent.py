"""A Gymnasium single-agent view of Smear: one seat learns, the other three are agents given by spec.

``SmearSingleAgentEnv(seat=0, partner="heuristic", opponents="random")`` is a
``gymnasium.Env`` whose observation is the learning seat's ``smear_v0`` observation
vector and whose action space is the same ``Discrete(72)``; ``action_masks()`` gives
the legal actions (the interface ``sb3_contrib.MaskablePPO`` reads) and ``info`` carries
``action_mask`` too. The other seats act inside ``step`` until it is the learner's
turn again. Rewards are the learner team's, as in ``smear_v0`` (``reward=`` game, hand
or margin); an episode is a game or a hand (``episode=``). An illegal action raises
``smear_env.IllegalActionError``, or with ``illegal_action="terminate"`` ends the episode
with reward -1 (what ``gymnasium.utils.env_checker.check_env``'s unmasked samples need).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from .actions import NUM_ACTIONS
from .game import Game, game_label, game_rng
from .observer import OBS_DIM, observe
from .rules import Rules, check_episode_settings
from .view import seat_view


class SmearSingleAgentEnv(gym.Env):
    """One learning seat against agents (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        seat: int = 0,
        partner: str = "heuristic",
        opponents: str = "random",
        episode: str = "game",
        reward: str = "margin",
        illegal_action: str = "raise",
        render_mode: str | None = None,
        **rule_settings: Any,
    ) -> None:
        from agents import load_agent  # agents build on smear_env: imported when used

        if seat not in (0, 1, 2, 3):
            raise ValueError(f"seat={seat!r}: one of 0, 1, 2, 3")
        if illegal_action not in ("raise", "terminate"):
            raise ValueError(f"illegal_action={illegal_action!r}: 'raise' or 'terminate'")
        self.illegal_action = illegal_action
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r}: None or 'ansi'")
        check_episode_settings(episode, reward)
        self.rules = Rules.from_dict(rule_settings)
        self.seat = seat
        self.episode_mode, self.reward_mode, self.render_mode = episode, reward, render_mode
        self.others = {
            (seat + 2) % 4: load_agent(partner),
            (seat + 1) % 4: load_agent(opponents),
            (seat + 3) % 4: load_agent(opponents),
        }
        self.observation_space = gym.spaces.Box(-1.0, 1.0, (OBS_DIM,), np.float32)
        self.action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self._entropy: int | None = None
        self._episode = 0
        self.game: Game | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None or self._entropy is None:
            self._entropy = int(np.random.SeedSequence(seed).entropy)
            self._episode = 0
        self.game = Game(
            self.rules, game_rng(self._entropy, 0, self._episode), game_id=game_label(self._entropy, 0, self._episode)
        )
        for s, agent in self.others.items():
            agent.seed([self._entropy % 2**63, self._episode, s])
        self._episode += 1
        reward, done = self._others_play()
        self._pending_reward = reward
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        reward = self._pending_reward
        self._pending_reward = 0.0
        if self.illegal_action == "terminate" and not self.action_masks()[int(action)]:
            # As PettingZoo's TerminateIllegalWrapper: the episode ends, -1 for the offender.
            return self._obs(), -1.0, True, False, self._info()
        r, done = self._apply(int(action))
        reward += r
        if not done:
            r, done = self._others_play()
            reward += r
        terminated = done and not self.game.truncated
        return self._obs(), float(reward), terminated, bool(self.game.truncated), self._info()

    def _apply(self, action: int) -> tuple[float, bool]:
        """One action of the seat to act; the learner team's reward and whether the episode ended."""
        game = self.game
        before, scores = len(game.records), list(game.scores)
        game.step(action)
        if len(game.records) == before:
            return 0.0, False
        team = self.seat & 1
        scored = not game.records[-1]["redeal"]
        reward = 0.0
        change = [game.scores[t] - scores[t] for t in (0, 1)]
        if scored and self.reward_mode == "hand":
            reward = change[team]
        elif scored and self.reward_mode == "margin":
            reward = change[team] - change[1 - team]
        if game.winner is not None and self.reward_mode == "game":
            reward = 1.0 if game.winner == team else -1.0
        done = game.game_over or (self.episode_mode == "hand" and scored)
        return float(reward), done

    def _others_play(self) -> tuple[float, bool]:
        reward = 0.0
        game = self.game
        while not game.game_over and game.to_act != self.seat:
            s = game.to_act
            action = self.others[s].act(observe(game, s), game.action_mask(), seat_view(game, s))
            r, done = self._apply(int(action))
            reward += r
            if done:
                return reward, True
        return reward, game.game_over

    def _obs(self) -> np.ndarray:
        return observe(self.game, self.seat)

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learning seat (all False once the episode is over)."""
        if self.game.game_over or self.game.to_act != self.seat:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return self.game.action_mask().astype(bool)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks().astype(np.int8)}

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            from .render import render_table

            return render_table(self.game, self.seat)
        return None
