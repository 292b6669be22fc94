"""A command that needs an extra that is not installed says which, and the pip command, in one line (exit 2).

Each case runs the command in a fresh Python whose imports of one optional package are refused (a
``sitecustomize`` on the path installs the refusal before anything else runs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
BLOCK = """
import importlib.abc, sys
class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == {module!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Missing())
"""


def without(module: str, command: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    (tmp_path / "sitecustomize.py").write_text(BLOCK.format(module=module))
    env = {"PYTHONPATH": str(tmp_path), "PATH": str(BIN), "HOME": str(tmp_path)}
    return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)


@pytest.mark.parametrize(
    ("module", "extra", "command"),
    [
        ("starlette", "web", [str(BIN / "smear-web"), "--port", "0"]),
        ("torch", "train", [str(BIN / "smear-eval"), "neural", "random", "--games", "2"]),
        ("torch", "train", [str(BIN / "smear-play"), "--partner", "neural"]),
        ("torch", "train", [str(BIN / "smear-exploit"), "heuristic"]),
        ("torch", "train", [sys.executable, "-m", "train.dmc", "--config", "dmc_quick"]),
        ("matplotlib", "plot", [str(BIN / "smear-eval"), "--league", "random,heuristic", "--games", "2", "--plot", "x.png"]),
    ],
)
def test_a_missing_extra_is_one_line_naming_it_and_the_pip_command(tmp_path, module, extra, command):
    done = without(module, command, tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1 and f"'{extra}' extra" in lines[0] and f"pip install 'smear-rl[{extra}]'" in lines[0], done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "x.png").exists()


def test_the_core_install_needs_no_extra(tmp_path):
    """Records and the rules need none of them: smear-records with torch refused still plays and checks games."""
    done = without("torch", [str(BIN / "smear-records"), "--games", "2", "--seed", "1", "--out", "g.jsonl"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert without("torch", [str(BIN / "smear-records"), "--check", "g.jsonl"], tmp_path).returncode == 0


def test_a_match_of_agents_without_networks_needs_no_torch(tmp_path):
    """The agents' registry and the arena import no network code until a network agent is asked for."""
    done = without("torch", [str(BIN / "smear-eval"), "random", "heuristic", "--games", "2", "--no-progress"], tmp_path)
    assert done.returncode == 0 and "win rate of random" in done.stdout, done.stderr[-2000:]
