"""The Gymnasium single-agent wrapper, and the MaskablePPO example."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents import single_agent_env
from smear_env import IllegalActionError


def test_check_env_passes():
    check_env(single_agent_env(partner="heuristic", opponents="random", illegal_action="terminate"), skip_render_check=True)
    env = single_agent_env(illegal_action="terminate")
    env.reset(seed=1)
    _, reward, terminated, _, _ = env.step(int(np.flatnonzero(~env.action_masks())[0]))
    assert reward == -1.0 and terminated


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_r15_episodes_end_and_rewards_are_the_learners(seat):
    env = single_agent_env(seat=seat, partner="random", opponents="random", reward="game", target_score=6)
    rng = np.random.default_rng(seat)
    for episode in range(3):
        obs, info = env.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            assert env.game.to_act == seat and info["action_mask"].any()
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        game = env.game
        if game.winner is not None:
            assert total == (1.0 if game.winner == seat % 2 else -1.0)


def test_one_hand_episodes_and_margin_rewards():
    env = single_agent_env(episode="hand", reward="margin", partner="heuristic", opponents="heuristic")
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    done, total = False, 0.0
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += reward
        done = terminated or truncated
    record = [r for r in env.game.records if not r["redeal"]][-1]
    change = [a - b for a, b in zip(record["score_after"], record["score_before"], strict=True)]
    assert total == change[0] - change[1]


def test_illegal_action_and_bad_settings():
    env = single_agent_env(illegal_action="raise")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    with pytest.raises(ValueError, match="seat=7"):
        single_agent_env(seat=7)
    with pytest.raises(ValueError, match="not a built-in agent"):
        single_agent_env(opponents="nobody")


def test_maskable_ppo_example_runs():
    pytest.importorskip("sb3_contrib")
    script = Path(__file__).parent.parent / "examples" / "train_maskable_ppo.py"
    out = subprocess.run(
        [sys.executable, str(script), "--steps", "1024", "--episodes", "20"], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert "MaskablePPO after 1024 steps" in out.stdout


def test_check_env_passes_with_default_arguments():
    check_env(single_agent_env(), skip_render_check=True)


def test_step_after_the_episode_ended_raises():
    env = single_agent_env(episode="hand", reward="margin")
    env.reset(seed=4)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    assert env.game.game_over and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="episode has ended: call reset"):
        env.step(0)
    env.reset()
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_agent_objects_are_accepted():
    from agents.heuristic import HeuristicAgent
    from agents.random_agent import RandomAgent
    from smear_env.single_agent import SmearSingleAgentEnv

    env = SmearSingleAgentEnv(0, partner=HeuristicAgent(), opponents=RandomAgent(), episode="hand", reward="hand")
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and info["action_mask"].any()
    with pytest.raises(ValueError, match="is not an agent"):
        single_agent_env(partner=object())


def test_the_rules_package_loads_no_agents_and_needs_no_installed_metadata(monkeypatch):
    """smear_env's env takes agent objects; a spec string is refused naming agents.single_agent_env, which reads
    specs through agents.load_agent itself: no entry point, so a checkout that is not installed builds it."""
    import importlib.metadata

    from agents.random_agent import RandomAgent
    from smear_env.single_agent import SmearSingleAgentEnv

    with pytest.raises(ValueError, match="agents.single_agent_env"):
        SmearSingleAgentEnv(0, partner="heuristic", opponents=RandomAgent())
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **_: [])  # as if nothing were installed
    env = single_agent_env(seat=1, partner="heuristic", opponents="random", episode="hand")
    env.reset(seed=0)
    assert env.game.to_act == 1
