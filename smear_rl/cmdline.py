"""How every command of the kit reads its command line: the trainers and tools (``train.config``) and the apps
(``smear_apps.command``) alike.

:func:`read` is tyro's reading of a config dataclass, a flag per field with the docstring under it as its help,
a nested config's flags under its name (a recipe's ``exit: Exit`` gives ``--exit.teacher``) unless it is marked
:data:`Flat` (the rules: ``rules: Flat[Rules]`` gives ``--kitty-size``), and ``--version``; a value
that does not read, or that the config's checks refuse (a ``ValueError`` from ``__post_init__``), is
:func:`refuse`'s one line naming it, exit status 2.
"""

from __future__ import annotations

import sys
from typing import Annotated, NoReturn, TypeVar, cast

import tyro

T = TypeVar("T")
Flat = Annotated[T, tyro.conf.OmitArgPrefixes]
"""A nested config whose flags are flat: ``rules: Flat[Rules]`` gives ``--kitty-size``, not ``--rules.kitty-size``."""


def refuse(prog: str, message: str) -> NoReturn:
    """A refused command line as argparse says it: one line naming what was wrong, exit status 2."""
    print(f"usage: {prog} [-h] [OPTIONS]\n{prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def read(cls: type[T], args: list[str], prog: str, description: str, version: str, default: T | None = None) -> T:
    """The config ``cls`` from ``args`` (``default``'s values the defaults shown, when given); ``--version``
    prints ``prog version`` and exits."""
    if "--version" in args:
        print(f"{prog} {version}")
        raise SystemExit(0)
    try:
        config = tyro.cli(cls, args=args, prog=prog, description=description, default=default)
        return cast(T, config)
    except (ValueError, TypeError) as e:
        refuse(prog, str(e))
