"""The optional parts of the kit and what each needs installed: a missing one is one line that names the
extra and the pip command, never a traceback.

``pip install smear-rl`` gives the rules, the envs and the records; the rest comes with extras:
``train`` (PyTorch, the trainers and the network agents), ``web`` (``smear-web``), ``plot`` (a league's
plot), ``ray`` (clusters), ``sb3`` (the Stable-Baselines3 example), ``openspiel`` and ``rlcard`` (the game in
those frameworks). :func:`need` checks for a module
without importing it; :func:`missing` turns an import that failed into the same message (a command runs its
body inside ``smear_apps.command.command``, which prints that message and exits with code 2). They sit on the
lowest floor that needs them (``smear_rl``, under the rules): the Ray cluster, the agents of the extras and
the commands check here.
"""

from __future__ import annotations

import importlib.util

EXTRAS = {
    "torch": "train",
    "tensorboard": "train",
    "yaml": "train",
    "starlette": "web",
    "uvicorn": "web",
    "matplotlib": "plot",
    "ray": "ray",
    "sb3_contrib": "sb3",
    "stable_baselines3": "sb3",
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
    "rlcard": "rlcard",
}
"""Each optional module (its top-level name) and the extra that installs it."""


class MissingExtraError(ImportError, ValueError):
    """An optional module that is not installed; the message names the extra and the pip command. A
    ValueError too, so that whatever reports a bad setting as one line reports this as one line."""


def _message(module: str, what: str) -> str:
    extra = EXTRAS.get(module, module)
    return f"{what} needs the {extra!r} extra (no module named {module!r}): pip install 'smear-rl[{extra}]'"


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (found, not imported)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # an import hook that refuses it, or a half-imported module
        return False


def need(module: str, what: str) -> None:
    """A :class:`MissingExtraError` naming the extra for ``what`` unless ``module`` is installed."""
    if not installed(module):
        raise MissingExtraError(_message(module, what), name=module)


def missing(error: ImportError, what: str) -> MissingExtraError | None:
    """The :class:`MissingExtraError` an import error stands for (a module of an extra), else None."""
    if isinstance(error, MissingExtraError):
        return error
    top = (error.name or "").split(".")[0]
    return MissingExtraError(_message(top, what), name=top) if top in EXTRAS else None
