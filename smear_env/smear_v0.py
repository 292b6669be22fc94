"""``smear_v0``: Four Point Northeastern Wisconsin Smear as a PettingZoo AEC environment.

A versioned module, as PettingZoo's classic games are (``from pettingzoo.classic import texas_holdem_v4``):
``from smear_env import smear_v0; env = smear_v0.env()``, or ``smear_env.env()``, the same function. It has
``env`` (wrapped) and ``raw_env``; no ``parallel_env``: players take turns, so a step of all at once does not
exist (``metadata["is_parallelizable"]`` is False, as in PettingZoo's classic games).

====================  ==========================================================
Import                ``from smear_env import smear_v0; env = smear_v0.env()``
Agents                ``player_0`` .. ``player_3`` (seats 0-3; teams 0/2 and 1/3)
Action space          ``Discrete(72)`` (table below; ``smear_env.actions``)
Observation space     ``Dict(observation=Box(-1, 1, ({obs_dim},), float32), action_mask=Box(0, 1, (72,), int8))``
State shape           ``({state_dim},)`` full information, for centralized critics
====================  ==========================================================

Observation
-----------
Encoded only from the acting seat's :class:`smear_env.SeatView` (what docs/rules.md lets
it know). Seats are relative to the observer: 0 = me, 1 = left, 2 = partner,
3 = right. The layout (``python -m smear_env.observer`` prints it from the code)::

{layout}

Action
------
One fixed table for every phase (``python -m smear_env.actions`` prints all 72)::

    0      pass              1-3    bid 2, 3, 4
    4-7    trump C, D, H, S  8-39   discard card 0-31
    40-71  play card 0-31    (card = suit * 8 + rank, suits CDHS, ranks 789TJQKA)

An illegal action, as in PettingZoo's classic envs, ends the episode (every agent
terminated) with ``-1`` for the offender's team (rewards are team-shared) and a
warning naming the seat, the move and the legal moves: what third-party trainers'
env checkers, which step unmasked random actions, expect. ``env(illegal_action="raise")``
(or ``raw_env``) instead raises :class:`smear_env.IllegalActionError` naming the
seat, the phase, the action and the legal actions, and leaves the game unchanged:
the better choice for your own code, where an illegal move is a bug.

Rewards
-------
Team-shared (partners always get the same reward). ``reward="game"`` (default):
+1 / -1 when a team wins the game, 0 on truncation. ``reward="hand"``: after every
scored hand, the team's own score change. ``reward="margin"``: the team's score
change minus the other team's.

Episodes
--------
``episode="game"`` (default): one game to ``target_score``. ``episode="hand"``: one
scored hand (redeals continue the episode); once it ends, the observations, the
(all-zero) masks, ``render()`` and ``state()`` show the finished hand. A game reaching
``max_hands`` dealt hands without a winner is truncated (R16).

Rule settings
-------------
``kitty_size`` (0-3, default 3), ``stick_the_dealer``, ``high_low_in_play``,
``win_only_on_made_bid`` (bools, default False), ``defender_cap`` (int or None),
``target_score`` (15), ``max_hands`` (50). See :class:`smear_env.Rules`.

Version history
---------------
* v0: first release. Later releases of the kit kept the rules, observation and
  action table; ``env()`` now ends the episode on an illegal move (PettingZoo's
  convention) where it raised, and one-hand episodes end on the finished hand.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .actions import NUM_ACTIONS, action_name
from .core import team_reward
from .game import Game, Phase, game_label, game_rng, run_entropy, team_of
from .observer import OBS_DIM, STATE_DIM, layout_table, observe
from .observer import state as global_state
from .records import write_records
from .render import render_table
from .rules import REWARDS, Rules, check_episode_settings, rules_of

__doc__ = (
    __doc__.replace("{layout}", "\n".join("    " + line for line in layout_table().splitlines()))
    .replace("{obs_dim}", str(OBS_DIM))
    .replace("{state_dim}", str(STATE_DIM))
)


def env(illegal_action: str = "terminate", **kwargs: Any) -> AECEnv:
    """The wrapped ``smear_v0`` env. ``illegal_action="terminate"`` (PettingZoo's convention): an
    illegal move ends the episode with -1 for the offender's team; ``"raise"``: it raises."""
    if illegal_action not in ("raise", "terminate"):
        raise ValueError(f"illegal_action={illegal_action!r}: allowed are 'terminate' (the default) and 'raise'")
    environment: AECEnv = raw_env(**kwargs)
    if illegal_action == "terminate":
        environment = TerminateIllegal(environment)
    # No AssertOutOfBoundsWrapper: the engine itself rejects any action that is not legal, with a clear error.
    return OrderEnforcing(environment)


class TerminateIllegal(wrappers.BaseWrapper):
    """PettingZoo classic's ``TerminateIllegalWrapper`` for a game of partners: an illegal move ends the
    episode, the offender's team gets ``illegal_reward`` (both partners: rewards are team-shared), the
    other team 0, and a warning names the seat, the move and the legal moves.

    Ours, not PettingZoo's: theirs gives the penalty to the offender alone, and here partners share every reward.
    """

    def __init__(self, environment: AECEnv, illegal_reward: float = -1.0) -> None:
        super().__init__(environment)
        self.illegal_reward = illegal_reward
        self._raw = environment.unwrapped

    def last(self, observe: bool = True):
        return self._raw.last(observe)

    def step(self, action) -> None:
        raw = self._raw
        agent = raw.agent_selection
        if action in raw.game.legal_actions() or raw.terminations[agent] or raw.truncations[agent]:
            self.env.step(action)
            return
        game = raw.game
        legal = ", ".join(action_name(a) for a in game.legal_actions())
        number = isinstance(action, (int, np.integer))
        named = f" ({action_name(int(action))})" if number and 0 <= action < NUM_ACTIONS else ""
        warnings.warn(
            f"smear_v0: illegal move {int(action) if number else action!r}{named} by {agent} (seat {game.to_act}) in phase {game.phase.name}; "
            f"legal were: {legal}. The episode ends with {self.illegal_reward} for team {team_of(game.to_act)}.",
            stacklevel=3,  # the caller of env.step
        )
        raw.end_episode(
            rewards={a: (self.illegal_reward if team_of(int(a[-1])) == team_of(game.to_act) else 0.0) for a in raw.agents}
        )


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks (its ``OrderEnforcingWrapper``, the same errors and warnings), reading the raw
    env's state directly.

    Ours, not the stock one: that runs ``AECEnv.last`` on itself, an attribute forwarded through every wrapper for
    each field it reads: random play ran at 0.65x this wrapper's speed with it (2026-12-07).
    """

    def __init__(self, environment: AECEnv) -> None:
        super().__init__(environment)
        self._raw = environment.unwrapped

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterator:
        return _AgentIterator(self, max_iter)

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.last(observe)

    def step(self, action) -> None:
        # The stock checks, reading the raw env's attributes directly rather than through __getattr__.
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self._raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)


class _AgentIterator:
    """``agent_iter()`` with PettingZoo's order check, reading the raw env's agents directly."""

    def __init__(self, wrapper: OrderEnforcing, max_iter: int) -> None:
        self.wrapper, self.env, self.left = wrapper, wrapper._raw, max_iter

    def __iter__(self) -> _AgentIterator:
        return self

    def __next__(self) -> str:
        env = self.env
        if not env.agents or self.left <= 0:
            raise StopIteration
        self.left -= 1
        if not self.wrapper._has_updated:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        self.wrapper._has_updated = False
        return env.agent_selection


class raw_env(AECEnv):
    """The unwrapped ``smear_v0`` AEC env (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "smear_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        render_mode: str | None = None,
        episode: str = "game",
        reward: str = "game",
        keep_records: bool = False,
        rules: Rules | None = None,
        **rule_settings: Any,
    ) -> None:
        super().__init__()
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode={render_mode!r}: allowed are None, 'human', 'ansi'")
        check_episode_settings(episode, reward)
        self.rules = rules_of(rules, rule_settings)
        self.render_mode = render_mode
        self.episode_mode = episode
        self.reward_mode = reward
        self._mode = REWARDS.index(reward)
        self.keep_records = keep_records
        self.possible_agents = [f"player_{i}" for i in range(4)]
        self.agents = list(self.possible_agents)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (OBS_DIM,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space] = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(-1.0, 1.0, (STATE_DIM,), np.float32)
        self.records: list[dict[str, Any]] = []
        self._entropy: int | None = None
        self._episode = 0
        self._game: Game | None = None

    @property
    def game(self) -> Game:
        """The game being played (after ``reset()``)."""
        if self._game is None:
            raise RuntimeError("call reset() before using the env")
        return self._game

    def observation_space(self, agent: str) -> spaces.Space:
        """``Dict(observation=Box(OBS_DIM), action_mask=MultiBinary(NUM_ACTIONS))``, the same for every agent."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(NUM_ACTIONS)``, the same for every agent (the mask says which are legal)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new episode; ``seed`` seeds the deals (the same seed, the same cards)."""
        if seed is not None or self._entropy is None:
            self._entropy = run_entropy(seed)
            self._episode = 0
        # Episode e of a run seeded S is game (S, slot 0, e): the batched engine deals the same cards.
        rng = game_rng(self._entropy, 0, self._episode)
        self._game = Game(
            self.rules, rng, game_id=game_label(self._entropy, 0, self._episode), stop_after_hand=self.episode_mode == "hand"
        )
        self._episode += 1
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._rewards_pending = False  # True while self.rewards holds a hand's rewards
        self.agent_selection = self.possible_agents[self.game.to_act]
        self._records_start = len(self.records)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation and action mask now (only what its seat may know)."""
        seat = int(agent[-1])
        game = self._game
        assert game is not None, "call reset() first"
        if game.to_act == seat and game.phase != Phase.GAME_OVER:
            mask = game.action_mask()
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": observe(game, seat), "action_mask": mask}

    def state(self) -> np.ndarray:
        """The full-information vector (see ``smear_env.observer.state``)."""
        return global_state(self.game)

    def step(self, action: int) -> None:
        """Play ``action`` for the agent to act (``None`` for an agent that is done).

        Raises:
            smear_env.IllegalActionError: an illegal action with ``illegal_action="raise"``; the game is unchanged.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game
        assert game is not None, "call reset() first"
        hands_before = len(game.records)
        scores_before = game.scores[:]
        game.step(action)
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_pending:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewards_pending = False
        if len(game.records) > hands_before:
            self._end_of_hand(game, hands_before, scores_before)
        self.agent_selection = self.possible_agents[game.to_act]
        if self.render_mode == "human":
            self.render()

    def _end_of_hand(self, game: Game, hands_before: int, scores_before: list[int]) -> None:
        """Rewards, records and the end of the episode after a hand was scored or thrown in."""
        if self.keep_records:
            self.records.extend(game.records[hands_before:])
        change = [game.scores[t] - scores_before[t] for t in (0, 1)]
        for a in self.agents:
            team = team_of(int(a[-1]))
            outcome = 0 if game.winner is None else (1 if game.winner == team else -1)
            self.rewards[a] = team_reward(self._mode, change[team], change[1 - team], outcome)
        if game.winner is not None:
            self.terminations = dict.fromkeys(self.agents, True)
        elif game.truncated:
            self.truncations = dict.fromkeys(self.agents, True)
        elif game.game_over:  # episode="hand": the scored hand was the episode
            self.terminations = dict.fromkeys(self.agents, True)
        self._rewards_pending = True
        self._accumulate_rewards()

    def end_episode(self, rewards: dict[str, float]) -> None:
        """End the episode now (every agent terminated) with these rewards (an illegal move's penalty)."""
        self._cumulative_rewards[self.agent_selection] = 0.0
        self.rewards = {a: rewards.get(a, 0.0) for a in self.agents}
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self._deads_step_first()

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``), or printed (``"human"``)."""
        if self.render_mode is None:
            return None
        text = render_table(self.game)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def write_records(self, path: str) -> int:
        """Write hand records (docs/records.md) atomically: every game played with ``keep_records=True``,
        otherwise the current game's."""
        return write_records(self.records if self.keep_records else self.game.records, path)

    def close(self) -> None:
        """Nothing to release; here for the PettingZoo API."""
        pass
