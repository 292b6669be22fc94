"""What every trainer's config shares: the fields, their validation (written once), and reading a
config from YAML files and the command line (tyro, a flag for each field).

A trainer's ``Config`` extends :class:`RunConfig` with its own fields, each with a type and a
one-line docstring, which ``--help`` shows with the default. ``python -m train.dmc
--config FILE.yaml`` takes the file's values as defaults, then ``--FIELD VALUE`` flags
(``--hidden 256 256``, ``--kitty-size 2``, ``--opponents self=0.8 pimc=0.2``).
Every value is validated when the config is made, in the process the user started, before
anything runs: once, on the file's values and the flags together (a file's value that a flag
completes, ``learning_rate_end`` with ``--max-seconds``, is no error).
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import dataclasses
import difflib
import sys
import typing
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any, ClassVar, TypeVar

import docstring_parser
import tyro
import yaml
from tyro.constructors import PrimitiveConstructorSpec

from smear_env import Rules, __version__
from smear_rl.cmdline import Flat, read, refuse

SPECIAL_OPPONENTS = ("self", "pool")
_CHECKED = contextvars.ContextVar("_CHECKED", default=True)
"""False while the defaults a command line completes are built (:func:`unchecked`)."""


def _mix_from_strings(items: list[str]) -> dict[str, float]:
    mix = {}
    for item in items:
        spec, eq, weight = item.rpartition("=")
        if not eq or not spec:
            raise ValueError(f"{item!r}: give SPEC=WEIGHT, e.g. self=0.8 or pimc:samples=5=0.2")
        mix[spec] = float(weight)
    return mix


def strings_flag(
    parse: typing.Callable[[list[str]], Any], metavar: str, kind: type, show: typing.Callable[[Any], list[str]]
) -> Any:
    """How tyro reads a field from one or more strings (``--opponents self=0.8 pimc=0.2``) and shows its default."""
    return PrimitiveConstructorSpec(
        nargs="*", metavar=metavar, instance_from_str=parse, is_instance=lambda x: isinstance(x, kind), str_from_instance=show
    )


Mix = Annotated[
    dict[str, float],
    strings_flag(_mix_from_strings, "SPEC=WEIGHT", dict, lambda mix: [f"{k}={v:g}" for k, v in mix.items()]),
]
"""An opponent mix: agent specs (or ``self``, ``pool``) and their weights."""


def parse_sizes(value: object, name: str = "hidden") -> tuple[int, ...]:
    """Layer sizes from ``"256,256"``, ``["256", "256"]`` or ``[256, 256]``; a ValueError naming ``name`` otherwise."""
    parts = value if isinstance(value, (list, tuple)) else [value]
    try:
        return tuple(int(x) for part in parts for x in str(part).split(",") if x.strip())
    except ValueError:
        raise ValueError(f"{name} {value!r}: layer sizes as numbers, e.g. 256,256 (or 256 256)") from None


Sizes = Annotated[tuple[int, ...], strings_flag(parse_sizes, "N", tuple, lambda sizes: [str(n) for n in sizes])]
"""Layer sizes: ``--hidden 256 256`` (or ``256,256``)."""


def check_mix(mix: dict[str, float], name: str = "opponents") -> None:
    """A clear error for a mix that is empty, has a negative weight or sums to 0 (specs are checked when loaded)."""
    if (
        not isinstance(mix, dict)
        or not mix
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in mix.values())
    ):
        raise ValueError(f"config {name}={mix!r}: a mapping of opponents to weights, e.g. {{self: 0.8, heuristic: 0.2}}")
    if any(v < 0 for v in mix.values()) or sum(mix.values()) <= 0:
        raise ValueError(f"config {name}={mix!r}: weights must be 0 or more and sum above 0")


@dataclass
class RunFields:
    """The fields every run has, a trainer's and the recipe's: its folder and its seed."""

    RENAMED: ClassVar[dict[str, str]] = {}
    """keys an earlier version wrote in a run's config.yaml and the fields they are now (``exit_teacher`` to
    ``exit.teacher``): a run it started resumes (:func:`upgraded`), a YAML file of ``--config`` is told"""

    run_name: str = "run"
    """name of the run: its folder is runs_dir/run_name"""
    runs_dir: str = "runs"
    """where runs live"""
    seed: int = 1
    """seed of python, numpy and torch, and of the games"""

    def __post_init__(self) -> None:
        if _CHECKED.get():
            self.validate()

    def validate(self) -> None:
        """Every field checked, with a message naming it and what is allowed (trainers add theirs)."""
        check_types(self)
        if not self.run_name or "/" in self.run_name or self.run_name in (".", ".."):
            raise ValueError(f"config run_name={self.run_name!r}: a folder name (no '/')")


def checked() -> bool:
    """Whether a config made now validates itself (not within :func:`unchecked`)."""
    return _CHECKED.get()


@dataclass
class RunConfig(RunFields):
    """The fields every trainer has (see the trainers for theirs)."""

    total_steps: int = 2_000_000
    """agent-steps (decisions, all seats) to train for"""
    max_seconds: float = 0.0
    """stop after this many seconds of training as well, counted once the games run (0: no limit)"""
    num_envs: int = 512
    """games stepped in lockstep"""
    hidden: Sizes = (256, 256)
    """hidden layer sizes of the network(s)"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    opponents: Mix = field(default_factory=lambda: {"self": 0.7, "pool": 0.2, "heuristic": 0.1})
    """who plays the other team, drawn per game by weight: self (the learner: all four seats learn), pool (a past network of the run) or any agent spec (heuristic, pimc, neural:PATH, file.py:Class); e.g. --opponents self=0.8 pimc=0.2, or pimc=1 for a best response to pimc"""
    pool_size: int = 4
    """past networks kept as opponents"""
    pool_every: int = 200_000
    """agent-steps between additions to the pool"""
    eval_every: int = 250_000
    """agent-steps between evaluations (duplicate format, against eval_opponent)"""
    eval_games: int = 100
    """games per evaluation"""
    eval_opponent: str = "heuristic"
    """the agent spec evaluations play against"""
    checkpoint_seconds: float = 60.0
    """seconds between checkpoints"""
    log_seconds: float = 10.0
    """seconds between console lines (train.log in the run folder gets a line of means every 50 batched steps)"""
    torch_threads: int = 1
    """threads torch may use in the learner"""
    device: str = "auto"
    """where the networks run: auto (CUDA if torch sees one), cpu, cuda or cuda:N"""
    rules: Flat[Rules] = field(default_factory=Rules)
    """the rule settings the games are played under (recorded in every checkpoint)"""

    def validate(self) -> None:
        """Every field checked, with a message naming it and what is allowed (trainers add theirs)."""
        super().validate()
        for name in ("total_steps", "num_envs", "pool_size", "pool_every", "eval_every", "eval_games", "torch_threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"config {name}={getattr(self, name)}: must be at least 1")
        for name in ("max_seconds", "checkpoint_seconds", "log_seconds"):
            if getattr(self, name) < 0:
                raise ValueError(f"config {name}={getattr(self, name)}: must be 0 or more")
        if not self.learning_rate > 0:
            raise ValueError(f"config learning_rate={self.learning_rate}: must be above 0")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ValueError(f"config hidden={self.hidden!r}: one or more positive layer sizes, e.g. [256, 256]")
        check_mix(self.opponents)


def check_types(config: Any, prefix: str = "") -> None:
    """Each field's value against its annotation (ints, floats, bools, strings, tuples of ints, mixes, nested
    configs); a message names the field after ``prefix`` (a nested config's place: ``exit.``)."""
    hints = typing.get_type_hints(type(config))
    for f in dataclasses.fields(config):
        value, hint = getattr(config, f.name), hints[f.name]
        if typing.get_origin(hint) is Annotated:
            hint = typing.get_args(hint)[0]
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is tuple and isinstance(value, list):  # YAML has lists, not tuples
            value = tuple(value)
            setattr(config, f.name, value)
        if hint is bool:
            ok = isinstance(value, bool)
        elif hint is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif hint is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            if ok:
                setattr(config, f.name, float(value))
        elif hint is str:
            ok = isinstance(value, str)
        elif origin is tuple and typing.get_origin(args[0]) is typing.Literal:
            ok = isinstance(value, tuple) and all(v in typing.get_args(args[0]) for v in value)
        elif origin is tuple:
            ok = isinstance(value, tuple) and all(isinstance(v, args[0]) and not isinstance(v, bool) for v in value)
        elif origin is typing.Literal:
            ok = value in args
        elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
            ok = isinstance(value, hint)  # a nested config (the rules, a recipe's stage) checks its own fields
        else:
            ok = True  # mixes validate themselves
        if not ok:
            want = {bool: "true or false", int: "an int", float: "a number", str: "a string"}.get(hint, str(hint))
            if origin is typing.Literal:
                want = f"one of {list(args)}"
            elif origin is tuple and typing.get_origin(args[0]) is typing.Literal:
                want = f"some of {list(typing.get_args(args[0]))}"
            elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
                want = f"a mapping of its settings ({', '.join(g.name for g in dataclasses.fields(hint))})"
            raise ValueError(f"config {prefix}{f.name}={value!r}: must be {want}")


C = TypeVar("C", bound=RunFields)
T = TypeVar("T")


def builtin_configs() -> list[str]:
    """The names of the configs that ship with the kit (``dmc_quick``, ``dmc_full``, ...), found by name anywhere."""
    return sorted(entry.name.removesuffix(".yaml") for entry in files("train.configs").iterdir() if entry.name.endswith(".yaml"))


def find_config(name: str) -> Path:
    """The config file a ``--config`` value names: a path to a YAML file, or the name of a built-in
    (``dmc_quick``, or ``dmc_quick.yaml``) from the installed package.

    Args:
        name: a path (``configs/dmc_quick.yaml``, ``my.yaml``) or a built-in's name.

    Returns:
        The path of the file to read.

    Raises:
        ValueError: neither a file nor a built-in, naming the built-ins.
    """
    path = Path(name)
    if path.is_file():
        return path
    stem = path.name.removesuffix(".yaml")
    if path.parent == Path(".") and stem in builtin_configs():
        return Path(str(files("train.configs").joinpath(f"{stem}.yaml")))
    raise ValueError(f"--config {name}: no such file, and no built-in config of that name; the built-ins are {builtin_configs()}")


def from_mapping(cls: type[C], values: dict[str, Any]) -> C:
    """A config from a mapping (a YAML file's); unknown keys and bad values raise ValueError naming them."""
    values = dict(values)
    values.pop("algo", None)
    for recorded in ("smear_rl_version", "machine", "chosen"):  # what a run's config.yaml records beside its settings
        values.pop(recorded, None)
    return _built(cls, values, "", cls.RENAMED)


def _built(cls: type[T], values: dict[str, Any], prefix: str, renamed: dict[str, str]) -> T:
    """``cls`` from ``values``: unknown keys named with the nearest field (or the field an older key became),
    the rules and each nested config (a mapping, ``prefix`` its place: ``exit.``) built from theirs."""
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    unknown = sorted(set(values) - set(names))
    if unknown:
        docs = {p.arg_name: p.description for k in cls.__mro__[-2::-1] for p in docstring_parser.parse_from_object(k).params}
        near = {k: difflib.get_close_matches(k, names, n=1) for k in unknown}
        told = "".join(
            f"; {k} is {renamed[prefix + k]} since 0.4.0 (CHANGELOG.md)" if prefix + k in renamed
            else f"; {k}: did you mean {prefix}{m[0]} ({docs.get(m[0], '')})" if m else ""
            for k, m in near.items()
        )  # fmt: skip
        raise ValueError(f"unknown config key(s) {[prefix + k for k in unknown]}{told}; allowed are {names}")
    hints = typing.get_type_hints(cls)
    for name, value in values.items():
        hint = hints[name]
        if typing.get_origin(hint) is Annotated:
            hint = typing.get_args(hint)[0]
        if typing.get_origin(hint) is tuple and isinstance(value, list):  # YAML has lists, not tuples
            values[name] = tuple(value)
        elif hint is Rules:
            if isinstance(value, Rules):
                value = value.to_dict()
            if not isinstance(value, dict):
                raise ValueError(f"config {prefix}{name}={value!r}: a mapping of rule settings, e.g. {{kitty_size: 2}}")
            values[name] = Rules.from_dict(value)
        elif isinstance(hint, type) and dataclasses.is_dataclass(hint) and isinstance(value, dict):
            values[name] = _built(hint, value, f"{prefix}{name}.", renamed)
        elif isinstance(hint, type) and dataclasses.is_dataclass(hint) and not isinstance(value, hint):
            fields = ", ".join(f.name for f in dataclasses.fields(hint))
            told = f" ({prefix}{name} is {renamed[prefix + name]} since 0.4.0)" if prefix + name in renamed else ""
            raise ValueError(f"config {prefix}{name}={value!r}: a mapping of its settings ({fields}){told}")
    if isinstance(values.get("hidden"), (list, str)):
        values["hidden"] = parse_sizes(values["hidden"], f"config {prefix}hidden")
    return cls(**values)


def upgraded(values: dict[str, Any], renamed: dict[str, str]) -> dict[str, Any]:
    """A run's config.yaml as an earlier version wrote it, each key that ``renamed`` names moved to the field it
    is now (``exit_teacher: X`` to ``exit: {teacher: X}``); a key already in today's form is left alone."""
    values = dict(values)
    for old, new in renamed.items():
        if old not in values or (old == new.split(".")[0] and isinstance(values[old], dict)):
            continue
        value = values.pop(old)
        *path, last = new.split(".")
        place = values
        for part in path:
            place = place.setdefault(part, {})
        place[last] = value
    return values


@contextlib.contextmanager
def unchecked() -> typing.Iterator[None]:
    """Configs made within are not validated: the defaults that flags complete (a ``--config`` file's, a resumed
    run's), checked once the flags are applied."""
    token = _CHECKED.set(False)
    try:
        yield
    finally:
        _CHECKED.reset(token)


def to_mapping(config: RunConfig) -> dict[str, Any]:
    """The config as plain values (for YAML and checkpoints), with the kit's version that ran it."""
    values = {"smear_rl_version": __version__, **dataclasses.asdict(config)}
    values["hidden"] = list(config.hidden)
    values["rules"] = config.rules.to_dict()
    return values


@dataclass
class Start:
    """How a run starts: anew, or continuing a run folder (``--resume``); ``force`` replaces an existing folder,
    ``suffix`` starts in the first free ``NAME-2``, ``NAME-3``, ... instead."""

    resume: Path | None = None
    force: bool = False
    suffix: bool = False


def _defaults(cls: type[C], named: str | None, resume: str | None, prog: str) -> C:
    """The config whose values ``--help`` shows as defaults: a ``--config`` file's, then a resumed run's own."""
    values: dict[str, Any] = {}
    try:
        paths = [find_config(named)] if named else []
    except ValueError as e:
        refuse(prog, str(e))
    if resume:
        saved = Path(resume) / "config.yaml"
        if not saved.is_file():
            refuse(prog, f"--resume {resume}: no config.yaml there; is it a run folder?")
        paths.append(saved)  # a resumed run keeps its own config over a --config given again; flags change both
    for path in paths:
        try:
            loaded = yaml.safe_load(path.read_text())
        except OSError as e:
            refuse(prog, f"--config {path}: {e.strerror}")
        except yaml.YAMLError as e:
            refuse(prog, f"{path}: not YAML ({e})")
        if not isinstance(loaded, dict):
            refuse(prog, f"{path}: must be a mapping of config fields")
        if path.name == "config.yaml" and resume:  # the run's own, maybe as an earlier version wrote it
            loaded = upgraded(loaded, cls.RENAMED)
        values.update(loaded)  # a run's config.yaml has every field
    try:
        with unchecked():  # the flags may complete them: the values are checked with the flags applied
            return from_mapping(cls, values)
    except (ValueError, TypeError) as e:
        refuse(prog, str(e))


def parse(cls: type[C], argv: list[str] | None, description: str, prog: str) -> tuple[C, Start]:
    """The config given by ``--config FILE.yaml`` (defaults) and flags, and how to start the run.

    The flags are tyro's, from the config dataclass: a flag per field with its docstring and default, flat
    (``tyro.conf.OmitArgPrefixes``: ``--kitty-size``, not ``--rules.kitty-size``), booleans as ``--x`` /
    ``--no-x``, mixes and sizes read by :data:`Mix` and :data:`Sizes`. The values shown as defaults and
    kept for the flags not given are a ``--config`` file's, then a resumed run's own config; those two
    options are looked up before tyro reads the rest, as the defaults it shows depend on them.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    first = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    first.add_argument("--config")
    first.add_argument("--resume")
    known, _ = first.parse_known_args(args)
    defaults = _defaults(cls, known.config, known.resume, prog)
    description += "\n\nA --config file's values replace the defaults shown; the flags given replace both."
    parsed = _parse(cls, args, description, prog, defaults, RUN_OPTIONS, known.config, known.resume)
    if parsed.resume and (parsed.force or parsed.suffix):
        refuse(prog, "--resume continues a run; --force and --suffix start a new one: give one of them")
    return parsed.settings, Start(Path(parsed.resume) if parsed.resume else None, parsed.force, parsed.suffix)


RUN_OPTIONS: list[tuple[str, Any, Any]] = [
    (
        "config",
        Annotated[
            str | None,
            tyro.conf.arg(
                metavar="NAME|FILE.yaml",
                help=f"a built-in config by name ({', '.join(builtin_configs())}) or a YAML file: its values are the defaults",
            ),
        ],
        None,
    ),
    ("resume", Annotated[str | None, tyro.conf.arg(metavar="runs/NAME", help="continue a run from its last checkpoint")], None),
    (
        "force",
        Annotated[bool, tyro.conf.FlagCreatePairsOff, tyro.conf.arg(help="start anew in a run folder that exists, deleting it")],
        False,
    ),
    (
        "suffix",
        Annotated[
            bool, tyro.conf.FlagCreatePairsOff, tyro.conf.arg(help="start anew in the first free runs/NAME-2, NAME-3, ...")
        ],
        False,
    ),
]
"""A trainer's options besides its config's fields."""


def cli(cls: type[T], argv: list[str] | None, description: str, prog: str) -> T:
    """A command's config from its flags, by tyro: a flag per field of the dataclass ``cls`` with its
    docstring and default, flat (``--kitty-size``), ``--version`` as every command has it; a value that does
    not read or that the config refuses (a ``ValueError`` from its checks) is an error naming it, exit 2."""
    args = sys.argv[1:] if argv is None else list(argv)
    return _parse(cls, args, description, prog, None, []).settings


def _parse(cls: type[T], args: list[str], description: str, prog: str, default: T | None, options: list, *values: Any) -> Any:
    """tyro's reading of ``args`` into a ``cls`` (its fields flat, ``default`` its defaults) and ``options``
    besides (given ``values`` as defaults): the result's ``settings`` and each option by name."""
    version = (
        "version",
        Annotated[bool, tyro.conf.FlagCreatePairsOff, tyro.conf.arg(help="print the kit's version and exit")],
        False,
    )
    command = dataclasses.make_dataclass("Command", [("settings", Annotated[cls, tyro.conf.arg(name="")]), *options, version])
    return read(command, args, prog, description, __version__, None if default is None else command(default, *values))


def main_of(cls: type[C], train: typing.Callable[[C, Start], Any], argv: list[str] | None, description: str, prog: str) -> int:
    """A trainer's command line: parse, train, and a refused start (``ValueError``) as a one-line error, exit 2."""
    config, start = parse(cls, argv, description, prog)
    try:
        train(config, start)
    except ValueError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    return 0
