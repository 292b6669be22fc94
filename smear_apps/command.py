"""What every app (``smear-play``, ``smear-eval``, ``smear-records``, ``smear-web``, ``smear-exploit``) does
around its body: its options read from a config dataclass by tyro (:func:`cli`), and a missing extra
reported as one line (:func:`command`).

A config's fields are its options, each with the docstring under it as its help: flat (a nested
``rules: Flat[Rules]`` gives ``--kitty-size``: ``smear_rl.cmdline.Flat``), booleans as ``--x`` / ``--no-x``,
positional where the field says ``tyro.conf.Positional``. A value that does not read, or that the
config's checks refuse (a ``ValueError`` from ``__post_init__``), is one line naming it, exit status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

from smear_env import __version__
from smear_rl.cmdline import read, refuse
from smear_rl.extras import missing

__all__ = ["cli", "command", "exploit", "refuse"]
T = TypeVar("T")


def cli(cls: type[T], argv: list[str] | None, description: str, prog: str) -> T:
    """The config ``cls`` read from ``argv`` (the command line when None); ``--version`` prints the kit's."""
    args = sys.argv[1:] if argv is None else list(argv)
    return read(cls, args, prog, f"{description}\n\n--version prints the kit's version.", __version__)


@contextmanager
def command(prog: str) -> Iterator[None]:
    """Run a command's body: a missing extra (at import or later) is one line on stderr and exit code 2."""
    try:
        yield
    except ImportError as error:
        found = missing(error, prog)
        if found is None:
            raise
        print(f"{prog}: error: {found}", file=sys.stderr)
        raise SystemExit(2) from None


@command("smear-exploit")
def exploit(argv: list[str] | None = None) -> int:
    """``smear-exploit``: the best response to an agent and its control, ``train.tools.exploit.main`` (the tool's one
    module; this is its command, which says in one line when the ``train`` extra is missing)."""
    from train.tools.exploit import main

    return main(argv)
