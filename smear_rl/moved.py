"""One release of grace for a module that moved: its old name is the new module, with a warning.

A module left at the old place is two lines (``train/export.py``)::

    from smear_rl.moved import moved
    moved("train.export", "train.tools.export", run=__name__ == "__main__")

``import train.export`` then gives the module ``train.tools.export`` itself (the same functions and globals, so
that a test patching one patches the other), and ``python -m train.export ARGS`` runs ``train.tools.export``'s
``main`` on ARGS, both with a DeprecationWarning naming the new place.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from types import ModuleType


def moved(old: str, new: str, *, run: bool = False) -> ModuleType:
    """The module ``new``, registered under ``old`` too; with ``run`` (the old name run as a command) it runs
    ``new.main()`` and exits with its code, after a line on stderr that names the new command."""
    warnings.warn(f"{old} is {new}: the old name will go in the next release", DeprecationWarning, stacklevel=2)
    module = importlib.import_module(new)
    if run:
        print(f"python -m {old}: now python -m {new} (this name will go)", file=sys.stderr)
        sys.exit(module.main())
    sys.modules[old] = module
    return module
