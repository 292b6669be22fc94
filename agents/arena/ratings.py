"""Leagues: Elo ratings (a Bradley-Terry fit) with their spread over resampled deal sets, and their plot."""

from __future__ import annotations

import numpy as np

from smear_rl.extras import need

from .results import MatchResult


def fit_elo(names: list[str], games: list[tuple[int, int, float]], iterations: int = 2000) -> np.ndarray:
    """Bradley-Terry (Elo scale) ratings from (i, j, score of i) games, mean 1500."""
    n = len(names)
    wins = np.zeros((n, n))
    count = np.zeros((n, n))
    for i, j, s in games:
        wins[i, j] += s
        wins[j, i] += 1 - s
        count[i, j] += 1
        count[j, i] += 1
    # Half a win and half a loss against every opponent keep unbeaten agents finite.
    wins += 0.5 * (count > 0)
    count += 1.0 * (count > 0)
    strength = np.ones(n)
    for _ in range(iterations):
        denom = (count / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = wins.sum(axis=1) / np.maximum(denom, 1e-12)
        updated /= np.exp(np.log(updated).mean())
        if np.allclose(updated, strength, rtol=1e-10):
            break
        strength = updated
    ratings = 400 * np.log10(strength)
    return ratings - ratings.mean() + 1500


def league_ratings(names: list[str], matches: dict[tuple[int, int], MatchResult], seed: int = 0, resamples: int = 200):
    """Elo ratings and their standard deviation over bootstrap resamples of each match's deal sets."""

    def games_of(pick: dict[tuple[int, int], np.ndarray]) -> list[tuple[int, int, float]]:
        out: list[tuple[int, int, float]] = []
        for (i, j), match in matches.items():
            for row in match.outcomes()[pick[(i, j)]]:
                out.extend((i, j, float(s)) for s in row)
        return out

    full = {key: np.arange(len(m.deal_sets)) for key, m in matches.items()}
    ratings = fit_elo(names, games_of(full))
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(resamples):
        pick = {key: rng.integers(len(m.deal_sets), size=len(m.deal_sets)) for key, m in matches.items()}
        samples.append(fit_elo(names, games_of(pick), iterations=300))
    return ratings, np.std(samples, axis=0)


def plot_ratings(names: list[str], ratings: np.ndarray, spread: np.ndarray, path: str) -> None:
    """Ratings as points with +-2 sd error bars (the axis fits the intervals), written to ``path``."""
    need("matplotlib", "a league's plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from smear_env.files import atomic_write

    order = np.argsort(ratings)
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(names) + 1.5))
    ax.errorbar(ratings[order], range(len(names)), xerr=2 * spread[order], fmt="o", color="#4c72b0", capsize=4)
    ax.set_yticks(range(len(names)), [names[i] for i in order])
    ax.set_ylim(-0.5, len(names) - 0.5)
    ax.axvline(1500, color="0.8", lw=1, zorder=0)
    ax.set_xlabel("Elo (Bradley-Terry fit, mean 1500; error bars +-2 sd over resampled deal sets)")
    ax.set_title("smear-rl league")
    fig.tight_layout()
    try:
        atomic_write(path, lambda f: fig.savefig(f, format="png"), binary=True)
    finally:
        plt.close(fig)
