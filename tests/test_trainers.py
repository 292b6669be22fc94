"""Trainer smoke tests through the real command line: run, kill -9, resume, load, play."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import load_agent
from agents.neural import NeuralAgent
from smear_env import Game, Rules, observe, seat_view
from train import dmc, ppo, runs

COMMON = ["--num-envs", "32", "--hidden", "32,32", "--eval-games", "2", "--checkpoint-seconds", "1"]
ARGS = {
    "dmc": [*COMMON, "--warmup", "500", "--batch-size", "128"],
    "ppo": [*COMMON, "--num-steps", "16", "--num-minibatches", "2", "--update-epochs", "1"],
}  # fmt: skip


def wait_for(path: Path, seconds: float) -> None:
    deadline = time.time() + seconds
    while not path.exists():
        if time.time() > deadline:
            raise AssertionError(f"{path} was not written within {seconds} s")
        time.sleep(0.2)


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


@pytest.mark.parametrize("algo", ["dmc", "ppo"])
def test_trainer_runs_is_killed_resumes_and_plays(tmp_path, algo):
    cmd = [sys.executable, "-m", f"train.{algo}", "--config", f"configs/{algo}_quick.yaml", "--runs-dir", str(tmp_path), "--run-name", "smoke", *ARGS[algo]]  # fmt: skip
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=Path(__file__).parent.parent)
    checkpoint = tmp_path / "smoke" / "checkpoint.pt"
    try:
        wait_for(checkpoint, 120)
        time.sleep(1.5)
        helpers = children(process.pid)  # dmc's actor processes
        assert helpers or algo != "dmc"
    finally:
        os.kill(process.pid, signal.SIGKILL)  # kill -9 at an arbitrary moment
        process.wait()
    deadline = time.time() + 30
    while any(Path(f"/proc/{pid}").exists() for pid in helpers) and time.time() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in helpers if Path(f"/proc/{pid}").exists()], "processes outlived the killed trainer"
    first = runs.load_checkpoint(checkpoint)
    assert first["global_step"] > 0 and first["config"]["run_name"] == "smoke"
    assert not list((tmp_path / "smoke").glob(".*.tmp"))  # no half-written file was left as the checkpoint
    assert (tmp_path / "smoke" / "config.yaml").is_file()
    assert list((tmp_path / "smoke").glob("events.out.tfevents.*"))

    target = first["global_step"] + 3000
    resumed = subprocess.run(
        [sys.executable, "-m", f"train.{algo}", "--resume", str(tmp_path / "smoke"), "--total-steps", str(target)],
        capture_output=True, text=True, cwd=Path(__file__).parent.parent, timeout=300,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resumed {tmp_path / 'smoke'} at step {first['global_step']:,}" in resumed.stdout
    second = torch.load(checkpoint, weights_only=True)
    assert second["global_step"] >= target

    from train import export

    slim = tmp_path / "slim.pt"
    assert export.main([str(checkpoint), str(slim)]) == 0
    assert slim.stat().st_size < checkpoint.stat().st_size
    agent = load_agent(f"neural:{slim}")
    assert isinstance(agent, NeuralAgent)
    game = Game(Rules(), 0)
    while not game.game_over and game.hand_index < 3:
        seat = game.to_act
        action = agent.act(observe(game, seat), game.action_mask(), seat_view(game, seat))
        assert action in game.legal_actions()
        game.step(action)


def test_ppo_advantages_follow_each_seat():
    """Two seats alternate in one game; seat 0's reward arrives after seat 1's move and still counts for seat 0."""
    config = ppo.Config(gamma=1.0, gae_lambda=1.0)
    seats = np.array([[0], [1], [0], [1]])
    learner = np.ones((4, 1), dtype=bool)
    values = np.zeros((4, 1), dtype=np.float32)
    rewards = np.zeros((4, 1, 4), dtype=np.float32)
    rewards[1, 0] = [1.0, -1.0, 1.0, -1.0]  # the hand ends after step 1
    dones = np.zeros((4, 1), dtype=bool)
    dones[3, 0] = True
    advantages = ppo.seat_advantages(config, values, seats, learner, rewards, dones, np.zeros((1, 4)))
    assert advantages[:, 0].tolist() == [1.0, -1.0, 0.0, 0.0]


def test_dmc_config_errors_are_named(capsys, tmp_path):
    with pytest.raises(SystemExit):
        dmc.main(["--epsilon", "2"])
    assert "epsilon=2" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        dmc.main(["--num-envs", "many"])
    assert "num_envs='many': must be an int" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("learning_rat: 0.1\n")
    with pytest.raises(SystemExit):
        dmc.main(["--config", str(bad)])
    assert "unknown config key(s) ['learning_rat']" in capsys.readouterr().err


def test_neural_spec_errors(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        load_agent(f"neural:{tmp_path}/missing.pt")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="not a smear-rl checkpoint"):
        load_agent(f"neural:{junk}")
