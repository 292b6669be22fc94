"""The speed of a random game of Smear through each interface, in one run: ``smear_v0`` (PettingZoo AEC),
OpenSpiel's ``smear`` (pyspiel's Python-game bridge, chance outcomes drawn by the script) and RLCard's ``smear``.

    python benchmarks/bench_interop.py --games 20 --seed 0

Each plays ``--games`` whole games to 15 with uniformly random legal moves, the interfaces taking turns
game by game (so a noisy machine slows them alike); it prints the player decisions a second of each and
their ratio to ``smear_v0``'s (the deals, a chance outcome each card in OpenSpiel, are not decisions).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
import rlcard

import smear_env.openspiel_game  # noqa: F401 - registers "smear"
import smear_env.rlcard_env  # noqa: F401 - registers "smear"
from smear_env import env as smear_v0


def pettingzoo_game(seed: int) -> int:
    env = smear_v0()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        decisions += 1
    return decisions


def openspiel_game(seed: int, game=None) -> int:
    game = game or pyspiel.load_game("smear")
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        else:
            state.observation_tensor(state.current_player())  # what a learner reads, as smear_v0's last() gives
            state.apply_action(int(rng.choice(state.legal_actions())))
            decisions += 1
    return decisions


def rlcard_game(seed: int, env=None) -> int:
    env = env or rlcard.make("smear", config={"seed": seed, "game_episode": "game"})
    state, _ = env.reset()
    rng = np.random.default_rng(seed)
    decisions = 0
    while not env.is_over():
        state, _ = env.step(int(rng.choice(list(state["legal_actions"]))))
        decisions += 1
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game, env = pyspiel.load_game("smear"), rlcard.make("smear", config={"seed": args.seed, "game_episode": "game"})
    runners = {"smear_v0 (PettingZoo)": pettingzoo_game, "OpenSpiel smear": lambda s: openspiel_game(s, game),
               "RLCard smear": lambda s: rlcard_game(s, env)}  # fmt: skip
    totals = {name: [0, 0.0] for name in runners}
    for i in range(args.games):
        for name, run in runners.items():
            started = time.perf_counter()
            totals[name][0] += run(args.seed + i)
            totals[name][1] += time.perf_counter() - started
    base = totals["smear_v0 (PettingZoo)"][0] / totals["smear_v0 (PettingZoo)"][1]
    for name, (decisions, seconds) in totals.items():
        rate = decisions / seconds
        print(f"{name:<24} {decisions:>7,} decisions in {seconds:6.1f} s: {rate:9,.0f} a second ({rate / base:.2f}x smear_v0)")


if __name__ == "__main__":
    main()
