"""The registry of agents and the spec strings that name them.

An agent spec is ``ID[:ARGUMENT][,KEY=VALUE...]`` for a registered agent (``random``,
``pimc:samples=10,seconds=0.05``, ``neural:runs/x/checkpoint.pt,device=cuda``), or
``path/to/file.py:Class`` / ``package.module:Class`` for your own subclass of
:class:`agents.base.Agent`. Built-ins are registered in ``agents/__init__.py`` with :func:`register`
(an id and an entry point ``"module:Class"``, as Gymnasium registers envs apart from them); other packages
can register theirs under the ``smear_rl.agents`` entry-point group (``id = "module:Class"``).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import math
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from smear_rl.extras import missing
from smear_rl.quoting import SPEC_CHARS, quoted

from .base import Agent


@dataclass(frozen=True)
class Bounds:
    """The values a numeric option allows: from ``low`` to ``high``, both included, or above ``low`` where ``above``."""

    low: float
    high: float
    above: bool = False

    def holds(self, value: float) -> bool:
        """Whether ``value`` is allowed (NaN never is)."""
        return (self.low < value if self.above else self.low <= value) and value <= self.high

    def __str__(self) -> str:
        low, high = _number(self.low), _number(self.high)
        return f"above {low} and at most {high}" if self.above else f"from {low} to {high}"


def _number(value: float) -> str:
    """``100000`` as ``100,000`` and ``0.5`` as ``0.5``."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"


@dataclass(frozen=True)
class AgentEntry:
    """A registered agent: its id, where its class is, and what a spec may say to it."""

    id: str
    entry_point: str
    """``"module:Class"``."""
    argument: str | None = None
    """The constructor keyword that a spec's bare argument fills (``neural:PATH`` -> ``path``)."""
    options: dict[str, type] = field(default_factory=dict)
    """Keyword options a spec may give, with their types (``pimc:samples=10``)."""
    summary: str = ""
    """One line for help texts."""
    files: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The argument and options whose value names a file to read, each with the names it takes instead of a
    path (``neural``'s ``path``: ``("neural", "dmc", ...)``): what a server must hold to the folders it allows."""
    bounds: dict[str, Bounds] = field(default_factory=dict)
    """The allowed values of numeric options (``pimc``'s ``samples``: from 1 to 100,000); an option without
    bounds takes any finite number."""
    builtin: bool = True
    """True for the kit's own agents; False for other packages' entry points and for a spec's own
    ``file.py:Class`` or ``module:Class`` (made by :func:`parse_spec`, never registered)."""

    def usage(self) -> str:
        """The spec's form for help texts: ``pimc[:samples=N,seconds=X]``."""
        placeholder = {int: "N", float: "X", bool: "true|false"}
        parts = ([self.argument.upper()] if self.argument else []) + [
            f"{k}={placeholder.get(kind, k.upper())}" for k, kind in self.options.items()
        ]
        return self.id + (f"[:{','.join(parts)}]" if parts else "")


_REGISTRY: dict[str, AgentEntry] = {}
_discovered = False  # whether the entry points were looked up


def register(
    id: str,
    entry_point: str,
    *,
    argument: str | None = None,
    options: dict[str, type] | None = None,
    summary: str = "",
    files: dict[str, tuple[str, ...]] | None = None,
    bounds: dict[str, Bounds] | None = None,
) -> None:
    """Make ``id`` a spec for the agent class at ``entry_point`` (``"module:Class"``); one line per agent."""
    unknown = sorted(set(bounds or {}) - set(options or {}))
    if unknown:
        raise ValueError(f"register({id!r}): bounds for {unknown}, which are not among its options")
    _REGISTRY[id] = AgentEntry(id, entry_point, argument, dict(options or {}), summary, dict(files or {}), dict(bounds or {}))


def check_options(id: str, **values: float) -> None:
    """A ValueError naming the first of ``values`` (an agent's numeric options) outside the bounds that ``id``'s
    registration gives it: the agents' constructors check here, so that each range is said once."""
    bounds = _REGISTRY[id].bounds
    for key, value in values.items():
        if not bounds[key].holds(value):
            raise ValueError(f"{id}: {key}={value} must be {bounds[key]}")


def registered() -> list[AgentEntry]:
    """The registered agents (built-ins, then those of installed packages' ``smear_rl.agents`` entry points,
    looked up once a process: the lookup reads every installed package's metadata)."""
    global _discovered
    if not _discovered:
        for point in entry_points(group="smear_rl.agents"):
            if point.name not in _REGISTRY:
                _REGISTRY[point.name] = AgentEntry(point.name, point.value, builtin=False)
        _discovered = True
    return list(_REGISTRY.values())


def spec_help() -> str:
    """The agent specs a command accepts, for its ``--help``."""
    return ", ".join(e.usage() for e in registered()) + ", file.py:Class or module:Class (your own agents.Agent)"


def with_option(spec: str, key: str, value: str) -> str:
    """``spec`` with ``key=value`` added, if its agent takes that option and the spec does not set it."""
    entry = {e.id: e for e in registered()}.get(spec.partition(":")[0])
    if entry is None or key not in entry.options or f"{key}=" in spec:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}{key}={value}"


def parse_spec(spec: str) -> tuple[AgentEntry, dict[str, Any]]:
    """A spec's agent entry and constructor keywords, read without importing anything; a ValueError naming
    what was wrong. A spec that names no registered agent gives an entry whose ``entry_point`` is the spec's
    own ``file.py:Class`` or ``module:Class`` (``AgentEntry.builtin`` tells the two apart)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec {quoted(spec, SPEC_CHARS)}: expected one of {spec_help()}")
    name, _, rest = spec.strip().partition(":")
    entries = {e.id: e for e in registered()}
    entry = entries.get(name)
    if entry is None:
        if not rest:
            raise ValueError(
                f"agent spec {quoted(spec, SPEC_CHARS)}: not a built-in agent ({', '.join(entries)}); "
                "for your own agent give file.py:ClassName or module:ClassName"
            )
        class_name, *items = rest.split(",")
        entry = AgentEntry(spec, f"{name}:{class_name}", options={k.partition("=")[0]: str for k in items}, builtin=False)
        rest = ",".join(items)
    return entry, _arguments(spec, entry, [item for item in rest.split(",") if item] if rest else [])


def load_agent(spec: str) -> Agent:
    """An agent from a spec (see the module docstring); a ValueError naming what was wrong otherwise."""
    entry, kwargs = parse_spec(spec)
    return make_agent(entry, kwargs, spec)


def make_agent(entry: AgentEntry, kwargs: dict[str, Any], name: str) -> Agent:
    """The agent of ``entry`` made with ``kwargs`` (as :func:`parse_spec` reads them), called ``name``."""
    cls = _import(entry.entry_point, name)
    if not (inspect.isclass(cls) and issubclass(cls, Agent)):
        raise ValueError(f"agent spec {name!r}: {entry.entry_point} must be a subclass of agents.Agent")
    try:
        agent = cls(**kwargs)
    except TypeError as e:
        raise ValueError(f"agent spec {name!r}: {entry.entry_point} cannot be made from it ({e})") from None
    agent.name = name
    return agent


def _arguments(spec: str, entry: AgentEntry, items: list[str]) -> dict[str, Any]:
    """The constructor keywords of a spec's items: the bare argument, then typed options."""
    kwargs: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            if entry.argument is None or entry.argument in kwargs:
                raise ValueError(f"agent spec {quoted(spec, SPEC_CHARS)}: bad option {item!r}; allowed are {_allowed(entry)}")
            kwargs[entry.argument] = item
            continue
        if key not in entry.options:
            raise ValueError(f"agent spec {quoted(spec, SPEC_CHARS)}: bad option {item!r}; allowed are {_allowed(entry)}")
        kind, bounds = entry.options[key], entry.bounds.get(key)
        word = KINDS.get(kind, kind.__name__)
        needs = f"{word} {bounds}" if bounds else word + EXAMPLES.get(kind, "")
        try:
            kwargs[key] = _parse_bool(value) if kind is bool else kind(value)
        except ValueError:
            raise ValueError(f"agent spec {quoted(spec, SPEC_CHARS)}: option {key} needs {needs}, got {quoted(value)}") from None
        if kind in (int, float) and not (bounds.holds(kwargs[key]) if bounds else math.isfinite(kwargs[key])):
            raise ValueError(f"agent spec {quoted(spec, SPEC_CHARS)}: option {key} needs {needs}, got {quoted(value)}")
    return kwargs


KINDS = {int: "a whole number", float: "a number", bool: "true or false", str: "a name"}
"""An option's type in a refusal's words."""
EXAMPLES = {int: " (such as 20)", float: " (a finite one, such as 0.5)"}
"""What follows an option's type in a refusal where no bounds are registered for it."""


def _allowed(entry: AgentEntry) -> str:
    return ", ".join(k + "=" for k in entry.options) or "none"


def _parse_bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


def _import(entry_point: str, spec: str) -> Any:
    """The object at ``module:attribute`` or ``path/to/file.py:attribute``."""
    module_name, _, attribute = entry_point.rpartition(":")
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise ValueError(f"agent spec {quoted(spec, SPEC_CHARS)}: file {module_name} does not exist")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        assert module_spec is not None and module_spec.loader is not None
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            extra = missing(e, f"agent spec {quoted(spec, SPEC_CHARS)}")
            if extra is not None:
                raise extra from None
            raise ValueError(f"agent spec {quoted(spec, SPEC_CHARS)}: cannot import module {module_name!r} ({e})") from None
    found = getattr(module, attribute, None)
    if found is None:
        raise ValueError(f"agent spec {quoted(spec, SPEC_CHARS)}: {module_name} has no {attribute!r}")
    return found
