"""How every command of the kit reads its command line: a config dataclass, by tyro.

A flag per field, its docstring the help, flat (``tyro.conf.OmitArgPrefixes``: a nested ``rules: Rules`` gives
``--kitty-size``; 0.2.0's ``--rules.kitty-size`` is still read), booleans as ``--x`` / ``--no-x``, positional where
a field says ``tyro.conf.Positional``, and ``--version``. A value that does not read, or that the config's checks
refuse (a ``ValueError`` from ``__post_init__``), is one line naming it, exit status 2. The trainers
(``train.config.parse``) and the apps (``apps.command``) both read theirs here.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Annotated, Any, NoReturn

import tyro


def refuse(prog: str, message: str) -> NoReturn:
    """A refused command line as argparse says it: one line naming what was wrong, exit status 2."""
    print(f"usage: {prog} [-h] [OPTIONS]\n{prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def arguments(argv: list[str] | None) -> list[str]:
    """The command line (``sys.argv`` when None), 0.2.0's ``--rules.NAME`` spellings read as ``--NAME``."""
    args = sys.argv[1:] if argv is None else list(argv)
    return ["--" + a.removeprefix("--rules.") if a.startswith("--rules.") else a for a in args]


def read(
    cls: type, args: list[str], description: str, prog: str, version: str, default: Any = None, options: tuple = (), *values: Any
) -> Any:
    """tyro's reading of ``args``: the result's ``settings`` is a ``cls`` (its fields flat, ``default`` its
    defaults), each of ``options`` (``(name, type, default)`` fields beside them, given ``values``) by name."""
    if "--version" in args:
        print(f"{prog} {version}")
        raise SystemExit(0)
    flag = (
        "version",
        Annotated[bool, tyro.conf.FlagCreatePairsOff, tyro.conf.arg(help="print the kit's version and exit")],
        False,
    )
    command = dataclasses.make_dataclass("Command", [("settings", Annotated[cls, tyro.conf.arg(name="")]), *options, flag])
    try:
        return tyro.cli(
            command,
            args=args,
            prog=prog,
            description=description,
            default=None if default is None else command(default, *values),
            config=(tyro.conf.OmitArgPrefixes,),
        )
    except (ValueError, TypeError) as e:
        refuse(prog, str(e))
