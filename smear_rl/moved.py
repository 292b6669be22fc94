"""One release of grace for a module or package that moved: its old name is the new one, with a warning.

A module left at the old place is two lines (``train/export.py``)::

    from smear_rl.moved import moved
    moved("train.export", "train.tools.export", run=__name__ == "__main__")

``import train.export`` then gives the module ``train.tools.export`` itself (the same functions and globals, so
that a test patching one patches the other), and ``python -m train.export ARGS`` runs ``train.tools.export``'s
``main`` on ARGS, both with a DeprecationWarning naming the new place.

A package left at the old place (``nets/__init__.py``) calls :func:`moved_package`: the old name and every
module under it (``nets.shipped``, ``apps.web.app``) are the new package's modules themselves.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
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


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``OLD.x.y`` as the module ``NEW.x.y`` itself (imported under its own name first)."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new
        self.specs: dict[str, importlib.machinery.ModuleSpec | None] = {}  # each module's own, by its name

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(self.old + "."):
            return None
        real = self.new + fullname[len(self.old) :]
        if importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.new + spec.name[len(self.old) :])
        self.specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has set the module's __spec__ to the alias's: give it back its own.
        module.__spec__ = self.specs[module.__name__]


def moved_package(old: str, new: str) -> ModuleType:
    """The package ``new``, registered under ``old``, and every ``old.x`` importing as ``new.x`` (the same module
    object), with a DeprecationWarning naming the new name."""
    warnings.warn(f"{old} is {new}: the old name will go in the next release", DeprecationWarning, stacklevel=2)
    package = importlib.import_module(new)
    if not any(isinstance(f, _Alias) and f.old == old for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias(old, new))
    sys.modules[old] = package
    return package
