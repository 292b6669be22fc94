"""``python -m train.recipe``: from random weights through every stage to a network and its matches, on a budget of
seconds; a run killed at any moment resumes where it stopped, its clock counted across the resumes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pytest
import yaml

from smear_nets import load_checkpoint
from smear_rl.provenance import kit_commit
from train.recipe import STAGES, Config, main

pytestmark = pytest.mark.xdist_group("recipe")

TINY = [
    "--minutes", "0.9", "--workers", "1", "--table.hands", "1000", "--max-positions", "3000",
    "--final-games", "2", "--snapshot-games", "2", "--final-opponents", "heuristic", "--eval-workers", "1",
    "--snapshot-minutes", "0.2", "0.5", "0.9", "--device", "cpu", "--actor-device", "cpu",
]  # fmt: skip


def test_the_recipe_makes_a_network_from_nothing_through_every_stage(tmp_path):
    """Every stage (the default recipe's and the beliefs stage, whose model the exit teacher draws its deals
    from), the snapshots and the final match, with the shipped-weights folder pointed at an empty one
    (``SMEAR_RL_WEIGHTS``): every network, model, table and label the recipe uses, it made (the final match is
    against ``heuristic`` only; ``neural:v0.3.0`` is the kit's)."""
    empty = tmp_path / "no-weights"
    empty.mkdir()
    env = {**os.environ, "SMEAR_RL_WEIGHTS": str(empty)}
    probe = subprocess.run([sys.executable, "-c", "from agents import load_agent; load_agent('neural')"], env=env,
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert probe.returncode != 0 and "neural" in probe.stderr  # the variable takes effect: no shipped network there
    command = [sys.executable, "-m", "train.recipe", "--config", "champion", "--runs-dir", str(tmp_path), "--run-name", "r"]
    stages = ["selfplay", "beliefs", "exit", "table", "contracts", "suits"]
    shares = {**Config().shares, "selfplay": 0.4, "beliefs": 0.05}
    every = ["--stages", *stages, "--shares", *(f"{k}={v}" for k, v in shares.items()),
             "--exit.teacher", "search:net={net},beliefs={beliefs},samples=40,seconds=0.2",
             "--contracts.rounds", "2", "--contracts.round-hands", "1000", "--contracts.round-games", "2"]  # fmt: skip
    made = subprocess.run([*command, *TINY, *every], env=env, capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr[-3000:]
    assert not any(empty.iterdir())
    folder = tmp_path / "r"
    state = json.loads((folder / "recipe.json").read_text())
    assert list(state["done"]) == stages  # every stage ran, in order
    assert state["resumes"] == 0 and state["elapsed"] < 0.9 * 60 + 60  # little past the budget
    # The whole budget is spent, unless a distillation stage had too little time to label on a busy machine and
    # passed its network on (its checkpoint says so; the run then ends early).
    unchanged = [s for s in ("exit", "suits") if load_checkpoint(folder / state["done"][s]).extra.get("unchanged")]
    assert unchanged or state["elapsed"] >= 0.9 * 60, state["elapsed"]
    for stage in stages:
        assert (folder / state["done"][stage]).is_file()
    assert state["done"]["beliefs"] == "stages/6-beliefs/beliefs.pt"
    assert f"beliefs={folder / 'stages' / '6-beliefs' / 'beliefs.pt'}" in (folder / "recipe.log").read_text()  # the teacher's
    final = load_checkpoint(folder / "final.pt")
    assert final.network.kind == "q_split"  # the contracts stage joined its contracts to the card play
    assert state["done"]["contracts"] == "networks/4-contracts-round2.pt"  # two rounds of table and contracts
    assert (folder / "stages" / "4-contracts" / "round2" / "chances.npz").is_file()  # re-solved under round 1's play
    assert json.loads((folder / "stages" / "4-contracts" / "round2" / "round.json").read_text())["games"] == 2
    assert "contracts: round 2/2: win rate" in (folder / "recipe.log").read_text()
    assert final.extra["recipe"]["shares"] == shares and final.extra["recipe"]["stages"] == stages
    assert sorted(state["snapshots"]) == ["0.2", "0.5", "0.9"]
    for snap in state["snapshots"].values():
        load_checkpoint(folder / snap["path"])  # each a network that plays
    results = json.loads((folder / "results.json").read_text())
    assert results["final"]["heuristic"]["games"] == 2 and 0 <= results["final"]["heuristic"]["win_rate"] <= 1
    match = results["final"]["heuristic"]["match"]  # the whole match, as smear-eval --json gives it
    assert match["win_rate"] == results["final"]["heuristic"]["win_rate"] and len(match["decisions_per_second"]) == 2
    assert "decisions a second" in (folder / "recipe.log").read_text()
    assert set(results["curve"]) == {"0.2", "0.5", "0.9"}
    assert (folder / "stages" / "1-selfplay" / "checkpoint.pt").is_file()  # the DMC stage's own run folder
    assert any(p.name.startswith("events.out.tfevents") for p in folder.iterdir())
    assert "made" in (folder / "recipe.log").read_text()
    # a second run in the same folder is refused, naming the ways on
    assert main(["--config", "champion", "--runs-dir", str(tmp_path), "--run-name", "r", *TINY]) == 2


def test_a_recipe_killed_in_the_middle_resumes_where_it_stopped(tmp_path):
    """Killed (SIGKILL) while its exit stage's first round labels positions: the resumed run keeps the self-play
    stage's network and the positions written, goes on through the second round, and its clock counts both parts."""
    command = [sys.executable, "-m", "train.recipe", "--config", "champion", "--runs-dir", str(tmp_path), "--run-name", "k"]
    args = [*TINY, "--minutes", "1.2", "--shares", "selfplay=0.4", "exit=0.6", "--final-games", "0", "--snapshot-games", "0",
            "--exit.round-minutes", "0.4", "--exit.keep-positions", "100000", "--exit.search-weight", "0.5"]  # fmt: skip  # the exit stage's 0.72 minutes in 2 rounds, the second fitting on the first's positions too
    folder = tmp_path / "k"
    process = subprocess.Popen([*command, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 240
        while time.time() < deadline:  # until the exit stage has written a part of its positions
            parts = list((folder / "stages" / "2-exit" / "round1" / "positions").glob("*.npz"))
            if parts:
                break
            time.sleep(0.5)
        assert parts, "the exit stage never wrote positions"
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the run and its worker processes, by the group this test started
        process.wait(30)
    killed = json.loads((folder / "recipe.json").read_text())
    assert list(killed["done"]) == ["selfplay"] and "final.pt" not in os.listdir(folder)
    selfplay = (folder / killed["done"]["selfplay"]).read_bytes()
    finished = subprocess.run([*command, "--resume", str(folder)], capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stderr[-2000:]
    state = json.loads((folder / "recipe.json").read_text())
    assert state["resumes"] == 1 and list(state["done"]) == ["selfplay", "exit"]
    assert state["done"]["exit"] == "networks/2-exit-round2.pt" and (folder / "networks" / "2-exit-round1.pt").is_file()
    assert "exit: round 2/2 done" in (folder / "recipe.log").read_text()
    first_round = json.loads((folder / "stages" / "2-exit" / "round1" / "distill.json").read_text())
    second_round = json.loads((folder / "stages" / "2-exit" / "round2" / "distill.json").read_text())
    assert first_round["earlier_positions"] == 0 and second_round["search_weight"] == 0.5
    assert second_round["earlier_positions"] == first_round["own_positions"] > 0  # round 1's labels kept for round 2
    assert second_round["positions"] == second_round["own_positions"] + second_round["earlier_positions"]
    first, second = state["legs"]  # the start and the resume, each with the kit's commit and the run's clock then
    assert first["at"] == 0.0 and second["at"] == pytest.approx(killed["elapsed"], abs=1.0)
    assert first["commit"] == second["commit"] == kit_commit() and first["commit"]
    assert first["command"].startswith("python -m train.recipe --config champion") and "--minutes 1.2" in first["command"]
    assert second["command"].endswith(f"--resume {folder}")
    assert (folder / state["done"]["selfplay"]).read_bytes() == selfplay  # the stage done is not done again
    assert state["elapsed"] >= killed["elapsed"] and state["elapsed"] >= 1.2 * 60
    assert (folder / "final.pt").is_file()


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"minutes": 0}, "minutes"),
        ({"minutes": float("nan")}, "minutes"),
        ({"shares": {"selfplay": 1, "magic": 1}}, "unknown stage"),
        ({"shares": {"selfplay": -1}}, "weights 0 or more"),
        ({"shares": {"selfplay": 1, "contracts": 1}}, "give table a share"),
        ({"exit": {"teacher": "search"}}, "exit.teacher='search': must search over the stage's network: put {net}"),
        ({"suits": {"orders": 25}}, "suits.orders=25: 1 to 24"),
        ({"table": {"hands": 10}}, "table.hands=10: at least 1,000"),
        ({"exit": {"fit_share": 1.0}}, "exit.fit_share=1.0: in (0, 1)"),
        ({"exit": {"round_minutes": 0.0}}, "exit.round_minutes=0.0: minutes above 0"),
        ({"exit": {"keep_positions": -1}}, "exit.keep_positions=-1: 0 (each round on its own labels) to 100,000,000"),
        ({"exit": {"search_weight": 0}}, "exit.search_weight=0.0: in (0, 1]"),
        ({"exit": {"round_minute": 3}}, "unknown config key(s) ['exit.round_minute']; round_minute: did you mean exit.round_minutes"),
        ({"exit": "fast"}, "config exit='fast': a mapping of its settings (teacher, label_rate, fit_share, round_minutes, keep_positions, search_weight)"),
        ({"snapshot_minutes": (0.0,)}, "snapshot_minutes"),
        ({"stages": ["selfplay", "magic"]}, "stages=['selfplay', 'magic']: each of selfplay, exit, table, contracts, suits"),
        ({"stages": ["selfplay", "selfplay"]}, "at most once"),
        ({"stages": ["selfplay"]}, "shares: exit, table, contracts, suits not in stages (selfplay)"),
        ({"stages": ["selfplay", "contracts", "table"], "shares": {"selfplay": 1, "table": 1, "contracts": 1}},
         "before contracts in stages"),
        ({"exit_teacher": "search:net={net}"}, "exit_teacher is exit.teacher since 0.4.0"),
        ({"table_hands": 5000}, "table_hands is table.hands since 0.4.0"),
        ({"selfplay": "dmc_full"}, "config selfplay='dmc_full': a mapping of its settings (config) (selfplay is selfplay.config since 0.4.0)"),
    ],
)  # fmt: skip
def test_a_bad_recipe_config_is_refused_naming_the_field(values, words):
    """From YAML's values (``from_mapping``, as ``--config`` reads a file): each refusal names the field, nested
    ones by their place (``exit.fit_share``), and a key of 0.3.0's names the field it became."""
    from train.config import from_mapping

    with pytest.raises(ValueError, match=None) as refused:
        from_mapping(Config, values)
    assert words in str(refused.value)


def test_a_stage_checks_its_own_settings_made_in_python():
    from train.stages import Exit

    with pytest.raises(ValueError, match=r"config exit.label_rate=0.0: in \(0, 1\]"):
        Exit(label_rate=0)
    with pytest.raises(ValueError, match="config exit='fast': must be a mapping of its settings"):
        Config(exit="fast")  # type: ignore[arg-type]


def test_the_shares_are_weights_and_each_stage_ends_at_its_point_of_the_clock():
    config = Config(minutes=10, shares={"selfplay": 2, "exit": 1, "table": 0, "contracts": 0, "suits": 1})
    assert config.running() == ["selfplay", "exit", "suits"]
    ends = config.deadlines()
    assert ends["selfplay"] == pytest.approx(300) and ends["exit"] == pytest.approx(450)
    assert ends["table"] == ends["contracts"] == pytest.approx(450) and ends["suits"] == pytest.approx(600)


def test_a_long_exit_stage_runs_in_rounds_each_teacher_the_network_the_round_before_made(tmp_path, monkeypatch):
    """``exit.round_minutes``: an exit stage longer than it is cut into equal rounds on the run's clock, each
    teacher a search over the last round's network; a round done before a kill is not run again; the hour-long
    ``champion`` keeps one round, the 720-minute run gets four."""
    from smear_env import Rules
    from smear_nets import NetworkSpec, build_network, save_checkpoint
    from train.config import Start
    from train.recipe import Recipe
    from train.stages import Exit

    assert Config().exit.rounds(Config().share("exit") * 60) == 1  # 18 minutes
    assert Config().exit.rounds(Config().share("exit") * 720) == 4  # 216
    config = Config(runs_dir=str(tmp_path), run_name="r", minutes=100, shares={"selfplay": 1, "exit": 2},
                    exit=Exit(round_minutes=30, keep_positions=5000, search_weight=0.8))  # fmt: skip
    recipe = Recipe(config, Start())
    selfplay = recipe.network("selfplay")
    selfplay.parent.mkdir(parents=True)
    spec = NetworkSpec("q", (16,))
    save_checkpoint(selfplay, spec, Rules(), build_network(spec).state_dict())
    recipe.state["done"]["selfplay"] = str(selfplay.relative_to(recipe.folder))
    calls = []

    def distill(run, deadline, net, teacher, label_rate, fit_share, folder, made, round_, earlier, keep, search_weight):
        calls.append(
            (deadline, Path(net).name, teacher, folder.name, round_, [f.parent.name for f in earlier], keep, search_weight)
        )
        save_checkpoint(made, spec, Rules(), build_network(spec).state_dict())
        return made

    monkeypatch.setattr(config.exit, "distill", distill)
    made = config.exit.run(recipe, 100 * 60)  # the stage: from 33.3 to 100 minutes, 3 rounds of 22.2
    assert made == recipe.folder / "networks" / "2-exit-round3.pt" and recipe.sources[0] == made
    assert [c[0] for c in calls] == pytest.approx([(100 / 3 + 200 / 9 * r) * 60 for r in (1, 2, 3)])
    assert [c[1] for c in calls] == ["1-selfplay.pt", "2-exit-round1.pt", "2-exit-round2.pt"]
    assert all(f"net={recipe.folder / 'networks' / c[1]}," in c[2] for c in calls)  # each teacher searches over it
    assert [(c[3], c[4]) for c in calls] == [("round1", 1), ("round2", 2), ("round3", 3)]
    assert [c[5] for c in calls] == [[], ["round1"], ["round1", "round2"]]  # each fit may keep the rounds before's
    assert all(c[6:] == (5000, 0.8) for c in calls)
    made.unlink()  # killed in the last round: the rounds done are kept
    calls.clear()
    assert config.exit.run(recipe, 100 * 60) == made and [(c[1], c[4]) for c in calls] == [("2-exit-round2.pt", 3)]


def test_contracts_in_rounds_re_solve_the_table_under_the_round_befores_play_and_say_each_rounds_figures(tmp_path, monkeypatch):
    """``contracts.rounds``: equal shares of the stage; round 1 against the table stage's table from the card play's
    network, each later round against a table solved under the round before's joined network, its DMC from the
    round before's contracts; each round's bid, made and win rates in its round.json and the log; a round done
    before a kill is not run again, nor measured again."""
    import agents.arena
    import train.stages as stages
    from smear_env import Rules
    from smear_nets import NetworkSpec, build_network, save_checkpoint
    from train.config import Start
    from train.recipe import Recipe
    from train.stages import Contracts

    config = Config(runs_dir=str(tmp_path), run_name="r", minutes=100, shares={"selfplay": 1, "table": 1, "contracts": 3},
                    contracts=Contracts(rounds=3, round_hands=5000, round_games=20))  # fmt: skip
    recipe = Recipe(config, Start())
    spec = NetworkSpec("q", (16,))
    play = recipe.network("selfplay")
    play.parent.mkdir(parents=True)
    save_checkpoint(play, spec, Rules(), build_network(spec).state_dict())
    table = recipe.stage_folder("table") / "chances.npz"
    table.parent.mkdir(parents=True)
    table.write_bytes(b"the table stage's")
    recipe.state["done"].update(selfplay=str(play.relative_to(recipe.folder)), table=str(table.relative_to(recipe.folder)))
    trained, solved, matches = [], [], []

    def train(run, dmc_config, made=None):
        trained.append((Path(dmc_config.init).name, Path(dmc_config.chances), Path(dmc_config.runs_dir).name, dmc_config.seed))
        save_checkpoint(made, spec, Rules(), build_network(spec).state_dict())
        return made

    class Solved:
        def save(self, path):
            path.write_bytes(b"solved")

    def solve_table(network, hands, seed):
        solved.append((Path(network).name, hands, seed))
        return Solved()

    class Played:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def summary(self):
            return {"agents": [self.a, self.b], "games": 20, "win_rate": 0.55, "win_rate_ci95": [0.4, 0.7],
                    "bid_rate": {self.a: {"2": 0.2, "3": 0.1, "4": 0.05}}, "made_bid_rate": {self.a: {"2": 0.8, "3": 0.6, "4": None}}}  # fmt: skip

    def run_match(a, b, games, seed, rules, workers):
        matches.append((Path(a.removeprefix("neural:")).name, Path(b.removeprefix("neural:")).name, games))
        return Played(a, b)

    monkeypatch.setattr(config.contracts, "train", train)
    monkeypatch.setattr(stages, "solve_table", solve_table)
    monkeypatch.setattr(agents.arena, "run_match", run_match)
    scalars = []
    recipe.writer = types.SimpleNamespace(add_scalar=lambda tag, value, step: scalars.append((tag, value)))
    made = config.contracts.run(recipe, 100 * 60)
    assert scalars.count(("contracts/round_win_rate", 0.55)) == 3 and ("contracts/round_bid_4", 0.05) in scalars
    assert made == recipe.network("contracts", "round3") and recipe.sources[0] == made
    folder = recipe.stage_folder("contracts")
    assert [t[0] for t in trained] == ["1-selfplay.pt", "contracts.pt", "contracts.pt"]  # each DMC from the round before's
    assert [t[1] for t in trained] == [table, folder / "round2" / "chances.npz", folder / "round3" / "chances.npz"]
    assert [t[2] for t in trained] == ["round1", "round2", "round3"] and len({t[3] for t in trained}) == 3  # own folders, seeds
    assert [s[:2] for s in solved] == [
        ("4-contracts-round1.pt", 5000),
        ("4-contracts-round2.pt", 5000),
    ]  # the round before's play
    assert matches == [("4-contracts-round1.pt", "1-selfplay.pt", 20), ("4-contracts-round2.pt", "4-contracts-round1.pt", 20),
                       ("4-contracts-round3.pt", "4-contracts-round2.pt", 20)]  # fmt: skip
    figures = json.loads((folder / "round2" / "round.json").read_text())
    assert figures["win_rate"] == 0.55 and figures["bid_rate"]["4"] == 0.05 and figures["made_bid_rate"]["4"] is None
    assert "contracts: round 2/3: win rate 0.550 [0.400, 0.700]" in (recipe.folder / "recipe.log").read_text()
    made.unlink()  # killed in the last round: the rounds done are kept, their figures not played again
    (folder / "round3" / "round.json").unlink()
    trained.clear(), solved.clear(), matches.clear()
    assert config.contracts.run(recipe, 100 * 60) == made
    assert [t[0] for t in trained] == ["contracts.pt"] and solved == [] and [m[0] for m in matches] == ["4-contracts-round3.pt"]


def test_one_round_of_contracts_keeps_todays_folders_and_plays_no_match(tmp_path, monkeypatch):
    import agents.arena
    from smear_env import Rules
    from smear_nets import NetworkSpec, build_network, save_checkpoint
    from train.config import Start
    from train.recipe import Recipe

    config = Config(runs_dir=str(tmp_path), run_name="r", minutes=100, shares={"selfplay": 1, "table": 1, "contracts": 3})
    recipe = Recipe(config, Start())
    spec = NetworkSpec("q", (16,))
    play = recipe.network("selfplay")
    play.parent.mkdir(parents=True)
    save_checkpoint(play, spec, Rules(), build_network(spec).state_dict())
    table = recipe.stage_folder("table") / "chances.npz"
    table.parent.mkdir(parents=True)
    table.write_bytes(b"")
    recipe.state["done"].update(selfplay=str(play.relative_to(recipe.folder)), table=str(table.relative_to(recipe.folder)))
    seen = []

    def train(run, dmc_config, made=None):
        seen.append((dmc_config.run_name, dmc_config.seed, made))
        made = made or run.network("contracts")
        save_checkpoint(made, spec, Rules(), build_network(spec).state_dict())
        return made

    monkeypatch.setattr(config.contracts, "train", train)
    monkeypatch.setattr(agents.arena, "run_match", lambda *a, **k: pytest.fail("a match with one round"))
    assert config.contracts.run(recipe, 100 * 60) == recipe.network("contracts")
    assert seen == [("4-contracts", config.seed * 100 + 3, None)]  # the stage's folder and seed as before rounds


def test_a_snapshot_taken_after_the_table_holds_the_last_network_not_the_table(tmp_path, monkeypatch):
    """The table stage makes win chances, not a network: a snapshot due during the contracts stage copies the
    network held before the table (it once copied nothing, the table being no checkpoint)."""
    from smear_env import Rules
    from smear_nets import NetworkSpec, build_network, save_checkpoint
    from train.config import Start
    from train.recipe import Recipe

    shares = {"selfplay": 1, "table": 1, "contracts": 1}
    config = Config(runs_dir=str(tmp_path), run_name="r", minutes=3, shares=shares, snapshot_minutes=(2.5,), final_games=0)
    recipe = Recipe(config, Start())
    now = [0.0]
    monkeypatch.setattr(recipe, "clock", lambda: now[0])
    spec = NetworkSpec("q", (16,))

    def selfplay(run, deadline):
        made = recipe.network("selfplay")
        made.parent.mkdir(parents=True, exist_ok=True)
        save_checkpoint(made, spec, Rules(), build_network(spec).state_dict())
        return made

    def table(run, deadline):
        made = recipe.stage_folder("table") / "chances.npz"
        made.parent.mkdir(parents=True, exist_ok=True)
        made.write_bytes(b"not a network")
        return made

    class StoppedError(Exception):
        pass

    def contracts(run, deadline):
        now[0] = 2.6 * 60
        recipe.keep_snapshots()
        raise StoppedError

    monkeypatch.setattr(config.selfplay, "run", selfplay)
    monkeypatch.setattr(config.table, "run", table)
    monkeypatch.setattr(config.contracts, "run", contracts)
    with pytest.raises(StoppedError):
        recipe.run()
    snapshot = recipe.state["snapshots"]["2.5"]
    assert snapshot["stage"] == "contracts" and load_checkpoint(recipe.folder / snapshot["path"]).network == spec


def test_a_fit_keeps_the_latest_positions_of_earlier_rounds_up_to_its_cap(tmp_path):
    """``exit.keep_positions``: the round's own positions first (the held-out ones are drawn from those), then at
    most the cap of the earlier rounds', the latest kept."""
    from train.stages import Distillation

    def shard(folder, name, first, count):
        folder.mkdir(parents=True, exist_ok=True)
        rows = np.arange(first, first + count)
        np.savez(folder / name, obs=rows[:, None].repeat(3, 1), mask=np.ones((count, 2), bool),
                 target=np.zeros((count, 2), np.float32), phase=rows)  # fmt: skip

    round1, round2 = tmp_path / "round1", tmp_path / "round2"
    shard(round1, "a1w0.npz", 0, 10)
    shard(round1, "a1w1.npz", 10, 10)
    shard(round2, "a1w0.npz", 20, 10)
    own = {
        "obs": np.full((4, 3), -1),
        "mask": np.ones((4, 2), bool),
        "target": np.zeros((4, 2), np.float32),
        "phase": np.full(4, -1),
    }
    kept = Distillation.with_earlier(own, [round1, round2], keep=15)
    assert list(kept["phase"]) == [-1] * 4 + list(range(15, 30))  # own, then the latest 15, in the order made
    assert all(len(v) == 19 for v in kept.values())
    assert Distillation.with_earlier(own, [round1, round2], keep=0) is own
    assert len(Distillation.with_earlier(own, [round1], keep=100)["phase"]) == 24


def test_completed_values_mix_the_searchs_values_with_the_networks_own_and_leave_the_unjudged_alone():
    import torch

    from train.distill import completed_values

    class Fixed(torch.nn.Module):
        def forward(self, obs):
            return torch.full((len(obs), 3), 2.0)

    data = {"obs": np.zeros((3, 5), np.float32), "target": np.array([[1.0, np.nan, 0.0]] * 3, np.float32)}
    mixed = completed_values(Fixed(), data, 0.25)
    assert np.allclose(mixed[:, 0], 0.25 * 1 + 0.75 * 2) and np.allclose(mixed[:, 2], 1.5) and np.isnan(mixed[:, 1]).all()
    assert np.isnan(data["target"][:, 1]).all() and data["target"][0, 0] == 1.0  # the teacher's own are kept as they were


def test_a_missing_stage_config_is_named_before_anything_starts(tmp_path):
    assert main(["--runs-dir", str(tmp_path), "--selfplay.config", "nope", "--minutes", "1"]) == 2
    assert not any(Path(tmp_path).iterdir())


def test_a_distillation_stage_that_labels_nothing_in_its_time_passes_its_network_on(tmp_path):
    """On a machine too busy for a stage's share no position may be labelled: the stage keeps the network it
    started from (the run goes on) instead of failing; a random start's sizes are the self-play config's."""
    from smear_env import Rules
    from smear_nets import NetworkSpec, build_network, save_checkpoint
    from train.config import Start
    from train.recipe import Recipe

    recipe = Recipe(Config(runs_dir=str(tmp_path), run_name="r", workers=1), Start())
    recipe.folder.mkdir(parents=True)
    assert recipe._hidden() == (512, 256, 256)  # dmc_recipe's, read without its time fields
    start = tmp_path / "start.pt"
    spec = NetworkSpec("q", (16,))
    save_checkpoint(start, spec, Rules(), build_network(spec).state_dict())
    made = recipe.config.exit.distill(recipe, recipe.clock() + 1.0, start, "heuristic", 0.5, 0.35)  # under a second to label
    assert load_checkpoint(made).extra["unchanged"] and load_checkpoint(made).network == spec


def test_the_kit_commit_is_the_checkouts_head_and_none_outside_a_checkout(tmp_path):
    """A run's legs name the commit the kit ran from, marked when its tracked files were changed; an installed
    kit (no checkout) says None rather than a wrong commit."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert kit_commit(tmp_path) is None  # no commit yet
    (tmp_path / "a.txt").write_text("one")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    assert kit_commit(tmp_path) == head
    (tmp_path / "a.txt").write_text("two")
    assert kit_commit(tmp_path) == head + "+changes"
    assert kit_commit(tmp_path / "nowhere") is None


GOLDEN = Path(__file__).parent / "golden" / "recipe_2e640ad"  # a run's record as the commit before typed stages wrote it


def stage_places(recipe, name: str) -> dict:
    """Where a stage writes and the seeds it draws: what no other stage's coming or going may change."""
    from train.stages import Distillation, DMCStage

    stage, seed = recipe.config.stage(name), recipe.config.seed
    places = {"folder": recipe.stage_folder(name), "network": recipe.network(name), "round2": recipe.network(name, "round2")}
    if isinstance(stage, DMCStage):
        made = stage.dmc_config(recipe, 60.0, init="start.pt", chances="chances.npz" if name == "contracts" else None)
        places["dmc seed"], places["dmc folder"] = made.seed, Path(made.runs_dir) / made.run_name
    if isinstance(stage, Distillation):
        places["label seeds"] = [stage.label_seed(seed, r, a, w) for r in (1, 2) for a in (1, 2) for w in (0, 1)]
        places["fit seeds"] = [stage.fit_seed(seed, r) for r in (1, 2, 3)]
    return places


def test_a_stage_inserted_in_the_middle_moves_no_other_stages_folder_network_or_seed(tmp_path):
    """Folders, networks and seeds are keyed by the stage's own number, not its place: the exit stage put
    between selfplay and table (or the table and contracts left out) changes nothing of the others'."""
    from train.config import Start
    from train.recipe import Recipe

    def recipe(name, stages, shares):
        return Recipe(Config(runs_dir=str(tmp_path), run_name=name, stages=stages, shares=shares), Start())

    without = recipe("a", ("selfplay", "table", "contracts", "suits"), {"selfplay": 1, "table": 1, "contracts": 1, "suits": 1})
    inserted = recipe("a", STAGES, {"selfplay": 1, "exit": 1, "table": 1, "contracts": 1, "suits": 1})
    fewer = recipe("a", ("selfplay", "exit", "suits"), {"selfplay": 1, "exit": 1, "suits": 1})
    for name in ("selfplay", "table", "contracts", "suits"):
        assert stage_places(without, name) == stage_places(inserted, name), name
    for name in ("selfplay", "exit", "suits"):
        assert stage_places(fewer, name) == stage_places(inserted, name), name
    assert inserted.numbered("table") == "3/5" and without.numbered("table") == "2/4"  # its place is only said


def test_todays_stages_keep_the_seeds_and_folders_of_the_commit_before_typed_stages(tmp_path):
    """A run folder as 2e640ad wrote it (its config.yaml with 0.3.0's flat keys, its recipe.json, its DMC stages'
    configs; tests/golden/recipe_2e640ad) resumes: its config is read into the typed stages, every stage's
    folder and network are where that run put them, the DMC stages draw the seeds they drew, and the run
    finishes from its last network."""
    import shutil

    from smear_env import Rules
    from smear_nets import NetworkSpec, build_network, save_checkpoint
    from train.config import parse
    from train.recipe import Recipe

    folder = tmp_path / "old"
    shutil.copytree(GOLDEN, folder)
    (folder / "config.yaml").write_text((GOLDEN / "config.yaml").read_text().replace("/tmp/oldrun", str(tmp_path)))
    files = set((GOLDEN / "files.txt").read_text().split())
    config, start = parse(Config, ["--resume", str(folder)], "recipe", "python -m train.recipe")
    assert config.exit.round_minutes == 0.1 and config.table.hands == 1000 and config.selfplay.config == "dmc_recipe"
    assert config.exit.teacher.startswith("search:net={net}") and config.stages == STAGES
    recipe = Recipe(config, start)
    state = json.loads((GOLDEN / "recipe.json").read_text())
    for name in STAGES:
        assert str(recipe.made(name).relative_to(folder)) == state["done"][name] in files
        assert any(f.startswith(str(recipe.stage_folder(name).relative_to(folder)) + "/") for f in files), name
    for r in (1, 2, 3):
        assert str(recipe.network("exit", f"round{r}").relative_to(folder)) in files
    for name in ("selfplay", "contracts"):
        old = yaml.safe_load((folder / "stages" / recipe.stage_folder(name).name / "config.yaml").read_text())
        assert stage_places(recipe, name)["dmc seed"] == old["seed"]  # 100 and 103: seed * 100 + the stage's stream
    assert recipe.config.exit.label_seed(1, 2, 1, 1) == 7920 * 1000 + 100 + 1 + 10  # the formula 2e640ad drew with
    assert recipe.config.suits.fit_seed(1, 1) == 104
    spec = NetworkSpec("q", (16,))
    save_checkpoint(folder / "networks" / "5-suits.pt", spec, Rules(), build_network(spec).state_dict())
    recipe.run()  # every stage done: the run finishes with the last one's network
    assert load_checkpoint(folder / "final.pt").network == spec
    saved = yaml.safe_load((folder / "config.yaml").read_text())
    assert saved["exit"]["round_minutes"] == 0.1 and "exit_round_minutes" not in saved  # written as it is now read


def test_the_beliefs_stage_learns_on_the_runs_play_measures_itself_and_resumes(tmp_path):
    """The model of the hidden cards, learned on the play of the network the stage starts from, measured on held-out
    positions beside the uniform consistent sampler (log-loss per hidden card, calibration) in its folder, the
    log and TensorBoard; killed and run again it goes on from its saved state with the same held-out positions."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from train.config import Start
    from train.recipe import Recipe
    from train.stages import Beliefs

    config = Config(runs_dir=str(tmp_path), run_name="b", minutes=1, stages=("beliefs",), shares={"beliefs": 1},
                    beliefs=Beliefs(hidden=(32,), games=64, held_out=64, sampler_draws=20))  # fmt: skip
    recipe = Recipe(config, Start())
    recipe.folder.mkdir(parents=True)
    recipe.writer = SummaryWriter(str(recipe.folder))
    made = config.beliefs.run(recipe, recipe.clock() + 4.0)
    assert made == recipe.stage_folder("beliefs") / "beliefs.pt" and made.parent.name == "6-beliefs"
    model = load_checkpoint(made)
    assert model.network.kind == "beliefs" and model.network.hidden == (32,) and model.extra["positions"] > 0
    report = json.loads((made.parent / "beliefs.json").read_text())
    assert report["positions"] == 64 and report["hidden_cards"] > 64
    assert 0 < report["log_loss_model"] < 5 and 0 < report["log_loss_uniform_sampler"] < 2
    assert report["calibration_bins"] and 0 <= report["expected_calibration_error"] <= 1
    assert "log-loss per hidden card" in (recipe.folder / "recipe.log").read_text()
    held = (made.parent / "held_out.npz").read_bytes()
    first = torch.load(made.parent / "state.pt", weights_only=False)
    config.beliefs.run(recipe, recipe.clock() + 2.0)  # as a resume would: from the saved state
    again = torch.load(made.parent / "state.pt", weights_only=False)
    assert again["attempts"] == 2 and again["positions"] > first["positions"]
    assert (made.parent / "held_out.npz").read_bytes() == held
    recipe.writer.close()


def test_the_exit_teacher_reads_the_runs_beliefs_and_draws_only_deals_the_seat_could_be_in(tmp_path):
    """``{beliefs}`` in exit.teacher is the model the run's beliefs stage made (which must run before exit); the
    teacher's deals, drawn from it, each show the seat exactly what it saw: its cards, every card played, the
    voids shown (``seat_view`` of the deal equals the seat's view), over the positions of whole games."""
    import numpy as np

    from agents import load_agent
    from smear_env import Game, Rules, observe, seat_view
    from smear_nets import NetworkSpec, build_network, save_checkpoint
    from train.config import Start, from_mapping
    from train.recipe import Recipe
    from train.stages import Exit

    teacher = "search:net={net},beliefs={beliefs},samples=4,seconds=0.05"
    with pytest.raises(ValueError, match="the exit stage reads what the beliefs stage makes: give beliefs a share"):
        from_mapping(Config, {"stages": ["selfplay", "exit"], "shares": {"selfplay": 1, "exit": 1}, "exit": {"teacher": teacher}})
    with pytest.raises(ValueError, match="before exit in stages"):
        Config(stages=("exit", "beliefs"), shares={"exit": 1, "beliefs": 1}, exit=Exit(teacher=teacher))
    config = Config(runs_dir=str(tmp_path), run_name="t", stages=("beliefs", "exit"), shares={"beliefs": 1, "exit": 1},
                    exit=Exit(teacher=teacher))  # fmt: skip
    recipe = Recipe(config, Start())
    net, beliefs = recipe.folder / "networks" / "1-selfplay.pt", recipe.stage_folder("beliefs") / "beliefs.pt"
    for path, spec in ((net, NetworkSpec("q", (16,))), (beliefs, NetworkSpec("beliefs", (16,)))):
        path.parent.mkdir(parents=True, exist_ok=True)
        save_checkpoint(path, spec, Rules(), build_network(spec).state_dict())
    recipe.state["done"]["beliefs"] = str(beliefs.relative_to(recipe.folder))
    spec = config.exit.teacher_of(recipe, net)
    assert spec == f"search:net={net},beliefs={beliefs},samples=4,seconds=0.05"
    agent = load_agent(spec)
    assert agent.beliefs is not None  # the learned model, not the uniform sampler
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(6):
        game = Game(Rules(), seed)
        while not game.game_over and game.hand_index < 2:
            seat = game.to_act
            view = seat_view(game, seat)
            sampler = agent._sampler(view, observe(game, seat))
            for _ in range(5):
                deal = sampler.game(rng)
                assert seat_view(deal, seat) == view  # its cards, the cards played, the kitty it saw, the voids
                assert all("CDHS"[c >> 3] not in view.voids[s] for s in range(4) if s != seat for c in deal.holding[s])
                checked += 1
            legal = game.legal_actions()
            game.step(legal[rng.integers(len(legal))])
    assert checked > 500
