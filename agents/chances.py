"""A table of each team's chance of winning the game from a score and a dealer (``smear-chances/1``).

``python -m train.chance_table`` makes one from a network's own hands (see that module); DMC's
``target: chance``, the rollouts of ``search`` (``chances=FILE``) and
``experiments/contract_regret.py --chances`` read it to value a hand by the change it makes to the
team's chance of winning instead of by its margin. The kit ships one, ``win_chances`` (the table of the
built-in ``chance`` network's own play): wherever a table is asked for, that name gives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from smear_env import SmearVectorEnv
from smear_nets.shipped import CHANCES

SHIPPED = "win_chances"
"""The name that stands for the shipped table (``chances=win_chances``; ``chance`` is a network)."""

FORMAT = "smear-chances/1"


@dataclass(frozen=True)
class Chances:
    """The table: ``chance[dealer, a - low, b - low]`` for team 0 at ``a``, team 1 at ``b`` (scores below ``low`` count as ``low``)."""

    chance: np.ndarray  # [4, S, S] float64
    low: int
    target_score: int
    scale: float

    def team0(self, scores: np.ndarray, dealer: np.ndarray) -> np.ndarray:
        """Team 0's chance at each row's ``scores`` ([n, 2], both below the target) with ``dealer`` dealing ([n])."""
        a = np.clip(scores[:, 0], self.low, self.target_score - 1) - self.low
        b = np.clip(scores[:, 1], self.low, self.target_score - 1) - self.low
        return self.chance[dealer, a, b]

    def after_hands(self, venv: SmearVectorEnv, info: dict, games: np.ndarray, done: np.ndarray) -> np.ndarray:
        """Team 0's chance after the hands of ``games`` of ``venv`` that its last step ended (``done``: the game
        ended too, ``info`` the step's): the table's at the next hand's start (a new dealer, or the same after
        a throw-in, R7), 1 or 0 for a game won or lost, 0.5 for one cut short (R16)."""
        after = self.team0(venv.scores[games], venv.dealer[games].astype(np.int64))
        if done.any():
            winner = info["final_winner"][games[done]]
            after[done] = np.where(winner == 0, 1.0, np.where(winner == 1, 0.0, 0.5))
        return after

    def hand_change(
        self, venv: SmearVectorEnv, info: dict, games: np.ndarray, done: np.ndarray, scores: np.ndarray, dealer: np.ndarray
    ) -> np.ndarray:
        """The change the hands of ``games`` (as :meth:`after_hands`) made to team 0's chance, times the table's
        scale, from ``scores`` ([len(games), 2]) and ``dealer`` ([len(games)]) at their start: a hand's value in
        margin-sized units (team 1's is its negative)."""
        return self.scale * (self.after_hands(venv, info, games, done) - self.team0(scores, dealer))

    def save(self, path: str | Path) -> None:
        """Write the table to ``path`` (.npz) whole: a partial file first, then renamed over it."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial.npz")
        np.savez(partial, format=FORMAT, chance=self.chance, low=self.low, target_score=self.target_score, scale=self.scale)
        partial.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> Chances:
        """A table ``python -m train.chance_table`` wrote (``win_chances``: the shipped one); a ValueError naming the
        file if it is not one."""
        if str(path) == "chance":
            raise ValueError(f"chances=chance: the shipped table is {SHIPPED} since 0.4.0 (chance is a network)")
        path = CHANCES if str(path) == SHIPPED else path
        try:
            with np.load(path) as data:
                if str(data["format"]) != FORMAT:
                    raise ValueError(f"format {data['format']}, not {FORMAT}")
                return cls(data["chance"], int(data["low"]), int(data["target_score"]), float(data["scale"]))
        except (OSError, KeyError, ValueError) as e:
            raise ValueError(
                f"{path}: not a table of win chances ({FORMAT}, made by python -m train.chance_table): {e}"
            ) from None
