"""The games of deal sets: each played twice, partnerships swapped, in lockstep where the agents allow it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from smear_env import Game, Rules, observe, seat_view
from smear_env.game import game_label, game_rng, team_of

from ..base import Agent
from ..registry import load_agent

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
            side = [team_of(seat + swap) for seat in range(4)]  # side[seat]: 0 for A, 1 for B
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


def play_chunk(specs: tuple[str, str], rules: Rules, seed: int, deal_sets: list[int], keep_records: bool) -> list[DealSetResult]:
    """The deal sets of one worker (a process or a Ray task): its own agents, made from their specs."""
    agents = (load_agent(specs[0]), load_agent(specs[1]))
    return play_deal_sets(agents, rules, seed, deal_sets, keep_records)
