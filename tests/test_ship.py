"""The bar a network passes to ship, and what ships beside it (``python -m train.tools.ship``)."""

from __future__ import annotations

import json

import pytest

from smear_env import Rules
from smear_nets import NetworkSpec, build_network, load_checkpoint, save_checkpoint
from train.tools import ship

LEGS = [
    {"commit": "a" * 40, "version": "0.3.0", "date": "2026-12-06T10:00:00Z", "at": 0.0, "command": "python -m train.recipe --config champion --minutes 9"},
    {"commit": "b" * 40, "version": "0.3.0", "date": "2026-12-07T10:00:00Z", "at": 300.0, "command": "python -m train.recipe --resume runs/r"},
]  # fmt: skip


def finished_run(tmp_path):
    """A run folder as the recipe leaves it: its record with two legs and a final network (random weights)."""
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "recipe.json").write_text(json.dumps({"elapsed": 540.0, "resumes": 1, "legs": LEGS, "done": {}}))
    spec = NetworkSpec("q", (32,))
    save_checkpoint(folder / "final.pt", spec, Rules(), build_network(spec).state_dict(), recipe={"minutes": 9.0}, minutes=9.0)
    return folder


def test_a_network_that_passes_ships_with_its_command_config_legs_and_figures(tmp_path, capsys):
    folder = finished_run(tmp_path)
    out = tmp_path / "weights" / "neural.pt"
    out.parent.mkdir()
    itself = f"neural:{folder}/final.pt"  # the duplicate format's 0.5 against itself: well above the bar's 0.01
    args = [str(folder), "--against", itself, "--games", "8", "--seed", "3", "--workers", "1", "--bar", "0.01"]
    assert ship.main([*args, "--slowdown", "1000", "--out", str(out)]) == 0
    assert "passes" in capsys.readouterr().out
    made, original = load_checkpoint(out), load_checkpoint(folder / "final.pt")
    assert all((made.model[k] == original.model[k]).all() for k in original.model)
    record = json.loads(out.with_suffix(".json").read_text())
    assert record["command"] == LEGS[0]["command"] and record["legs"] == LEGS and record["config"] == {"minutes": 9.0}
    assert "9 minutes" in record["compute"] and "1 resumes" in record["compute"]
    figure = next(v for k, v in record["figures"].items() if f"vs {itself}, 8 games, seed 3" in k)
    assert figure.count("[") == 1
    assert record["figures"]["the command"] == f"smear-eval {itself} {itself} --games 8 --seed 3 --workers 1"
    assert set(record["bidding"]) == {"bid_rate", "made_bid_rate", "contracts"}
    # nothing a user made is overwritten: the same out again is refused before any game
    assert ship.main([*args, "--out", str(out)]) == 2
    assert "exists" in capsys.readouterr().err


def test_a_network_below_the_bar_writes_nothing_but_its_report(tmp_path, capsys):
    folder = finished_run(tmp_path)
    out, report = tmp_path / "neural.pt", tmp_path / "report.json"
    args = [str(folder), "--against", "random", "--games", "4", "--seed", "3", "--workers", "1", "--bar", "0.99"]
    assert ship.main([*args, "--out", str(out), "--report", str(report)]) == 1
    assert "does not pass" in capsys.readouterr().out
    assert not out.exists() and not out.with_suffix(".json").exists()
    verdict = json.loads(report.read_text())
    assert verdict["passes"] is False and verdict["ci95"][0] <= 0.99 and verdict["run"]["resumes"] == 1
    assert verdict["match"]["games"] == 4 and len(verdict["match"]["decisions_per_second"]) == 2


@pytest.mark.parametrize(
    ("change", "words"),
    [("unfinished", "has not finished"), ("no record", "not a recipe run"), ("bar", "--bar")],
)
def test_a_run_that_cannot_be_checked_is_refused_naming_why(tmp_path, capsys, change, words):
    folder = finished_run(tmp_path)
    args = [str(folder), "--seed", "1", "--games", "4"]
    if change == "unfinished":
        (folder / "final.pt").unlink()
    elif change == "no record":
        (folder / "recipe.json").unlink()
    else:
        args += ["--bar", "1.5"]
    assert ship.main(args) == 2
    assert words in capsys.readouterr().err
