"""What a request to ``smear-web`` may ask its agents to be: the server owner's choice, never the request's.

A spec that comes over HTTP may name the kit's own agents (``heuristic``, ``pimc:samples=50``,
``neural``, ``search:rollouts=16``...) with their options under caps (:class:`Limits`), and files
only inside the checkpoint folders the owner named (``smear-web --checkpoints DIR``), by a name
relative to one of them. Nothing in a request imports a module or runs a file: ``file.py:Class``,
``module:Class`` and any other spec are served only when the owner allowed that exact spec
(``smear-web --agent SPEC``). Every refusal reads the same whether a file is missing, unreadable
or outside the folders, and no message sent back names a path of the server's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.base import Agent
from agents.registry import AgentEntry, load_agent, make_agent, parse_spec, registered
from smear_rl.quoting import SPEC_CHARS, quoted

_ABSOLUTE = re.compile(r"(?<![\w.])(?:/[^\s'\",:()\[\]]+)+")


class SpecRefusedError(ValueError):
    """A spec the server will not serve, with a message that may be shown to any client."""


@dataclass(frozen=True)
class Limits:
    """What one request may make the server's agents spend (each a ``smear-web`` flag)."""

    seconds: float = 1.0
    """Think time a decision, at most: ``pimc`` and ``search``'s ``seconds``."""
    samples: int = 200
    """Deals a decision, at most: ``pimc`` and ``search``'s ``samples``."""
    rollouts: int = 64
    """Rollouts a legal action, at most: ``search``'s ``rollouts`` and ``play_rollouts``."""
    draws: int = 8
    """``search``'s ``draws``, at most."""
    simulations: int = 200
    """``ismcts``'s ``simulations`` a decision, at most."""
    members: int = 4
    """Networks in a ``neural:A+B`` ensemble, at most."""

    def caps(self) -> dict[str, float]:
        """Each capped option and its largest value."""
        return {
            "seconds": self.seconds,
            "samples": self.samples,
            "rollouts": self.rollouts,
            "play_rollouts": self.rollouts,
            "draws": self.draws,
            "simulations": self.simulations,
        }


class AgentPolicy:
    """Turns a request's agent spec into an agent, or refuses it (:class:`SpecRefusedError`)."""

    def __init__(self, folders: Sequence[Path] = (), allowed: Sequence[str] = (), limits: Limits | None = None) -> None:
        self.folders = [Path(f).resolve() for f in folders]
        self.allowed = [spec.strip() for spec in allowed]
        self.limits = limits or Limits()

    def offered(self) -> list[dict[str, str]]:
        """The agents a request may name, as ``GET /api/agents`` lists them."""
        own = [{"id": e.id, "usage": e.usage(), "summary": e.summary} for e in registered() if e.builtin and self._vetted(e)]
        return own + [{"id": spec, "usage": spec, "summary": "allowed by this server's owner"} for spec in self.allowed]

    def build(self, spec: Any, role: str = "agent") -> Agent:
        """The agent of a request's ``spec``; a :class:`SpecRefusedError` naming what was wrong and what is allowed."""
        if not isinstance(spec, str) or not spec.strip():
            raise SpecRefusedError(f"{role} {self._spec(spec)}: an agent spec such as heuristic, pimc, neural or search")
        spec = spec.strip()
        shown: dict[str, str] = {}  # server paths in a message -> what the request called them
        try:
            if spec in self.allowed:
                return load_agent(spec)
            entry, kwargs = self._checked(spec, role, shown)
            return make_agent(entry, kwargs, spec)
        except SpecRefusedError:
            raise
        except Exception as e:  # noqa: BLE001 - an agent's constructor may raise anything; the client gets the gist
            said = str(e).removeprefix(f"agent spec {quoted(spec, SPEC_CHARS)}: ")  # the spec named once
            raise SpecRefusedError(f"{role} {self._spec(spec)}: {self._scrub(said, shown)}") from None

    def _checked(self, spec: str, role: str, shown: dict[str, str]) -> tuple[AgentEntry, dict[str, Any]]:
        entry, kwargs = parse_spec(spec)
        if not entry.builtin:
            own = ", ".join(e.id for e in registered() if e.builtin)
            raise SpecRefusedError(
                f"{role} {self._spec(spec)}: this server plays only its built-in agents ({own}) and the specs its owner allowed "
                "(smear-web --agent SPEC); a request cannot load a file or a module"
            )
        if not self._vetted(entry):  # its argument is a file this policy has no list of names for (rlcard:PATH)
            raise SpecRefusedError(
                f"{role} {self._spec(spec)}: {entry.id} reads its {entry.argument} from a file of any kind, which a request cannot "
                "name: its owner may allow the whole spec (smear-web --agent SPEC)"
            )
        if "device" in kwargs:
            raise SpecRefusedError(f"{role} {self._spec(spec)}: device= is this server's choice, not a request's: leave it out")
        for key, cap in self.limits.caps().items():
            if key in kwargs and not kwargs[key] <= cap:
                raise SpecRefusedError(f"{role} {self._spec(spec)}: {key}={kwargs[key]} is over this server's limit of {cap}")
        for key, names in entry.files.items():
            if key in kwargs:
                kwargs[key] = self._file(spec, role, key, str(kwargs[key]), names, shown)
        return entry, kwargs

    @staticmethod
    def _vetted(entry: AgentEntry) -> bool:
        """Whether a request may give this agent's argument: none, or one whose files this policy checks (``files``)."""
        return entry.argument is None or entry.argument in entry.files

    def _file(self, spec: str, role: str, key: str, value: str, names: tuple[str, ...], shown: dict[str, str]) -> str:
        """A file option's value with each path made the absolute path of a file inside the folders."""
        members = value.split("+") if key == "path" else [value]
        if len(members) > self.limits.members:
            raise SpecRefusedError(
                f"{role} {self._spec(spec)}: {len(members)} networks, over this server's limit of {self.limits.members}"
            )
        resolved = []
        for member in members:
            if member in names:
                resolved.append(member)
                continue
            found = self._inside(member)
            if found is None:
                where = (
                    "a file of its checkpoint folders, by a name relative to one"
                    if self.folders
                    else "no file (its owner named no checkpoint folder: smear-web --checkpoints DIR)"
                )
                raise SpecRefusedError(
                    f"{role} {self._spec(spec)}: {member!r} is not offered by this server: give {', '.join(names)} or {where}"
                )
            shown[str(found)] = member
            resolved.append(str(found))
        return "+".join(resolved)

    def _inside(self, name: str) -> Path | None:
        """The file ``name`` names inside one of the folders (a run folder: its checkpoint.pt), else None."""
        relative = Path(name)
        if not name or relative.is_absolute() or ".." in relative.parts or "\\" in name or "\0" in name:
            return None
        for folder in self.folders:
            try:
                path = (folder / relative).resolve(strict=True)
                if path.is_dir():
                    path = (path / "checkpoint.pt").resolve(strict=True)
            except (OSError, RuntimeError):
                continue
            if path.is_relative_to(folder) and path.is_file():
                return path
        return None

    @staticmethod
    def _spec(spec: str) -> str:
        """A request's spec as a refusal quotes it (the request's own words: whole, unless it is very long)."""
        return quoted(spec, SPEC_CHARS)

    def _scrub(self, message: str, shown: dict[str, str]) -> str:
        """``message`` with the server's paths replaced by what the request called them, and any other by ``<path>``."""
        for path, name in sorted(shown.items(), key=lambda item: -len(item[0])):
            message = message.replace(path, name)
        return _ABSOLUTE.sub("<path>", message)
