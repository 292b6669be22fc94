"""The kit's agents in OpenSpiel and RLCard, and OpenSpiel's IS-MCTS as an agent of the kit.

* :class:`KitBot`: any kit agent (a spec) as a ``pyspiel.Bot``, for OpenSpiel's ``evaluate_bots`` and its other
  tools, on the ``smear`` game of :mod:`smear_env.openspiel_game`.
* :class:`KitRLCardAgent`: any kit agent as an RLCard agent (``step``, ``eval_step``, ``use_raw``), for
  ``env.set_agents`` and ``rlcard.utils.tournament`` on the ``smear`` env of :mod:`smear_env.rlcard_env`.
* :class:`RLCardAgent` (``rlcard:PATH``): an RLCard DQN agent trained on ``rlcard.make("smear")`` (its
  checkpoint, ``DQNAgent.save_checkpoint``) playing a kit seat, for the arena and every command.
* :class:`ISMCTSAgent` (``ismcts[:simulations=N,uct_c=X,rollouts=N]``): OpenSpiel's information-set MCTS
  (``open_spiel.python.algorithms.ismcts``) deciding for a kit seat. It searches the hand in progress (the
  game ``smear(one_hand=true)``: a hand's end valued by its score margin) from the seat's view, the hidden
  cards of every simulation drawn consistently with that view (``SmearState.resample_from_infostate``), the
  leaves valued by random rollouts to the hand's end.

OpenSpiel (``pip install "smear-rl[openspiel]"``) and RLCard (``[rlcard]``) are imported only when one of these
is made.
"""

from __future__ import annotations

import contextlib
import io
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from smear_env import Rules, SeatView, action_name, observe, sample_game, seat_view
from smear_rl.extras import need

from .base import Agent
from .registry import check_options, load_agent


def _openspiel() -> Any:
    need("pyspiel", "OpenSpiel's smear game")
    from smear_env import openspiel_game

    return openspiel_game


class KitBot:
    """A kit agent as an OpenSpiel bot (made by :func:`kit_bot`, a ``pyspiel.Bot`` subclass)."""


def kit_bot(agent: Agent | str, seed: int = 0) -> Any:
    """A ``pyspiel.Bot`` that plays the ``smear`` game as the kit ``agent`` (an agent, or a spec) would, from the
    acting seat's observation, legal actions and view (nothing else of the state)."""
    _openspiel()
    import pyspiel

    played = load_agent(agent) if isinstance(agent, str) else agent
    played.seed(seed)

    class _Bot(pyspiel.Bot, KitBot):
        def __init__(self) -> None:
            pyspiel.Bot.__init__(self)
            self.agent = played

        def step(self, state: Any) -> int:
            kit, seat = state.kit, state.current_player()
            return int(self.agent.act(observe(kit, seat), kit.action_mask(), seat_view(kit, seat)))

        def restart_at(self, state: Any) -> None:
            pass

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            pass

        def provides_policy(self) -> bool:
            return False

    return _Bot()


def ismcts_bot(game: Any, simulations: int = 100, uct_c: float = 1.5, rollouts: int = 1, seed: int = 0) -> Any:
    """OpenSpiel's Python IS-MCTS bot on ``game`` (leaves valued by ``rollouts`` random rollouts), with the
    ``restart_at`` and ``inform_action`` that ``evaluate_bots`` calls and that OpenSpiel's Python class leaves
    to the C++ default (which raises "RestartAt(state) not implemented"): its search keeps no state between
    moves, so both only clear its tree."""
    _openspiel()
    from open_spiel.python.algorithms import ismcts, mcts

    class _ISMCTSBot(ismcts.ISMCTSBot):
        def restart_at(self, state: Any) -> None:
            self.reset()

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            pass

    evaluator = mcts.RandomRolloutEvaluator(rollouts, np.random.RandomState(seed))
    return _ISMCTSBot(game, evaluator, uct_c, simulations, random_state=np.random.RandomState(seed + 1))


class KitRLCardAgent:
    """A kit agent as an RLCard agent: it reads the state's ``raw_obs`` (the seat's view) and ``obs``."""

    use_raw = False

    def __init__(self, agent: Agent | str, seed: int = 0) -> None:
        need("rlcard", "RLCard's smear env")
        self.agent = load_agent(agent) if isinstance(agent, str) else agent
        self.agent.seed(seed)

    def step(self, state: dict[str, Any]) -> int:
        """The kit agent's move in RLCard's state."""
        view: SeatView = state["raw_obs"]
        mask = np.zeros(72, dtype=np.int8)
        mask[list(state["legal_actions"])] = 1
        return int(self.agent.act(state["obs"], mask, view))

    def eval_step(self, state: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return self.step(state), {}


class ISMCTSAgent(Agent):
    """OpenSpiel's IS-MCTS deciding for a kit seat (see the module docstring)."""

    name = "ismcts"
    independent = True

    def __init__(self, simulations: int = 100, uct_c: float = 1.5, rollouts: int = 1) -> None:
        super().__init__()
        check_options("ismcts", simulations=simulations, uct_c=uct_c, rollouts=rollouts)
        self.openspiel = _openspiel()
        self.simulations, self.uct_c, self.rollouts = simulations, uct_c, rollouts
        self.rng = np.random.default_rng(0)
        self.games: dict[Rules, Any] = {}

    def seed(self, seed: int | list[int] | None) -> None:
        """Seed the worlds this agent draws and its search's own generator."""
        self.rng = np.random.default_rng(seed)

    def _game(self, rules: Rules) -> Any:
        import pyspiel

        if rules not in self.games:
            values = {k: v for k, v in rules.to_dict().items()}
            values["defender_cap"] = -1 if rules.defender_cap is None else rules.defender_cap
            self.games[rules] = pyspiel.load_game(self.openspiel.NAME, {**values, "one_hand": True})
        return self.games[rules]

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> int:
        """The search's move: IS-MCTS from one world consistent with ``view`` (its tree over information sets)."""
        legal = list(view.legal_actions) or np.flatnonzero(action_mask).tolist()
        if len(legal) == 1:
            return int(legal[0])
        game = self._game(view.rules)
        state = game.new_initial_state()
        kit = sample_game(view, self.rng)  # one world the seat cannot tell from the true one
        kit.stop_after_hand = True
        state.kit, state.first_dealer, state.dealing = kit, view.dealer, False
        bot = ismcts_bot(game, self.simulations, self.uct_c, self.rollouts, seed=int(self.rng.integers(2**31)))
        return int(bot.step(state))


def rlcard_state(observation: np.ndarray, legal: list[int], view: SeatView) -> dict[str, Any]:
    """A kit seat's decision as RLCard's env states it (``smear_env.rlcard_env``): what its agents read."""
    return {
        "obs": observation,
        "legal_actions": OrderedDict((int(a), None) for a in legal),
        "raw_obs": view,
        "raw_legal_actions": [action_name(int(a)) for a in legal],
    }


class RLCardAgent(Agent):
    """An RLCard DQN agent playing a kit seat: ``rlcard:PATH``, the checkpoint RLCard's ``DQNAgent.save_checkpoint``
    wrote after training on ``rlcard.make("smear")`` (``experiments/rlcard_dqn.py`` trains one). It sees what the
    RLCard env would give it (the kit's observation and legal actions) and plays its greedy action."""

    name = "rlcard"
    independent = True

    def __init__(self, path: str) -> None:
        super().__init__()
        need("rlcard", "an RLCard agent")
        import torch
        from rlcard.agents import DQNAgent

        try:
            checkpoint = torch.load(Path(path), map_location="cpu", weights_only=False)
        except Exception as e:  # noqa: BLE001 - whatever torch.load raises for a file that is not a checkpoint
            raise ValueError(f"agent spec 'rlcard:{path}': cannot read it ({type(e).__name__}: {e})") from None
        if not isinstance(checkpoint, dict) or checkpoint.get("agent_type") != "DQNAgent":
            raise ValueError(f"agent spec 'rlcard:{path}': not a checkpoint of RLCard's DQNAgent (save_checkpoint)")
        checkpoint["device"] = checkpoint["q_estimator"]["device"] = torch.device("cpu")
        with contextlib.redirect_stdout(io.StringIO()):  # from_checkpoint prints a line of its own
            self.agent = DQNAgent.from_checkpoint(checkpoint)
        self.agent.memory.memory = []  # its replay is not needed to play

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> int:
        """The DQN agent's greedy action among the legal ones."""
        legal = list(view.legal_actions) or np.flatnonzero(action_mask).tolist()
        action, _ = self.agent.eval_step(rlcard_state(observation, legal, view))
        return int(action)
