"""experiments/paired.py: agents on the same deal sets, each one's difference from the first taken deal set by deal set."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def paired():
    spec = importlib.util.spec_from_file_location("paired", ROOT / "experiments" / "paired.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["paired"] = module
    spec.loader.exec_module(module)
    return module


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
