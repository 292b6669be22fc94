"""Trainer smoke tests through the real command line: run, kill -9, resume, load, play."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from agents import load_agent
from agents.neural import NeuralAgent
from smear_env import Game, Rules, observe, seat_view
from smear_nets.shipped import BELIEFS as SHIPPED_BELIEFS
from train import actors, dmc, ppo
from train.config import Start

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
    first = torch.load(checkpoint, weights_only=True)
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

    from train.tools import export

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
    err = " ".join(capsys.readouterr().err.split())
    assert "Error parsing --num-envs" in err and "'many'" in err and "--num-envs INT" in err
    bad = tmp_path / "bad.yaml"
    bad.write_text("learning_rat: 0.1\n")
    with pytest.raises(SystemExit):
        dmc.main(["--config", str(bad)])
    err = " ".join(capsys.readouterr().err.split())
    assert "unknown config key(s) ['learning_rat']; learning_rat: did you mean learning_rate (Adam learning rate)" in err


def test_neural_spec_errors(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        load_agent(f"neural:{tmp_path}/missing.pt")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="not a smear-rl checkpoint"):
        load_agent(f"neural:{junk}")
    with pytest.raises(ValueError, match="q or q_split networks only"):
        load_agent(f"neural:neural+{SHIPPED_BELIEFS}")
    with pytest.raises(ValueError, match="no such file"):
        load_agent(f"neural:chance+{tmp_path}/missing.pt")


def test_an_ensemble_plays_the_mean_of_its_networks_values():
    """``neural:A+B``: each action valued by the mean of the members' values (built-in names or paths)."""
    both, chance, neural = load_agent("neural:chance+distilled"), load_agent("neural:chance"), load_agent("neural:distilled")
    game = Game(Rules(), 3)
    for _ in range(40):  # the contracts and the first tricks of a game
        obs = observe(game, game.to_act)[None]
        assert np.allclose(both.values(obs), (chance.values(obs) + neural.values(obs)) / 2, atol=1e-5)
        game.step(both.act(obs[0], game.action_mask(), seat_view(game, game.to_act)))
        if game.game_over:
            break


def test_r1_a_suit_mean_values_a_position_as_it_values_the_position_relabelled():
    """``suits=K`` (smear_nets.SuitMean): the network's values of the position seen under K orders of the suits,
    each mapped back to the position's own actions and averaged. Over all 24 orders a relabelled position
    gets its relabelled values exactly (R1: no rule names a suit); ``suits=1`` is the network alone (the
    default, unless the checkpoint says otherwise: test_export_suits_records_how_the_network_is_played)."""
    from smear_env.symmetry import ACTION_INDEX, OBS_INDEX
    from smear_nets import SuitMean

    chance = load_agent("neural:chance")
    network = chance.network
    obs = []
    game = Game(Rules(), 4)
    while not game.game_over and len(obs) < 80:
        obs.append(observe(game, game.to_act))
        game.step(game.legal_actions()[-1])
    device = chance.device  # auto: a GPU where torch sees one
    x = torch.from_numpy(np.stack(obs)).to(device)

    def index(order: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(order).to(device)

    every = SuitMean(network, 24)
    for p in (1, 5, 23):
        relabelled = x[:, index(OBS_INDEX[p])]
        assert torch.allclose(every(relabelled), every(x)[:, index(ACTION_INDEX[p])], atol=1e-5)
    by_hand = torch.stack([network(x[:, index(OBS_INDEX[p])])[:, index(np.argsort(ACTION_INDEX[p]))]
                           for p in range(4)]).mean(dim=0)  # fmt: skip
    assert torch.allclose(SuitMean(network, 4)(x), by_hand, atol=1e-5)
    assert torch.equal(SuitMean(network, 1)(x), network(x))
    four, alone = load_agent("neural:chance,suits=4"), load_agent("neural:chance,suits=1")
    assert four.suits == 4 and alone.suits == 1 and load_agent("neural").suits == 1
    rows = x.cpu().numpy()
    assert np.allclose(four.values(rows), SuitMean(network, 4)(x).detach().cpu().numpy(), atol=1e-5)
    assert np.allclose(alone.values(rows), chance.values(rows), atol=1e-6)
    for bad in (0, 25):
        with pytest.raises(ValueError, match="1 to 24"):
            load_agent(f"neural:chance,suits={bad}")
    with pytest.raises(ValueError, match="q or q_split networks only"):
        load_agent(f"neural:{SHIPPED_BELIEFS},suits=4")


TINY = dict(num_envs=16, hidden=(16,), eval_games=2, eval_every=2_000, checkpoint_seconds=0.0, log_seconds=0.0)


def tiny_dmc(tmp_path, **changes) -> dmc.Config:
    values = dict(TINY, runs_dir=str(tmp_path), run_name="api", total_steps=3_000, warmup=200, batch_size=32, num_actors=0)
    values.update(changes)
    return dmc.Config(**values)


def test_trainers_run_from_python_with_a_config_object(tmp_path):
    from smear_env import Rules

    rules = Rules(kitty_size=2, high_low_in_play=True, defender_cap=12)
    folder = dmc.train(tiny_dmc(tmp_path, rules=rules, opponents={"self": 0.5, "random": 0.5}))
    assert folder == tmp_path / "api" and (folder / "checkpoint.pt").is_file()
    checkpoint = torch.load(folder / "checkpoint.pt", weights_only=True)
    assert checkpoint["rules"] == rules.to_dict() and checkpoint["network"]["kind"] == "q"
    ppo_folder = ppo.train(
        ppo.Config(**TINY, runs_dir=str(tmp_path), run_name="ppo_api", total_steps=1_000, num_steps=8, rules=rules)
    )
    assert torch.load(ppo_folder / "checkpoint.pt", weights_only=True)["rules"] == rules.to_dict()
    # A network refuses rules it was not trained under, unless told to play anyway.
    with pytest.raises(ValueError, match="kitty_size=2.*any_rules=true"):
        load_agent(f"neural:{folder / 'checkpoint.pt'}").check_rules(Rules())
    load_agent(f"neural:{folder / 'checkpoint.pt'},any_rules=true").check_rules(Rules())
    load_agent(f"neural:{folder / 'checkpoint.pt'}").check_rules(rules)


def test_a_run_folder_that_exists_is_refused_and_never_overwritten(tmp_path, capsys):
    config = tiny_dmc(tmp_path, total_steps=600)
    folder = dmc.train(config)
    before = (folder / "checkpoint.pt").read_bytes()
    argv = ["--runs-dir", str(tmp_path), "--run-name", "api", "--num-envs", "16", "--hidden", "16", "--num-actors", "0"]
    assert dmc.main(argv) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and f"--resume {folder}" in err and "--force" in err and "--suffix" in err
    assert (folder / "checkpoint.pt").read_bytes() == before
    assert dmc.train(config, Start(suffix=True)) == tmp_path / "api-2"
    assert dmc.train(config, Start(force=True)) == folder and (folder / "checkpoint.pt").read_bytes() != before


def exit_code(main, argv: list[str]) -> int:
    """A command's exit status, whether it returned it or exited with it."""
    try:
        return main(argv)
    except SystemExit as e:
        return int(e.code)


def test_bad_config_values_fail_before_anything_starts_and_leave_no_folder(tmp_path, capsys):
    base = ["--runs-dir", str(tmp_path), "--run-name", "bad", "--num-actors", "0"]
    bad_device = ["--device", "cuda:0"] if not torch.cuda.is_available() else ["--device", "tpu"]
    for flags, message in [
        (["--learning-rate", "-1"], "learning_rate=-1.0: must be above 0"),
        (["--kitty-size", "7"], "kitty_size=7: allowed values are 0 to 3"),
        (["--opponents", "self=1", "nobody=1"], "not a built-in agent"),
        (["--opponents", "self=-1"], "weights must be 0 or more"),
        (bad_device, "device="),
        (["--eval-opponent", "nobody"], "not a built-in agent"),
        (["--teacher-positions", str(tmp_path / "none")], "teacher_positions="),
        (["--teacher-weight", "-1"], "teacher_weight=-1.0: must be 0 or more"),
        (
            ["--learn-phases", "trump", "trump"],
            "learn_phases=('trump', 'trump'): one or more of bid, trump, discard, play, each once",
        ),
    ]:
        assert exit_code(dmc.main, base + flags) == 2, flags
        assert message in " ".join(capsys.readouterr().err.split()), flags
        assert not (tmp_path / "bad").exists(), flags


def test_resume_continues_the_curves_and_the_schedule(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    folder = dmc.train(tiny_dmc(tmp_path, total_steps=2_500, eval_every=1_000, pool_every=800))
    first = torch.load(folder / "checkpoint.pt", weights_only=True)
    assert first["schedule"]["eval"] > 0 and first["schedule"]["pool"] > 0 and first["last_eval"] is not None
    # TensorBoard orders event files by name: creation second, host, process id, then a per-process counter
    # compared as text ("10" < "9"). Two writers of one process in the same second can sort backwards; a
    # resume is never that quick outside a test.
    time.sleep(1.1)
    dmc.train(tiny_dmc(tmp_path, total_steps=5_000, eval_every=1_000, pool_every=800), Start(resume=folder))
    second = torch.load(folder / "checkpoint.pt", weights_only=True)
    assert second["global_step"] >= 5_000 and second["schedule"]["eval"] > first["schedule"]["eval"]
    events = EventAccumulator(str(folder))
    events.Reload()
    for tag in ("charts/agent_steps_per_second", "charts/win_rate_vs_heuristic"):
        steps = [e.step for e in events.Scalars(tag)]
        assert steps == sorted(set(steps)), tag  # never backwards, nothing twice
    assert "resumed" in (folder / "train.log").read_text()


def test_any_agent_can_be_the_only_opponent(tmp_path):
    """A mix of one fixed agent: what a best response trains against (here a network, by its spec)."""
    shipped = Path(__file__).parent.parent / "smear_nets" / "weights" / "neural.pt"
    folder = dmc.train(tiny_dmc(tmp_path, opponents={f"neural:{shipped}": 1.0}, total_steps=1_000, hidden=(256, 256)))
    assert (folder / "checkpoint.pt").is_file()


def test_run_files_are_readable_by_others(tmp_path):
    import stat

    old = os.umask(0o022)
    try:
        folder = dmc.train(tiny_dmc(tmp_path, total_steps=600))
    finally:
        os.umask(old)
    for path in [folder / "checkpoint.pt", folder / "config.yaml", *(folder / "snapshots").iterdir()]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


CONFIGS = Path(__file__).parents[1] / "configs"


@pytest.mark.parametrize("path", sorted([*CONFIGS.glob("dmc_*.yaml"), *CONFIGS.glob("ppo_*.yaml")]), ids=lambda p: p.name)
def test_every_shipped_config_file_makes_a_valid_config(path):
    """The files the README's commands name: known keys, valid values, an init checkpoint that exists."""
    import yaml

    from train.config import from_mapping

    trainer = {"dmc": dmc, "ppo": ppo}[path.name.split("_")[0]]
    values = yaml.safe_load(path.read_text())
    if path.name == "dmc_contracts.yaml":  # a stage of the recipe, which gives it the network and the table it made
        values |= {"init": "dmc", "chances": "win_chances"}
    if path.name == "dmc_recipe.yaml":  # a stage of the recipe, which gives it the time its learning rate falls over
        values |= {"decay_seconds": 600.0}
    config = from_mapping(trainer.Config, values)
    config.validate()
    if getattr(config, "init", None):
        from smear_nets.shipped import weights_path

        assert weights_path(config.init).is_file()


def test_dmc_learns_from_the_decisions_of_the_phases_asked_only(tmp_path):
    """``learn_phases``: the Monte-Carlo loss sees the decisions of those phases (read from the
    observation's phase one-hot) and no others; a config file gives them as a YAML list."""
    game, rows, phases = Game(Rules(), 1), [], []
    while not game.game_over:
        rows.append(observe(game, game.to_act))
        phases.append(seat_view(game, game.to_act).phase)
        game.step(game.legal_actions()[-1])
    obs, phases = np.stack(rows), np.array(phases)
    for asked, wanted in ((("trump", "discard"), [1, 2]), (("bid",), [0]), (("bid", "trump", "discard", "play"), [0, 1, 2, 3])):
        assert (actors.in_phases(obs, asked) == np.isin(phases, wanted)).all(), asked
    assert 0 < actors.in_phases(obs, ("trump", "discard")).sum() < len(obs)
    config = tmp_path / "contracts.yaml"
    config.write_text(f"runs_dir: {tmp_path}\nrun_name: contracts\nlearn_phases: [bid, trump, discard]\nnum_actors: 0\n"
                      "total_steps: 3000\nwarmup: 50\nbatch_size: 32\nnum_envs: 16\nhidden: [16]\neval_every: 1000000\n")  # fmt: skip
    assert dmc.main(["--config", str(config)]) == 0
    log = (tmp_path / "contracts" / "train.log").read_text()
    saved = yaml.safe_load((tmp_path / "contracts" / "config.yaml").read_text())
    assert "q_loss" in log and saved["learn_phases"] == ["bid", "trump", "discard"]


def test_a_builtin_config_is_found_by_name_and_a_bad_name_is_refused(tmp_path, capsys):
    from train.config import builtin_configs, find_config

    assert {"dmc_quick", "dmc_full", "ppo_quick", "sweep_dmc"} <= set(builtin_configs())
    assert find_config("dmc_quick").read_text() == (CONFIGS / "dmc_quick.yaml").read_text()
    assert find_config("dmc_quick.yaml") == find_config("dmc_quick")
    assert find_config(str(CONFIGS / "ppo_quick.yaml")) == CONFIGS / "ppo_quick.yaml"  # a path still works
    with pytest.raises(ValueError, match=r"no built-in config of that name; the built-ins are \[.*'dmc_quick'"):
        find_config("dmc_quik")
    with pytest.raises(SystemExit) as stop:
        dmc.main(["--config", "dmc_quik", "--runs-dir", str(tmp_path)])
    assert stop.value.code == 2 and "the built-ins are" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("name", [n for n in __import__("train.config").config.builtin_configs() if n[:4] in ("dmc_", "ppo_")])
def test_flags_are_applied_before_a_builtin_config_is_checked(name):
    """Every trainer's built-in config with --max-seconds: the file and the flags are checked together, once
    (dmc_recipe's learning_rate_end needs a time to fall over, which the flag gives; it was refused before)."""
    from train.config import parse

    trainer = dmc if name.startswith("dmc_") else ppo
    given = {"dmc_contracts": ["--init", "dmc", "--chances", "win_chances"]}.get(name, [])  # what the recipe gives it
    config, _ = parse(trainer.Config, ["--config", name, "--max-seconds", "45", *given], "test", "test")
    assert config.max_seconds == 45


def test_dmc_recipe_runs_with_max_seconds_and_without_a_time_is_refused_naming_it(tmp_path, capsys):
    assert dmc.main(["--config", "dmc_recipe", "--max-seconds", "2", "--runs-dir", str(tmp_path), "--eval-games", "2",
                     "--warmup", "500", "--num-envs", "64", "--num-actors", "0"]) == 0  # fmt: skip
    assert (tmp_path / "dmc" / "config.yaml").is_file()
    with pytest.raises(SystemExit) as stop:
        dmc.main(["--config", "dmc_recipe", "--runs-dir", str(tmp_path / "none")])
    assert stop.value.code == 2 and "learning_rate_end: needs decay_seconds (or max_seconds)" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()


def test_checkpoints_run_configs_and_match_json_record_the_version(tmp_path):
    import torch

    import smear_env
    from agents.arena import run_match
    from smear_nets import NetworkSpec, build_network, load_checkpoint, save_checkpoint
    from train.config import from_mapping, to_mapping

    spec = NetworkSpec("q", (8,))
    path = save_checkpoint(tmp_path / "c.pt", spec, Rules(), build_network(spec).state_dict())
    assert torch.load(path, weights_only=True)["smear_rl_version"] == smear_env.__version__
    assert load_checkpoint(path).extra["smear_rl_version"] == smear_env.__version__
    values = to_mapping(dmc.Config())
    assert values["smear_rl_version"] == smear_env.__version__
    assert from_mapping(dmc.Config, values) == dmc.Config()  # read back (resume): the version is not a setting
    assert run_match("random", "random", games=2, seed=0).summary()["smear_rl_version"] == smear_env.__version__


@pytest.mark.parametrize("command", ["train.dmc", "train.ppo", "train.distill", "train.beliefs", "train.chance_table", "train.tools.export",
                                     "train.tools.sweep", "train.tools.exploit", "train.tools.ship", "train.recipe", "smear_apps.eval", "smear_apps.play", "smear_apps.records_app", "smear_apps.web.app", "smear_apps.command:exploit"])  # fmt: skip
def test_every_command_reads_a_config_dataclass_and_its_help_lists_each_option_with_its_default(command, capsys):
    """One style for every command: ``--help`` naming every option, on tyro: a flag (or a positional argument)
    for every field of the command's config dataclass (flat: the rule settings as ``--kitty-size``)."""
    import importlib

    module = importlib.import_module(command.split(":")[0])
    with pytest.raises(SystemExit) as done:
        getattr(module, command.partition(":")[2] or "main")(["--help"])
    text = capsys.readouterr().out
    assert done.value.code == 0 and text.startswith("usage: ") and "--version" in text
    config = getattr(module, "Config", None)
    if command != "smear_apps.command:exploit":  # train.tools.exploit's, under its own name
        assert config is not None, f"{command}: a config dataclass, not hand-written argparse"
        flat = " ".join(text.replace("\u2502", " ").split())
        for f in dataclasses.fields(config):
            flag = "--" + f.name.replace("_", "-")
            assert (flag in text or f.name.upper() in text) if f.name != "rules" else "--kitty-size" in text, flag
        assert (
            flat.count("(default: ") + flat.count("(required)") + flat.count("(repeatable)")
            >= len(dataclasses.fields(config)) - 1
        )


@pytest.mark.parametrize("name", ["champion", "champion_beliefs"])
def test_the_recipe_config_file_makes_a_valid_recipe(name):
    import yaml

    from train.config import from_mapping
    from train.recipe import Config

    config = from_mapping(Config, yaml.safe_load((CONFIGS / f"{name}.yaml").read_text()))
    assert set(config.shares) <= set(config.stages) and config.minutes == 60
    assert config.deadlines()["suits"] == pytest.approx(3600)
    for stage in config.running():
        config.stage(stage).prepare()


def test_dmc_learning_rate_falls_linearly_and_bf16_suit_shuffled_steps_learn(tmp_path):
    """``learning_rate_end``: the rate at each moment of a run's training time; a run in bf16 with the suits
    shuffled and a clip of its own trains and logs its rate."""
    config = dmc.Config(max_seconds=100, learning_rate=4e-4, learning_rate_end=4e-5)
    assert config.learning_rate_at(0) == pytest.approx(4e-4) and config.learning_rate_at(50) == pytest.approx(2.2e-4)
    assert config.learning_rate_at(1e6) == pytest.approx(4e-5)
    assert dmc.Config(decay_seconds=10, max_seconds=100, learning_rate_end=1e-4).learning_rate_at(5) == pytest.approx(2e-4)
    with pytest.raises(ValueError, match="learning_rate_end"):
        dmc.Config(learning_rate_end=1e-2)
    with pytest.raises(ValueError, match="max_grad_norm"):
        dmc.Config(max_grad_norm=0)
    folder = dmc.train(tiny_dmc(tmp_path, precision="bf16", augment_suits=True, max_grad_norm=5.0, learning_rate_end=1e-5,
                                decay_seconds=5.0))  # fmt: skip
    log = (folder / "train.log").read_text()
    assert "learning_rate" in log and "q_loss" in log


def test_r1_a_decision_shuffled_by_the_suits_is_the_relabelled_game_s_decision():
    """``smear_nets.SuitShuffle``: each row's observation and action relabelled by one order of the suits, as the engine
    would see the relabelled deal (``smear_env.symmetry``)."""
    import numpy as np

    from smear_env.symmetry import OBS_INDEX, SUIT_PERMUTATIONS, relabel_action
    from smear_nets import SuitShuffle

    game, obs, actions = Game(Rules(), 3), [], []
    while not game.game_over and len(obs) < 60:
        obs.append(observe(game, game.to_act))
        actions.append(game.legal_actions()[-1])
        game.step(actions[-1])
    shuffle = SuitShuffle(torch.device("cpu"))
    generator = torch.Generator().manual_seed(0)
    new_obs, new_actions = shuffle(torch.from_numpy(np.stack(obs)), torch.tensor(actions), generator)
    orders_seen = set()
    for i, (o, a) in enumerate(zip(obs, actions, strict=True)):
        matching = [k for k in range(24) if np.array_equal(new_obs[i].numpy(), o[OBS_INDEX[k]])]
        assert matching, "not a relabelling of the observation"
        assert int(new_actions[i]) in {relabel_action(a, SUIT_PERMUTATIONS[k]) for k in matching}
        orders_seen.update(matching)
    assert len(orders_seen) > 5  # the orders are drawn, not one


def test_trainer_flags_are_flat_and_read_after_the_config_file():
    """tyro's flags, flat: ``--kitty-size`` (0.2.0's ``--rules.kitty-size`` no longer), mixes as SPEC=WEIGHT,
    sizes as ``64,64`` or ``64 64``; a --config file's values stay for every flag not given."""
    from train.config import parse

    argv = ["--config", "dmc_quick", "--kitty-size", "2", "--target-score", "11", "--opponents", "self=0.8",
            "pimc=0.2", "--hidden", "64,64", "--no-augment-suits", "--seed", "5"]  # fmt: skip
    config, start = parse(dmc.Config, argv, "DMC", "python -m train.dmc")
    assert config.rules.kitty_size == 2 and config.rules.target_score == 11 and config.hidden == (64, 64)
    assert config.opponents == {"self": 0.8, "pimc": 0.2} and not config.augment_suits and config.seed == 5
    assert config.num_envs == 256 and config.run_name == "dmc_quick" and start.resume is None  # the file's
    assert parse(dmc.Config, ["--hidden", "32", "16"], "DMC", "p")[0].hidden == (32, 16)
