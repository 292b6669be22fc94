"""The weights that ship with the kit, by name, wherever it is installed (``smear_nets/weights/``; each file's
``.json`` beside it holds the commands that made it and its figures).

The networks: ``neural`` (the agent the kit plays by default), ``distilled`` (the ``neural`` of 0.2.0's
first day), ``chance`` (``distilled``'s card play with contracts valued by the game's win chance) and
``dmc`` (0.1.0's network, DMC self-play alone), and ``v0.3.0`` (the ``neural`` of release 0.3.0, the recipe's reference). Beside them the learned model of the hidden cards
(:data:`BELIEFS`) and the table of win chances of ``chance``'s play (:data:`CHANCES`).
"""

from __future__ import annotations

import os
from pathlib import Path

FOLDER = Path(os.environ.get("SMEAR_RL_WEIGHTS") or Path(__file__).parent / "weights")
"""Where the shipped weights are read: ``smear_nets/weights/`` beside this module, or the folder the environment variable
``SMEAR_RL_WEIGHTS`` names (an empty one proves that a run reads nothing the kit ships: ``tests/test_recipe.py``)."""
NETWORKS: dict[str, Path] = {name: FOLDER / f"{name}.pt" for name in ("neural", "distilled", "chance", "dmc")}
NETWORKS["v0.3.0"] = FOLDER / "neural.pt"  # 0.3.0's neural, by a name that stays when a new neural ships (its file then moves)
"""The shipped networks by name (``v0.3.0``: the ``neural`` of release 0.3.0, the reference of the recipe's figures)."""
BELIEFS = FOLDER / "beliefs.pt"
"""The learned model of where the hidden cards lie (``smear_nets`` kind ``beliefs``; ``search``'s default)."""
CHANCES = FOLDER / "win_chances.npz"
"""The table of win chances by score and dealer of the ``chance`` network's play (``agents.chances``; a spec's
``chances=win_chances``)."""


def weights_path(name: str | Path) -> Path:
    """The file a name stands for: a shipped network's name (``neural``, ``dmc``, ...), anything else a path."""
    return NETWORKS.get(str(name), Path(name))


def shipped_name(path: str | Path) -> str | None:
    """The name of a shipped network's file (for messages that must not show where the kit is installed)."""
    return next((name for name, file in NETWORKS.items() if file == Path(path)), None)
