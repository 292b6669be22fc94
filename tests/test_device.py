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


# ---------------------------------------------------------------------- precision chosen by the machine


@pytest.fixture
def cpu_with(monkeypatch):
    """A CPU with the given vector units, and a probe that finds bf16 ``speedup`` times fp32's speed (None: the
    probe must not run)."""
    from smear_nets import device

    def make(vector: tuple[str, ...], speedup: float | None):
        monkeypatch.setattr(device, "machine", lambda: device.Machine("Test CPU", vector, 2, None))

        def probe(device_type: str, threads: int) -> float:
            assert speedup is not None, "the probe ran where the flags decide"
            return speedup

        monkeypatch.setattr(device, "bf16_speedup", probe)

    return make


CPU = torch.device("cpu")


def test_precision_fp32_and_bf16_are_obeyed_and_a_slow_bf16_says_so(cpu_with):
    from smear_nets.device import choose_precision

    cpu_with(("AVX2",), None)
    assert choose_precision("fp32", CPU) == ("fp32", "fp32 as the config asks")
    cpu_with(("AVX2",), 0.11)
    chosen, why = choose_precision("bf16", CPU)
    assert chosen == "bf16" and "slower here" in why and "0.11x" in why and "auto would take fp32" in why
    cpu_with(("AVX2", "AVX-512", "AMX"), 3.0)
    assert choose_precision("bf16", CPU)[0] == "bf16" and "slower" not in choose_precision("bf16", CPU)[1]


@pytest.mark.parametrize(
    ("vector", "speedup", "chosen", "words"),
    [
        (("AVX2",), None, "fp32", "no bf16 matrix units"),  # the 2-core EPYC of the issue: 29x slower in bf16
        (("AVX2", "AVX-512"), None, "fp32", "no bf16 matrix units"),
        (("AVX2", "AVX-512", "AVX-512 BF16", "AMX"), 3.1, "bf16", "AMX and AVX-512 BF16 and a probe ran bf16 at 3.10x"),
        (("AVX2", "AVX-512", "AVX-512 BF16"), 0.8, "fp32", "but a probe ran bf16 at 0.80x"),
    ],
)
def test_precision_auto_takes_bf16_only_where_the_cpu_computes_it_faster(cpu_with, vector, speedup, chosen, words):
    from smear_nets.device import choose_precision

    cpu_with(vector, speedup)
    got, why = choose_precision("auto", CPU)
    assert got == chosen and why.startswith("auto: ") and words in why, why


def test_the_probe_and_the_machine_line_read_this_machine():
    from smear_nets.device import bf16_speedup, choose_precision, machine

    here = machine()
    assert here.cpu and here.cores >= 1 and set(here.vector) <= {"AVX2", "AVX-512", "AVX-512 BF16", "AMX"}
    assert here.line().startswith(f"CPU {here.cpu} (") and f"{here.cores} cores" in here.line()
    assert (here.gpu is not None) == torch.cuda.is_available()
    assert bf16_speedup("cpu", 1) > 0
    assert choose_precision("auto", CPU)[0] in ("fp32", "bf16")
    with pytest.raises(ValueError, match="precision='fp16': one of auto, fp32, bf16"):
        choose_precision("fp16", CPU)


def test_a_dmc_run_names_its_machine_and_the_precision_auto_chose(tmp_path, cpu_with, monkeypatch):
    import yaml

    import train.run
    from smear_nets import device

    cpu_with(("AVX2",), None)
    monkeypatch.setattr(train.run, "machine", device.machine)  # the run's log names the same (test) machine
    folder = dmc.train(
        dmc.Config(**TINY, runs_dir=str(tmp_path), run_name="auto", total_steps=600, warmup=50, batch_size=16,
                   num_actors=0, precision="auto", device="cpu")
    )  # fmt: skip
    saved = yaml.safe_load((folder / "config.yaml").read_text())
    assert saved["precision"] == "auto"  # what was asked: a resume on another machine chooses again
    assert saved["chosen"] == {"precision": "fp32", "why": "auto: this CPU has no bf16 matrix units (no AMX, no AVX-512 BF16)"}
    assert saved["machine"]["cpu"] == "Test CPU" and saved["machine"]["vector"] == ["AVX2"]
    log = (folder / "train.log").read_text()
    assert "machine: CPU Test CPU (AVX2), 2 cores; no GPU" in log and "precision fp32: auto: this CPU has no bf16" in log
    from train.config import from_mapping

    assert from_mapping(dmc.Config, saved).precision == "auto"  # the record beside the settings reads back
