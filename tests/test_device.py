"""The ``device`` setting: trainers and neural agents run with ``cpu``; a CUDA device that is not
there, or a name that is no device, is a clear error before anything starts."""

from __future__ import annotations

import pytest
import torch

from agents import load_agent
from smear_apps.eval import main as eval_main
from smear_nets import resolve_device
from train import dmc, ppo

NO_CUDA = not torch.cuda.is_available()
TINY = dict(num_envs=16, hidden=(16,), eval_every=10**9, eval_games=2, log_seconds=60.0)


def test_device_names_resolve():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(" CPU ") == torch.device("cpu")
    assert resolve_device("auto") == torch.device("cuda" if torch.cuda.is_available() else "cpu")
    for bad in ("tpu", "cuda:x", "", 3):
        with pytest.raises(ValueError, match="device="):
            resolve_device(bad)  # type: ignore[arg-type]


@pytest.mark.skipif(not NO_CUDA, reason="this machine has a GPU")
@pytest.mark.parametrize("name", ["cuda", "cuda:0", "cuda:1"])
def test_cuda_without_a_gpu_is_a_clear_error(name):
    with pytest.raises(ValueError, match=r"torch sees no CUDA device.*device=cpu or auto"):
        resolve_device(name)


def test_trainers_run_on_cpu_and_refuse_missing_cuda_before_making_a_folder(tmp_path):
    folder = dmc.train(dmc.Config(**TINY, num_actors=0, runs_dir=str(tmp_path), run_name="dmc_cpu", device="cpu", total_steps=600, warmup=100, batch_size=32))  # fmt: skip
    assert torch.load(folder / "checkpoint.pt", weights_only=True)["network"]["kind"] == "q"
    folder = ppo.train(ppo.Config(**TINY, runs_dir=str(tmp_path), run_name="ppo_cpu", device="cpu", total_steps=600, num_steps=8))  # fmt: skip
    assert (folder / "checkpoint.pt").is_file()
    if NO_CUDA:
        for trainer, config in ((dmc, dmc.Config), (ppo, ppo.Config)):
            with pytest.raises(ValueError, match="torch sees no CUDA device"):
                trainer.train(config(**TINY, runs_dir=str(tmp_path), run_name="gpu", device="cuda"))
        assert not (tmp_path / "gpu").exists()


def test_neural_agents_take_a_device(capsys):
    agent = load_agent("neural:device=cpu")
    assert next(agent.network.parameters()).device == torch.device("cpu")
    assert eval_main(["neural", "random", "--games", "2", "--device", "cpu", "--no-progress"]) == 0
    assert "win rate of neural" in capsys.readouterr().out
    if NO_CUDA:
        with pytest.raises(ValueError, match="torch sees no CUDA device"):
            load_agent("neural:device=cuda")
        with pytest.raises(SystemExit):
            eval_main(["neural", "random", "--games", "2", "--device", "cuda", "--no-progress"])
        assert "torch sees no CUDA device" in capsys.readouterr().err
