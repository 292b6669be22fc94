"""Periodic evaluation of a training network in the arena's duplicate format, logged to TensorBoard."""

from __future__ import annotations

from typing import Any

import torch

from agents import load_agent
from agents.arena import MatchResult, play_deal_set
from agents.eval_cli import format_summary
from agents.neural import NeuralAgent
from smear_env import Rules


def agent_of(network: torch.nn.Module, config: Any, name: str = "learner") -> NeuralAgent:
    """A NeuralAgent playing an in-memory network (no checkpoint file)."""
    agent = NeuralAgent.__new__(NeuralAgent)
    agent.rng = None
    agent.network = network
    agent.config = config
    agent.name = name
    return agent


def evaluate(
    network: torch.nn.Module, config: Any, opponent: str = "heuristic", games: int | None = None, seed: int = 12345
) -> dict[str, Any]:
    """The arena summary of the network against ``opponent`` (duplicate format, fixed deal sets)."""
    was_training = network.training
    network.eval()
    rules = Rules(kitty_size=config.kitty_size)
    learner = agent_of(network, config)
    other = load_agent(opponent)
    sets = [play_deal_set((learner, other), rules, seed, d, False) for d in range(((games or config.eval_games) + 1) // 2)]
    network.train(was_training)
    result = MatchResult(("learner", opponent), rules, seed, sets)
    return result.summary()


def log(writer, network: torch.nn.Module, config: Any, step: int, opponent: str = "heuristic") -> dict[str, Any]:
    summary = evaluate(network, config, opponent)
    low, high = summary["win_rate_ci95"]
    writer.add_scalar(f"charts/win_rate_vs_{opponent}", summary["win_rate"], step)
    writer.add_scalar(f"eval/win_rate_vs_{opponent}_ci_low", low, step)
    writer.add_scalar(f"eval/win_rate_vs_{opponent}_ci_high", high, step)
    writer.add_scalar(f"charts/score_margin_per_hand_vs_{opponent}", summary["score_margin_per_hand"], step)
    points = summary["points_by_category"]["learner"]
    writer.add_scalar(f"charts/points_per_hand_vs_{opponent}", sum(points.values()), step)
    writer.add_scalar("charts/episode_length_hands", summary["hands"] / max(summary["games"], 1), step)
    bids = summary["bid_rate"]["learner"]
    writer.add_scalar("charts/bid_rate", sum(bids.values()), step)
    contracts = summary["contracts"]["learner"]
    made = summary["made_bid_rate"]["learner"]
    total = sum(contracts.values())
    if total:
        writer.add_scalar("charts/made_bid_rate", sum((made[k] or 0) * contracts[k] for k in contracts) / total, step)
    print(f"eval at {step:,}: win rate vs {opponent} {summary['win_rate']:.3f} [{low:.3f}, {high:.3f}]", flush=True)
    return summary


def describe(summary: dict[str, Any]) -> str:
    return format_summary(summary)
