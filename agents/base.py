"""One interface for every agent, and loading agents from spec strings."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from pathlib import Path

import numpy as np

from smear_env import Rules, SeatView


class Agent:
    """An agent chooses an action for one seat.

    It is given the seat's observation vector, its action mask (int8, 1 = legal) and
    its :class:`smear_env.SeatView`; neural agents read the first two, rule-based and
    search agents the view. ``act_batch`` is the batched form (one row per decision).
    Chance inside an agent comes only from ``self.rng``, set by :meth:`seed`.
    """

    name = "agent"

    def __init__(self) -> None:
        self.rng = np.random.default_rng()

    def seed(self, seed: int | list[int] | None) -> None:
        """Seed the agent's random generator (the arena does this per game and seat)."""
        self.rng = np.random.default_rng(seed)

    def check_rules(self, rules: Rules) -> None:
        """Raise ValueError if this agent cannot play under ``rules`` (a network trained for others)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> int:
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, views: list[SeatView]) -> np.ndarray:
        """One action per row; the default asks :meth:`act` row by row."""
        return np.array([self.act(o, m, v) for o, m, v in zip(observations, action_masks, views, strict=True)], dtype=np.int64)


BUILT_IN = ("random", "heuristic", "pimc", "neural")


def load_agent(spec: str) -> Agent:
    """An agent from a spec: ``random``, ``heuristic``, ``pimc[:samples=N,seconds=S]``,
    ``neural:PATH``, ``path/to/file.py:ClassName`` or ``package.module:ClassName``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(
            f"agent spec {spec!r}: expected one of {', '.join(BUILT_IN)}, neural:PATH, file.py:Class or module:Class"
        )
    name, _, arg = spec.partition(":")
    if name == "random" and not arg:
        from .random_agent import RandomAgent

        return RandomAgent()
    if name == "heuristic" and not arg:
        from .heuristic import HeuristicAgent

        return HeuristicAgent()
    if name == "pimc":
        from .pimc import PIMCAgent

        return PIMCAgent(**_options(spec, arg, {"samples": int, "seconds": float}))
    if name == "neural":
        from .neural import SHIPPED, NeuralAgent

        if not arg and not SHIPPED.is_file():
            raise ValueError(f"agent spec {spec!r}: no shipped checkpoint at {SHIPPED}; give neural:runs/NAME/checkpoint.pt")
        return NeuralAgent(arg or SHIPPED)
    if not arg:
        raise ValueError(
            f"agent spec {spec!r}: not a built-in agent ({', '.join(BUILT_IN)}); for your own agent give file.py:ClassName or module:ClassName"
        )
    if name.endswith(".py"):
        path = Path(name)
        if not path.is_file():
            raise ValueError(f"agent spec {spec!r}: file {name} does not exist")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(name)
        except ImportError as e:
            raise ValueError(f"agent spec {spec!r}: cannot import module {name!r} ({e})") from None
    cls = getattr(module, arg, None)
    if cls is None:
        raise ValueError(f"agent spec {spec!r}: {name} has no {arg!r}")
    agent = cls() if inspect.isclass(cls) else None
    if not isinstance(agent, Agent):
        raise ValueError(f"agent spec {spec!r}: {arg} must be a subclass of agents.Agent with a no-argument constructor")
    agent.name = spec
    return agent


def _options(spec: str, text: str, allowed: dict[str, type]) -> dict[str, object]:
    options: dict[str, object] = {}
    for item in filter(None, text.split(",")):
        key, eq, value = item.partition("=")
        if not eq or key not in allowed:
            raise ValueError(f"agent spec {spec!r}: bad option {item!r}; allowed are {', '.join(k + '=' for k in allowed)}")
        try:
            options[key] = allowed[key](value)
        except ValueError:
            raise ValueError(f"agent spec {spec!r}: option {key} needs a {allowed[key].__name__}, got {value!r}") from None
    return options
