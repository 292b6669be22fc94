"""How every command of the kit reads its command line: the trainers and tools (``train.config``) and the apps
(``smear_apps.command``) alike.

:func:`read` is tyro's reading of a config dataclass, a flag per field with the docstring under it as its help,
flat (a nested ``rules: Rules`` gives ``--kitty-size``: ``tyro.conf.OmitArgPrefixes``), and ``--version``; a value
that does not read, or that the config's checks refuse (a ``ValueError`` from ``__post_init__``), is
:func:`refuse`'s one line naming it, exit status 2.
"""

from __future__ import annotations

import sys
from typing import NoReturn, TypeVar, cast

import tyro

T = TypeVar("T")


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
        config = tyro.cli(
            cls, args=args, prog=prog, description=description, default=default, config=(tyro.conf.OmitArgPrefixes,)
        )
        return cast(T, config)
    except (ValueError, TypeError) as e:
        refuse(prog, str(e))
