"""The command-line flags of the kit: every command is an ``argparse`` program built with these, so that a flag
is spelled, checked and described the same way everywhere.

* :func:`add_version_flag`: ``--version``.
* :func:`add_rule_flags` / :func:`rules_from_args`: the rule settings, ``--kitty-size 2``,
  ``--stick-the-dealer`` (``--no-stick-the-dealer``), ..., described from :class:`smear_env.Rules`.
* :func:`add_config_flags` / :func:`given_values`: a flag for each field of a config dataclass (a trainer's),
  ``--num-envs 64``, ``--hidden 256 256``, each with its one-line docstring and default in ``--help``; only
  the flags given are read back, so that a config file's values stay the defaults of the rest.

A field's type says how its flag reads: ``int``, ``float``, ``str`` (``none`` for an optional one),
``bool`` (``--x`` / ``--no-x``), a ``Literal`` (its choices), a tuple of them, or an ``Annotated`` type with
a :class:`Flag` (``nargs`` and a function that reads the strings). A value that does not read is the
error ``config NAME=VALUE: must be ...``, as a bad value in a config file is.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import __version__
from .rules import Rules

RULES = "rules."
"""The prefix of the rule settings' values read back by :func:`given_values` (``rules.kitty_size``)."""


@dataclass(frozen=True)
class Flag:
    """How an ``Annotated`` field's flag reads: ``nargs`` strings, turned into the value by ``parse``."""

    parse: Callable[[list[str]], Any]
    nargs: str = "+"
    metavar: str | None = None
    show: Callable[[Any], str] = str
    """The default as ``--help`` shows it."""


class _WithDefaults(argparse.HelpFormatter):
    """Help that ends with the option's default, unless it says it already or there is none to say."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        quiet = action.default in (None, False, [], argparse.SUPPRESS) or not action.option_strings
        return text if quiet or "(default" in text else f"{text} (default: %(default)s)"


def command_parser(prog: str, description: str, epilog: str | None = None) -> argparse.ArgumentParser:
    """The parser of a command of the kit: ``--help`` shows each option's default, ``--version`` the kit's version."""
    parser = argparse.ArgumentParser(prog=prog, description=description, epilog=epilog, formatter_class=_WithDefaults)
    add_version_flag(parser)
    return parser


def add_version_flag(parser: argparse.ArgumentParser) -> None:
    """``--version``: the command's name and the kit's version (``smear-eval 0.3.0``), as every command prints it."""
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}", help="print the kit's version and exit")


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass (and of its bases), by field name."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__[:-1]):
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for node, after in zip(body, body[1:], strict=False):
            if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(after, ast.Expr)):
                continue
            if isinstance(after.value, ast.Constant) and isinstance(after.value.value, str):
                docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def _reader(name: str, kind: type, what: str) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"config {name}={text!r}: must be {what}") from None

    return read


def _optional(read: Callable[[str], Any]) -> Callable[[str], Any]:
    return lambda text: None if text.lower() in ("none", "null") else read(text)


def _add(group: Any, flags: list[str], dest: str, hint: Any, default: Any, doc: str, suppress: bool) -> None:
    """One flag for a field of type ``hint``."""
    name = dest.removeprefix(RULES)
    options: dict[str, Any] = {"dest": dest, "default": argparse.SUPPRESS if suppress else default}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    optional = origin in (typing.Union, types.UnionType) and type(None) in args
    if optional:
        hint = next(a for a in args if a is not type(None))
        origin, args = typing.get_origin(hint), typing.get_args(hint)
    shown = default
    if origin is typing.Annotated:
        flag = next(a for a in args[1:] if isinstance(a, Flag))
        options.update(nargs=flag.nargs, metavar=flag.metavar, type=str)
        options["action"] = _Parsed.using(flag.parse, name)
        shown = flag.show(default)
    elif hint is bool:
        options["action"] = argparse.BooleanOptionalAction
    elif origin is typing.Literal:
        options["choices"] = list(args)
    elif origin is tuple and typing.get_origin(args[0]) is typing.Literal:
        options.update(nargs="+", choices=list(typing.get_args(args[0])), type=str)
        options["action"] = _Parsed.using(tuple, name)
    elif hint in (int, float, str):
        what = {int: "an int", float: "a number", str: "a string"}[hint]
        read = _reader(name, hint, what)
        options["type"] = _optional(read) if optional else read
        options["metavar"] = {int: "N", float: "X", str: "TEXT"}[hint]
    else:
        raise TypeError(f"{dest}: no flag for a field of type {hint!r}")
    if optional and shown is None:
        shown = "none"
    group.add_argument(*flags, help=f"{doc} (default: {shown})", **options)


class _Parsed(argparse.Action):
    """Strings read into a value by a function (an ``Annotated`` field's :class:`Flag`, a tuple of choices)."""

    parse: Callable[[list[str]], Any] = staticmethod(tuple)
    name = ""

    @classmethod
    def using(cls, parse: Callable[[list[str]], Any], name: str) -> type[argparse.Action]:
        return type("Parsed", (cls,), {"parse": staticmethod(parse), "name": name})

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        try:
            setattr(namespace, self.dest, self.parse(list(values)))
        except ValueError as e:
            parser.error(f"argument {option_string}: config {self.name}: {e}")


def add_rule_flags(parser: argparse.ArgumentParser, given_only: bool = False, also_dotted: bool = False) -> None:
    """A flag for every rule setting (``--kitty-size 2``, ``--stick-the-dealer``, ...), read back by
    :func:`rules_from_args`. ``given_only``: only the flags given appear in the result (a config file's
    rules stay the defaults); ``also_dotted``: each is also spelled ``--rules.kitty-size`` (0.2.0's trainers)."""
    group = parser.add_argument_group("rule settings (docs/rules.md)")
    hints, docs, defaults = typing.get_type_hints(Rules), field_docs(Rules), Rules()
    for f in dataclasses.fields(Rules):
        flag = "--" + f.name.replace("_", "-")
        flags = [flag] + ([f"--rules.{f.name.replace('_', '-')}"] if also_dotted else [])
        _add(group, flags, RULES + f.name, hints[f.name], getattr(defaults, f.name), docs.get(f.name, ""), given_only)


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The Rules given by :func:`add_rule_flags`' flags (validated)."""
    return Rules.from_dict({k.removeprefix(RULES): v for k, v in vars(args).items() if k.startswith(RULES)})


def add_config_flags(parser: argparse.ArgumentParser, cls: type) -> None:
    """A flag for every field of the dataclass ``cls`` but a nested :class:`Rules` (its fields get
    :func:`add_rule_flags`' flags), each shown with its docstring and default; read back by :func:`given_values`."""
    hints, docs = typing.get_type_hints(cls, include_extras=True), field_docs(cls)
    group = parser.add_argument_group(f"{cls.__module__}.{cls.__qualname__} fields")
    for f in dataclasses.fields(cls):
        if hints[f.name] is Rules:
            add_rule_flags(parser, given_only=True, also_dotted=True)
            continue
        default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
        _add(group, ["--" + f.name.replace("_", "-")], f.name, hints[f.name], default, docs.get(f.name, ""), True)


def given_values(args: argparse.Namespace, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The values of the flags given on the command line (:func:`add_config_flags`), the rule settings as
    one ``rules`` mapping; ``skip`` names the parser's other options."""
    values: dict[str, Any] = {}
    for key, value in vars(args).items():
        if key in skip:
            continue
        if key.startswith(RULES):
            values.setdefault("rules", {})[key.removeprefix(RULES)] = value
        else:
            values[key] = value
    return values
