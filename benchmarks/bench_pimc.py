"""PIMC decision speed by phase: milliseconds per decision and deals solved per decision, on one core.

Run: ``taskset -c 0 python benchmarks/bench_pimc.py [--games N] [--spec pimc]``. PIMC
plays seats 0 and 2 against the heuristic player; the solver compiles first (not timed).
"""

from __future__ import annotations

import argparse
import collections
import time

import numpy as np

from agents import load_agent
from smear_env import Game, Rules, observe, seat_view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6, help="games to time (default 6)")
    parser.add_argument("--spec", default="pimc", help="the PIMC agent spec (default pimc: 20 samples, 0.1 s)")
    args = parser.parse_args()
    pimc, heuristic = load_agent(args.spec), load_agent("heuristic")
    stats: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0])
    slowest: dict[str, float] = collections.defaultdict(float)
    short: dict[str, int] = collections.Counter()  # decisions cut by the time limit before all samples
    times: list[float] = []  # every decision with a choice, for the tail
    for seed in range(args.games):
        game = Game(Rules(), seed)
        pimc.seed(seed)
        while not game.game_over:
            seat = game.to_act
            view = seat_view(game, seat)
            if seat % 2:
                game.step(heuristic.act(observe(game, seat), game.action_mask(), view))
                continue
            solved, start = pimc.deals_solved, time.perf_counter()
            action = pimc.act(observe(game, seat), game.action_mask(), view)
            elapsed, deals = time.perf_counter() - start, pimc.deals_solved - solved
            choice = len(view.legal_actions) > 1
            name = game.phase.name if choice else "forced (one legal action)"
            entry = stats[name]
            entry[0] += 1
            entry[1] += elapsed
            entry[2] += deals
            slowest[name] = max(slowest[name], elapsed)
            short[name] += 0 < deals < pimc.samples
            if choice:
                times.append(elapsed)
            game.step(action)
    total = [sum(s[i] for s in stats.values()) for i in range(3)]
    slowest["all decisions"] = max(slowest.values())
    short["all decisions"] = sum(short.values())
    for name, (count, seconds, deals) in [*stats.items(), ("all decisions", total)]:
        print(
            f"{name:<26} {int(count):>6} decisions {1000 * seconds / count:8.1f} ms/decision {deals / count:6.1f} deals/decision"
            f"  slowest {1000 * slowest[name]:6.1f} ms  cut short {short[name]}"
        )
    print(f"decisions per second: {total[0] / total[1]:.1f}")
    tail = 1000 * np.percentile(times, [50, 99, 99.9, 100])
    print(
        f"decisions with a choice ({len(times)}): median {tail[0]:.1f} ms, 99th percentile {tail[1]:.1f} ms, 99.9th {tail[2]:.1f} ms, slowest {tail[3]:.1f} ms"
    )


if __name__ == "__main__":
    main()
