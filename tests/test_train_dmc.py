"""DMC trainer smoke test through the real command line: run, kill -9, resume, load, play."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from agents import load_agent
from agents.neural import NeuralAgent
from smear_env import Game, Rules, observe, seat_view
from train import dmc, runs

ARGS = [
    "--num-envs",
    "32",
    "--hidden",
    "32,32",
    "--warmup",
    "500",
    "--batch-size",
    "128",
    "--eval-games",
    "2",
    "--checkpoint-seconds",
    "1",
]


def wait_for(path: Path, seconds: float) -> None:
    deadline = time.time() + seconds
    while not path.exists():
        if time.time() > deadline:
            raise AssertionError(f"{path} was not written within {seconds} s")
        time.sleep(0.2)


def test_dmc_runs_is_killed_resumes_and_plays(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "train.dmc",
        "--config",
        "configs/dmc_quick.yaml",
        "--runs-dir",
        str(tmp_path),
        "--run-name",
        "smoke",
        *ARGS,
    ]
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=Path(__file__).parent.parent)
    checkpoint = tmp_path / "smoke" / "checkpoint.pt"
    try:
        wait_for(checkpoint, 120)
        time.sleep(1.5)
    finally:
        os.kill(process.pid, signal.SIGKILL)  # kill -9 at an arbitrary moment
        process.wait()
    first = runs.load_checkpoint(checkpoint)
    assert first["global_step"] > 0 and first["config"]["run_name"] == "smoke"
    assert not list((tmp_path / "smoke").glob(".*.tmp"))  # no half-written file was left as the checkpoint
    assert (tmp_path / "smoke" / "config.yaml").is_file()
    assert list((tmp_path / "smoke").glob("events.out.tfevents.*"))

    target = first["global_step"] + 3000
    resumed = subprocess.run(
        [sys.executable, "-m", "train.dmc", "--resume", str(tmp_path / "smoke"), "--total-steps", str(target)],
        capture_output=True, text=True, cwd=Path(__file__).parent.parent, timeout=300,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resumed {tmp_path / 'smoke'} at step {first['global_step']:,}" in resumed.stdout
    second = torch.load(checkpoint, weights_only=True)
    assert second["global_step"] >= target

    agent = load_agent(f"neural:{checkpoint}")
    assert isinstance(agent, NeuralAgent)
    game = Game(Rules(), 0)
    while not game.game_over and game.hand_index < 3:
        seat = game.to_act
        action = agent.act(observe(game, seat), game.action_mask(), seat_view(game, seat))
        assert action in game.legal_actions()
        game.step(action)


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
