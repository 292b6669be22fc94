"""What a match gives: its deal sets' results, the win rate with its interval, the summary and its text."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from smear_env import Rules, __version__

from .games import CATEGORIES, DealSetResult


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


def format_summary(summary: dict[str, Any]) -> str:
    """A match summary as text; long agent specs are shortened in the tables."""
    a, b = summary["agents"]
    la, lb = short_labels([a, b])
    low, high = summary["win_rate_ci95"]
    truncated = summary["truncated_games"]
    seed = summary["seed"]
    seeds = f"seed {seed}" if isinstance(seed, int) else "seeds " + ", ".join(map(str, seed)) + ", pooled"
    lines = [
        f"{la} vs {lb}: {summary['games']} games in {summary['deal_sets']} deal sets (duplicate format, {seeds})",
        f"  win rate of {la}: {summary['win_rate']:.3f}  95% CI [{low:.3f}, {high:.3f}]",
        f"  games truncated by the hand limit (R16): {truncated}" + (", each counted as half a win" if truncated else ""),
        f"  score margin of {la}: {summary['score_margin_per_game']:+.2f} per game, {summary['score_margin_per_hand']:+.3f} per hand"
        f" ({summary['hands']} scored hands)",
        f"  {'':<28}{'High':>7}{'Low':>7}{'Jack':>7}{'Game':>7}   points per hand",
    ]
    for name, label in ((a, la), (b, lb)):
        p = summary["points_by_category"][name]
        lines.append(f"  {label:<28}" + "".join(f"{p[c]:>7.3f}" for c in ("high", "low", "jack", "game")))
    lines.append(f"  {'':<28}{'bid 2':>16}{'bid 3':>16}{'bid 4':>16}   bid rate / made rate")
    for name, label in ((a, la), (b, lb)):
        cells = []
        for level in ("2", "3", "4"):
            made = summary["made_bid_rate"][name][level]
            cells.append(f"{summary['bid_rate'][name][level]:.3f}/{'-' if made is None else f'{made:.3f}':>5}")
        lines.append(f"  {label:<28}" + "".join(f"{c:>16}" for c in cells))
    speeds = summary["decisions_per_second"]
    lines.append("  decisions per second: " + f"{la} {speeds[a]:,.0f}, {lb} {speeds[b]:,.0f}")
    legend = [f"{label} = {spec}" for label, spec in ((la, a), (lb, b)) if label != spec]
    if legend:
        lines.append("  (" + "; ".join(legend) + ")")
    return "\n".join(lines)


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
