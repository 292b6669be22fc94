"""experiments/: paired.py (agents on the same deal sets, each one's difference from the first taken deal set by
deal set) and recipe_curve.py (the time-to-strength curve of recipe runs)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parent.parent


def experiment(name: str):
    """A script of experiments/ imported as a module (they are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "experiments" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def paired():
    return experiment("paired")


def test_a_paired_difference_cancels_what_both_share(paired):
    first = np.array([1.0, 0.0, 1.0, 0.0, 0.5, 1.0])
    mean, low, high = paired.paired(first, first + 0.25)
    assert mean == pytest.approx(0.25) and low == pytest.approx(0.25) and high == pytest.approx(0.25)
    mean, low, high = paired.paired(first, first[::-1])
    assert mean == pytest.approx(0.0) and low < 0 < high


def test_the_same_agent_twice_differs_by_nothing_and_a_weaker_one_by_its_loss(paired, tmp_path):
    rows = paired.compare(["heuristic", "heuristic", "random"], "random", games=12, seed=3, workers=1)
    assert [r["games"] for r in rows] == [12, 12, 12] and rows[0]["win_rate"] == rows[1]["win_rate"]
    assert rows[1]["difference"] == 0.0 and rows[1]["difference_ci95"] == [0.0, 0.0]
    assert rows[2]["difference"] == pytest.approx(rows[2]["win_rate"] - rows[0]["win_rate"])
    assert paired.spec_of("heuristic") == "heuristic"
    with pytest.raises(SystemExit, match="no final.pt"):
        paired.spec_of(str(tmp_path))
    (tmp_path / "final.pt").write_bytes(b"")
    assert paired.spec_of(str(tmp_path)) == f"neural:{tmp_path / 'final.pt'}"


@pytest.fixture(scope="module")
def curve():
    return experiment("recipe_curve")


def test_the_curve_plays_each_snapshot_once_and_plots_a_long_run_on_log_minutes(curve, tmp_path):
    """A run's snapshots against an opponent, kept in its curve.json so a second call plays nothing again; the plot of
    a long run (minutes 10 to 720) on a log scale with the bar drawn."""
    from smear_env import Rules
    from smear_nets import NetworkSpec, build_network, save_checkpoint

    run = tmp_path / "long"
    spec = NetworkSpec("q", (16,))
    for minute in (10, 720):
        save_checkpoint(run / "snapshots" / f"minute_{minute:03d}.pt", spec, Rules(), build_network(spec).state_dict())
    assert list(curve.snapshots(run)) == [10.0, 720.0]
    points = curve.play(run, [("random", 4)], None, seed=5, workers=1)
    assert sorted(p["minute"] for p in points.values()) == [10.0, 720.0]
    assert all(p["games"] == 4 and p["seed"] == 5 and 0 <= p["ci95"][0] <= p["win_rate"] <= p["ci95"][1] for p in points.values())
    stamp = (run / "curve.json").stat().st_mtime_ns
    assert curve.play(run, [("random", 4)], None, seed=5, workers=1) == points  # kept: nothing played again
    assert (run / "curve.json").stat().st_mtime_ns == stamp
    out = tmp_path / "curve.png"
    curve.plot({"long": points}, [("random", 4)], 5, out, {"long": "the long run"}, log_x=True, bar=0.55)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(SystemExit, match="SPEC@GAMES"):
        curve.opponents_of(["random"])
