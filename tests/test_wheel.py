"""The package works outside its checkout: the wheel, installed into a fresh virtual environment,
run from a temporary folder as a user would (docs/install.md, "As a package")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import smear_env

ROOT = Path(__file__).parent.parent


def run(cmd: list[str], cwd: Path, timeout: float, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, (
        f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    )
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """The sdist and wheel built from this checkout, the wheel installed (with ``train``) into a fresh venv."""
    dist = tmp_path_factory.mktemp("dist")
    # Built from a copy of the tracked files: the other tests may be writing in the checkout meanwhile.
    source = tmp_path_factory.mktemp("source")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        if (ROOT / name).is_file() and not (ROOT / name).is_symlink():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(dist), str(source)], source, 600)
    version = smear_env.__version__
    wheel = dist / f"smear_rl-{version}-py3-none-any.whl"
    assert wheel.is_file() and (dist / f"smear_rl-{version}.tar.gz").is_file(), sorted(p.name for p in dist.iterdir())
    venv = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", str(venv)], dist, 120)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    run([*pip, "torch==2.13.0"], dist, 900)  # first and pinned, as docs/install.md says
    run([*pip, f"{wheel}[train,web]"], dist, 900)
    return wheel, venv / "bin"


LAYOUT = {"smear_env", "agents", "train"}
"""The top-level names the layout asks for; the kit's other packages are named smear_*."""


def test_the_wheel_installs_the_layouts_names_and_the_smear_packages_only(installed):
    """No generic name (0.3.0's wheel also installed nets and apps, aliases that collide with any project's own)."""
    wheel, _ = installed
    with zipfile.ZipFile(wheel) as z:
        top = {name.split("/")[0] for name in z.namelist() if not name.split("/")[0].endswith(".dist-info")}
        top_level = {n for n in z.namelist() if n.endswith("top_level.txt")}
        listed = set(z.read(top_level.pop()).decode().split()) if top_level else top
    assert top == listed == LAYOUT | {"smear_rl", "smear_nets", "smear_apps"}, top


def test_the_wheel_carries_the_weights_and_the_builtin_configs(installed):
    wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert {"smear_nets/weights/neural.pt", "smear_nets/weights/dmc.pt", "smear_nets/weights/beliefs.pt"} <= set(names)
    assert {"smear_nets/weights/chance.pt", "smear_nets/weights/win_chances.npz"} <= set(names)
    assert {"train/configs/dmc_quick.yaml", "train/configs/ppo_quick.yaml", "train/configs/sweep_dmc.yaml"} <= set(names)
    assert {"smear_apps/web/static/table.html", "smear_apps/web/static/table.js", "smear_apps/web/static/table.css"} <= set(names)
    assert not [n for n in names if n.startswith(("tests/", "docs/", "notebooks/", "configs/"))]


def test_the_installed_package_plays_trains_and_evaluates_from_anywhere(installed, tmp_path):
    _, bin_ = installed
    python = str(bin_ / "python")
    game = (
        "import numpy as np, smear_env\n"
        f"assert smear_env.__file__.startswith({str(bin_.parent)!r}), smear_env.__file__\n"
        "env = smear_env.env(); env.reset(seed=0); rng = np.random.default_rng(0)\n"
        "for agent in env.agent_iter():\n"
        "    obs, reward, term, trunc, info = env.last()\n"
        "    env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs['action_mask']))))\n"
        "print(smear_env.__version__, env.unwrapped.game.scores)\n"
    )
    assert run([python, "-c", game], tmp_path, 120).stdout.startswith(smear_env.__version__)
    for command in ("smear-eval", "smear-play", "smear-records", "smear-exploit", "smear-web"):
        assert run([str(bin_ / command), "--version"], tmp_path, 60).stdout.strip() == f"{command} {smear_env.__version__}"

    match = run([str(bin_ / "smear-eval"), "neural", "heuristic", "--games", "20", "--json", "m.json"], tmp_path, 300)
    assert "win rate of neural" in match.stdout
    assert json.loads((tmp_path / "m.json").read_text())["smear_rl_version"] == smear_env.__version__

    play = run([str(bin_ / "smear-play"), "--seed", "1"], tmp_path, 120, stdin="quit\n")
    assert "Legal" in play.stdout or "legal" in play.stdout

    dmc = run([python, "-m", "train.dmc", "--config", "dmc_quick", "--max-seconds", "20", "--eval-games", "20"], tmp_path, 600)
    assert "vs heuristic" in dmc.stdout + dmc.stderr, dmc.stdout[-2000:]
    config = (tmp_path / "runs" / "dmc_quick" / "config.yaml").read_text()
    assert f"smear_rl_version: {smear_env.__version__}" in config
    assert (tmp_path / "runs" / "dmc_quick" / "checkpoint.pt").is_file()
