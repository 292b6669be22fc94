"""Head-to-head matches in the duplicate format, and leagues with ratings.

Duplicate format: deal set ``d`` is one game seed; it is played twice, once with A's
partnership in seats 0 and 2 and once with A in seats 1 and 3. The deals of a game
depend only on its seed (never on the play), so both games see the same cards hand
by hand, and pairing their results cancels most of the card luck.
"""

from __future__ import annotations

import importlib.util
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from smear_env import Game, Rules, __version__, observe, seat_view
from smear_env.game import game_label, game_rng

from .base import Agent, load_agent

CATEGORIES = ("high", "low", "jack", "game")


@dataclass
class DealSetResult:
    """What happened in the two games of one deal set, from A's side (index 0 = A, 1 = B)."""

    deal_set: int
    outcomes: list[float]  # A's result in each game: 1 win, 0.5 truncated (R16), 0 loss
    margins: list[int]  # A's final score minus B's, each game
    truncated: int = 0  # games of the two ended by the hand limit (R16)
    hands: int = 0  # scored hands in both games
    points: np.ndarray = field(default_factory=lambda: np.zeros((2, 4), dtype=np.int64))
    bid_turns: np.ndarray = field(default_factory=lambda: np.zeros(2, dtype=np.int64))
    bids: np.ndarray = field(default_factory=lambda: np.zeros((2, 3), dtype=np.int64))
    contracts: np.ndarray = field(default_factory=lambda: np.zeros((2, 3), dtype=np.int64))
    made: np.ndarray = field(default_factory=lambda: np.zeros((2, 3), dtype=np.int64))
    decisions: np.ndarray = field(default_factory=lambda: np.zeros(2, dtype=np.int64))
    seconds: np.ndarray = field(default_factory=lambda: np.zeros(2, dtype=np.float64))
    records: list[dict[str, Any]] = field(default_factory=list)


def play_deal_set(agents: tuple[Agent, Agent], rules: Rules, seed: int, deal_set: int, keep_records: bool) -> DealSetResult:
    """Play deal set ``deal_set`` twice, partnerships swapped (see :func:`play_deal_sets`)."""
    return play_deal_sets(agents, rules, seed, [deal_set], keep_records)[0]


def play_deal_sets(
    agents: tuple[Agent, Agent], rules: Rules, seed: int, deal_sets: list[int], keep_records: bool
) -> list[DealSetResult]:
    """Play each deal set twice, partnerships swapped. The games go on in lockstep when both agents
    allow it: a batched agent (a network) then decides for all the games where it is to act in
    one call, which is what keeps a GPU busy. Each game gives each side its own random generator
    (seeded by seed, deal set, swap and seat), so results do not depend on which games are
    played together, nor on the number of workers."""
    for agent in agents:
        agent.check_rules(rules)
    results = [DealSetResult(d, [], []) for d in deal_sets]
    games, sides, generators = [], [], []
    for d in deal_sets:
        for swap in (0, 1):
            side = [(seat + swap) & 1 for seat in range(4)]  # side[seat]: 0 for A, 1 for B
            games.append(Game(rules, game_rng(seed, d, 0), game_id=f"{game_label(seed, d, 0)}-{'AB'[swap]}"))
            sides.append(side)
            # Each side's generator is seeded by its last seat (as reseeding the agent seat by seat did).
            generators.append(
                [np.random.default_rng([seed, d, swap, max(s for s in range(4) if side[s] == who)]) for who in (0, 1)]
            )
    lockstep = all(agent.independent for agent in agents)
    groups = [list(range(len(games)))] if lockstep else [[g] for g in range(len(games))]
    for group in groups:
        while True:
            waiting = [g for g in group if not games[g].game_over]
            if not waiting:
                break
            for who, agent in enumerate(agents):
                turn = [g for g in waiting if not games[g].game_over and sides[g][games[g].to_act] == who]
                if turn:
                    _decide(
                        agent, who, [games[g] for g in turn], [generators[g][who] for g in turn], [results[g // 2] for g in turn]
                    )
    for g, game in enumerate(games):
        _count(results[g // 2], game, swap=g % 2, side=sides[g], keep_records=keep_records)
    return results


def _decide(
    agent: Agent, who: int, games: list[Game], generators: list[np.random.Generator], results: list[DealSetResult]
) -> None:
    """One move in each of ``games`` by ``agent`` (side ``who``): batched if it can, else game by game."""
    start = time.perf_counter()
    if agent.batched and len(games) > 1:
        observations = np.stack([observe(game, game.to_act) for game in games])
        masks = np.stack([game.action_mask() for game in games])
        actions = agent.act_batch(observations, masks, None)
        elapsed = (time.perf_counter() - start) / len(games)
        for game, action, result in zip(games, actions, results, strict=True):
            game.step(int(action))
            result.seconds[who] += elapsed
            result.decisions[who] += 1
        return
    for game, generator, result in zip(games, generators, results, strict=True):
        seat = game.to_act
        agent.rng = generator
        start = time.perf_counter()
        action = agent.act(observe(game, seat), game.action_mask(), seat_view(game, seat))
        result.seconds[who] += time.perf_counter() - start
        result.decisions[who] += 1
        game.step(int(action))


def _count(result: DealSetResult, game: Game, swap: int, side: list[int], keep_records: bool) -> None:
    """Add a finished game to its deal set's result, from A's side."""
    a_team = swap  # A holds seats 0, 2 (team 0) when swap == 0
    result.outcomes.append(0.5 if game.winner is None else float(game.winner == a_team))
    result.truncated += game.truncated
    result.margins.append(game.scores[a_team] - game.scores[1 - a_team])
    for record in game.records:
        for s, b in record["bids"]:
            result.bid_turns[side[s]] += 1
            if b:
                result.bids[side[s], b - 2] += 1
        if record["redeal"]:
            continue
        result.hands += 1
        for k, category in enumerate(CATEGORIES):
            team = record["points"][category]
            if team is not None:
                result.points[int(team != a_team), k] += 1
        who = side[record["bidder"]]
        result.contracts[who, record["bid"] - 2] += 1
        result.made[who, record["bid"] - 2] += record["made_bid"]
    if keep_records:
        for record in game.records:
            record["agents"] = [("A", "B")[side[s]] for s in range(4)]
        result.records.extend(game.records)


def _share_cores(threads: int) -> None:
    """A worker's start: its numeric libraries (torch's intra-op pool) use ``threads`` threads, its
    share of the machine, so that K workers do not run K times the cores' threads."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(threads)
    if "torch" in sys.modules:  # imported already (by an agent module): tell it directly
        sys.modules["torch"].set_num_threads(threads)


def _play_chunk(specs: tuple[str, str], rules: Rules, seed: int, deal_sets: list[int], keep_records: bool) -> list[DealSetResult]:
    agents = (load_agent(specs[0]), load_agent(specs[1]))
    return play_deal_sets(agents, rules, seed, deal_sets, keep_records)


@dataclass
class MatchResult:
    """A match of A against B: every deal set's results and the summary statistics."""

    agents: tuple[str, str]
    rules: Rules
    seed: int | tuple[int, ...]  # several: matches pooled (``pool_matches``)
    deal_sets: list[DealSetResult]

    @property
    def games(self) -> int:
        """Games played: two per deal set."""
        return 2 * len(self.deal_sets)

    def outcomes(self) -> np.ndarray:
        """[deal sets, 2] A's result in each game."""
        return np.array([d.outcomes for d in self.deal_sets], dtype=np.float64)

    def win_rate_ci95(self) -> tuple[float, float, float]:
        """A's game win rate (a game truncated by the hand limit, R16, counts as half a win) and a
        95% interval over paired deal sets.

        Normal interval on the deal-set means, with one won and one lost pseudo deal set
        added (in the manner of Agresti and Caffo) so that it never collapses to a point.
        """
        per_set = self.outcomes().mean(axis=1)
        rate = float(per_set.mean())
        padded = np.concatenate([per_set, [0.0, 1.0]])
        half = 1.96 * padded.std(ddof=1) / math.sqrt(padded.size)
        centre = padded.mean()
        return rate, float(max(0.0, centre - half)), float(min(1.0, centre + half))

    def summary(self) -> dict[str, Any]:
        """The match's figures as plain values (what ``smear-eval --json`` writes), with the kit's version that played it."""
        sets = self.deal_sets
        hands = sum(d.hands for d in sets)
        points, bid_turns, bids, contracts, made, decisions, seconds = (
            np.sum([getattr(d, key) for d in sets], axis=0)
            for key in ("points", "bid_turns", "bids", "contracts", "made", "decisions", "seconds")
        )
        rate, low, high = self.win_rate_ci95()
        margins = np.array([m for d in sets for m in d.margins], dtype=np.float64)
        names = self.agents
        return {
            "smear_rl_version": __version__,
            "agents": list(names),
            "games": self.games,
            "deal_sets": len(sets),
            "seed": self.seed if isinstance(self.seed, int) else list(self.seed),
            "rules": self.rules.to_dict(),
            "win_rate": rate,
            "win_rate_ci95": [low, high],
            "truncated_games": sum(d.truncated for d in sets),
            "truncated_games_count_as": 0.5,
            "score_margin_per_game": float(margins.mean()),
            "score_margin_per_hand": float(margins.sum() / max(hands, 1)),
            "hands": hands,
            "points_by_category": {
                name: {c: float(points[i, k] / max(hands, 1)) for k, c in enumerate(CATEGORIES)} for i, name in enumerate(names)
            },
            "bid_rate": {
                name: {str(b + 2): float(bids[i, b] / max(bid_turns[i], 1)) for b in range(3)} for i, name in enumerate(names)
            },
            "made_bid_rate": {
                name: {str(b + 2): (float(made[i, b] / contracts[i, b]) if contracts[i, b] else None) for b in range(3)}
                for i, name in enumerate(names)
            },
            "contracts": {name: {str(b + 2): int(contracts[i, b]) for b in range(3)} for i, name in enumerate(names)},
            "decisions_per_second": {name: float(decisions[i] / max(seconds[i], 1e-9)) for i, name in enumerate(names)},
        }

    def records(self) -> list[dict[str, Any]]:
        """Every hand of the match as hand records (when it was played with ``keep_records``), deal set by deal set."""
        return [r for d in self.deal_sets for r in d.records]


def pool_matches(matches: list[MatchResult]) -> MatchResult:
    """Matches of the same two agents under the same rules on different seeds as one: their deal
    sets together. Deal sets are independent whatever their seed, so the pooled interval is the
    one a single match of all those games would give (figures gathered over several runs are
    reported whole, none left out)."""
    if not matches:
        raise ValueError("pool_matches: no matches to pool")
    first = matches[0]
    seeds: list[int] = []
    for match in matches:
        if match.agents != first.agents or match.rules != first.rules:
            raise ValueError(
                f"pool_matches: {' vs '.join(match.agents)} ({match.rules.to_dict()}) is not the same match as "
                f"{' vs '.join(first.agents)} ({first.rules.to_dict()}): only the same agents under the same rules pool"
            )
        seeds.extend([match.seed] if isinstance(match.seed, int) else match.seed)
    twice = sorted({s for s in seeds if seeds.count(s) > 1})
    if twice:
        raise ValueError(f"pool_matches: seed {', '.join(map(str, twice))} more than once: a seed's deal sets would count twice")
    return MatchResult(first.agents, first.rules, tuple(seeds), [d for m in matches for d in m.deal_sets])


def need_ray(what: str) -> None:
    """A ValueError naming the extra to install unless Ray is there (found, not imported: it is optional)."""
    try:
        found = importlib.util.find_spec("ray") is not None
    except ImportError:  # an import hook that refuses it
        found = False
    if not found:
        raise ValueError(f"{what} needs Ray (No module named 'ray'): pip install -e '.[ray]'")


def run_match(
    spec_a: str,
    spec_b: str,
    games: int,
    seed: int = 0,
    rules: Rules | None = None,
    workers: int = 1,
    keep_records: bool = False,
    progress: Callable[[int], None] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> MatchResult:
    """Play ``games`` games (rounded up to whole deal sets) of A against B in the duplicate format,
    in ``workers`` local processes, or as Ray tasks (``backend="ray"``; ``address``: the cluster to
    join, None starts a local Ray; ``workers`` defaults to the cluster's CPUs).

    Results are identical for the same seed whatever the workers and the backend.
    """
    if games < 2:
        raise ValueError(f"games={games}: a duplicate match needs at least 2 games (one deal set)")
    if workers < 1:
        raise ValueError(f"workers={workers}: must be at least 1")
    if backend not in ("local", "ray"):
        raise ValueError(f"backend={backend!r}: local or ray")
    rules = rules or Rules()
    for spec in (spec_a, spec_b):
        load_agent(spec).check_rules(rules)  # fail early, in this process, on a bad spec
    deal_sets = list(range((games + 1) // 2))
    chunk = max(1, min(100, len(deal_sets) // (4 * workers) or 1))  # a chunk's games go in lockstep
    chunks = [deal_sets[i : i + chunk] for i in range(0, len(deal_sets), chunk)]
    results: list[DealSetResult] = []
    if backend == "ray":
        need_ray("backend 'ray'")
        from .ray_arena import play_chunks  # Ray is imported only on this path

        results = play_chunks((spec_a, spec_b), rules, seed, chunks, keep_records, address, progress)
    elif workers == 1:
        agents = (load_agent(spec_a), load_agent(spec_b))
        for part in chunks:
            results.extend(play_deal_sets(agents, rules, seed, part, keep_records))
            if progress:
                progress(2 * len(part))
    else:
        # Spawned, not forked: a fork after torch or numba started their threads can deadlock the children.
        threads = max(1, (os.cpu_count() or 1) // workers)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=context, initializer=_share_cores, initargs=(threads,)) as pool:
            futures = [pool.submit(_play_chunk, (spec_a, spec_b), rules, seed, part, keep_records) for part in chunks]
            for future in futures:
                played = future.result()
                results.extend(played)
                if progress:
                    progress(2 * len(played))
    results.sort(key=lambda d: d.deal_set)
    return MatchResult((spec_a, spec_b), rules, seed, results)


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


def short_labels(specs: list[str], width: int = 28) -> list[str]:
    """Labels for tables: a spec as given if it fits in ``width``, else its name and the tail of its
    argument (``neural:…/dmc_full/checkpoint.pt``); a label that repeats gets ``#1``, ``#2``, ..."""
    labels = []
    for spec in specs:
        name, _, rest = spec.partition(":")
        keep = width - len(name) - 2
        if len(spec) <= width:
            labels.append(spec)
        elif rest and keep > 4:
            parts = rest.split("/")
            tail = parts[-1]
            for part in reversed(parts[:-1]):  # whole path components, as many as fit
                if len(part) + 1 + len(tail) > keep - 1:
                    break
                tail = f"{part}/{tail}"
            labels.append(f"{name}:…/{tail}" if len(tail) < keep else f"{name}:…{rest[-keep:]}")
        else:
            labels.append(spec[: width - 1] + "…")
    seen: dict[str, int] = {}
    for i, label in enumerate(labels):
        if labels.count(label) > 1:
            seen[label] = seen.get(label, 0) + 1
            labels[i] = f"{label} #{seen[label]}"
    return labels
