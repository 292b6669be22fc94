"""The fast core: each rule once more, as numba functions over card bit masks (bit ``c`` is card ``c``).

The readable expression of every rule is the reference engine, :mod:`smear_env.game`. The
batched engine's kernels, the double-dummy solver and PIMC call the functions here, and
``tests/test_core.py`` proves them equal to the engine over random positions under every
rule setting (with the batched engine's parity test and the solver's principal lines).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def team_reward(mode: int, change: float, other_change: float, outcome: int) -> float:
    """A team's reward when a hand ends, for every env; ``mode`` is the index of ``reward=`` in
    :data:`smear_env.rules.REWARDS`: 0 (game) +1 when the team won the game, -1 when the
    other team did (``outcome`` +1 / -1 / 0); 1 (hand) its own score change; 2 (margin) its score
    change minus the other team's."""
    if mode == 0:
        return float(outcome)
    if mode == 1:
        return change
    return change - other_change
