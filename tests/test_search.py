"""Search over learned models: the ``search`` agent, the model of the hidden cards it draws deals from
(``train.beliefs``), and the network distilled from it (``train.distill``)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import load_agent
from agents.chances import Chances
from agents.neural import NeuralAgent
from agents.rollouts import CONTRACT_PHASES, Rollouts, TrueDeal, deal_of
from agents.search import SearchAgent
from smear_env import NUM_ACTIONS, OBS_DIM, DealSampler, Game, Phase, Rules, SmearVectorEnv, observe, seat_view
from smear_env.actions import DISCARD_BASE, PLAY_BASE
from smear_env.cards import card_str
from smear_env.observer import OFFSETS
from smear_nets import NetworkSpec, build_network, load_checkpoint, widen
from smear_nets.device import resolve_device
from smear_nets.shipped import CHANCES as SHIPPED_CHANCES
from smear_nets.shipped import NETWORKS
from train import beliefs, distill, dmc
from train.chance_table import solve
from train.teacher import OracleTeacher, load_oracle, load_positions, teacher_loss

SHIPPED, V030, DISTILLED, CHANCE, DMC = (NETWORKS[name] for name in ("neural", "v0.3.0", "distilled", "chance", "dmc"))

FAST = "search:samples=3,seconds=10"  # every decision solves its 3 deals: the same choice each time


def test_search_plays_a_whole_game_legally_and_plays_its_best_score():
    """Its choice is the best of its scores; outside the card play the scores are the network's values."""
    agent, network = load_agent(FAST), load_agent("neural:dmc")  # its network by default
    agent.seed(0)
    game, judged, step = Game(Rules(), 3), {Phase.PLAY: 0, "other": 0}, 0
    while not game.game_over:
        seat = game.to_act
        obs, mask, view = observe(game, seat), game.action_mask(), seat_view(game, seat)
        legal = game.legal_actions()
        if len(legal) > 1 and sum(judged.values()) < 40:
            agent.seed(step)
            scores = agent.scores(obs, mask, view)
            assert sorted(scores) == sorted(legal)
            agent.seed(step)
            chosen = agent.act(obs, mask, view)
            assert scores[chosen] == pytest.approx(max(scores.values()))
            if view.phase == Phase.PLAY:
                judged[Phase.PLAY] += 1
            else:
                judged["other"] += 1
                q = network.values(obs[None])[0]
                assert scores == pytest.approx({a: float(q[a]) for a in legal})
                assert chosen == network.act(obs, mask, view)
        action = agent.act(obs, mask, view)
        assert action in legal
        game.step(action)
        step += 1
    assert judged[Phase.PLAY] > 5 and judged["other"] > 0


def test_search_refuses_bad_options():
    with pytest.raises(ValueError, match="blend"):
        load_agent("search:blend=-1")
    with pytest.raises(ValueError, match="samples"):
        load_agent("search:samples=0")


def test_beliefs_trains_and_measures_against_the_uniform_sampler(tmp_path, capsys):
    out = tmp_path / "beliefs.pt"
    args = ["--out", str(out), "--minutes", "0.05", "--games", "64", "--hidden", "32", "--held-out", "40",
            "--sampler-draws", "20", "--player", "neural:dmc"]  # fmt: skip
    with pytest.raises(SystemExit):
        beliefs.main([*args[:-1], "heuristic"])  # the games' player must be a network
    assert "a network is needed" in capsys.readouterr().err and not out.exists()
    assert beliefs.main(args) == 0
    assert load_checkpoint(out).network.kind == "beliefs"
    report = json.loads(out.with_suffix(".json").read_text())
    assert report["positions"] == 40 and report["hidden_cards"] > 40 * 10
    assert 0 < report["log_loss_model"] < 5 and 0 < report["log_loss_uniform_sampler"] < 5
    assert 0 <= report["expected_calibration_error"] <= 1 and report["player"] == "neural:dmc"
    with pytest.raises(SystemExit):
        beliefs.main(args)  # never over a model that exists
    assert "--force" in capsys.readouterr().err


def test_distill_labels_positions_with_the_teachers_scores_and_fits_a_playable_network(tmp_path, capsys):
    out = tmp_path / "distill"
    args = ["--out", str(out), "--teacher", FAST, "--generate-minutes", "0.15", "--fit-minutes", "0.05", "--workers", "1",
            "--games", "8", "--batch-size", "64"]  # fmt: skip
    assert distill.main(args) == 0
    data = load_positions([out / "positions"])
    judged = ~np.isnan(data["target"])
    assert len(data["obs"]) > 20 and (judged == data["mask"]).all()  # a value for every legal action, none for others
    assert (data["mask"].sum(axis=1) > 1).all() and (data["phase"] == int(Phase.PLAY)).any()
    report = json.loads((out / "distill.json").read_text())
    assert report["positions"] == len(data["obs"]) and report["steps"] > 0
    assert 0 <= report["student_agreement_play"] <= 1
    student = load_agent(f"neural:{out}/checkpoint.pt")
    game = Game(Rules(), 1)
    assert student.act(observe(game, game.to_act), game.action_mask(), seat_view(game, game.to_act)) in game.legal_actions()
    with pytest.raises(SystemExit):
        distill.main(args)  # never over a folder that exists
    assert "exists" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        distill.main(["--out", str(tmp_path / "other"), "--teacher", "heuristic"])
    assert "no scores()" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()
    with pytest.raises(SystemExit):
        distill.main(["--out", str(out), "--fit-only"])  # its checkpoint exists: not overwritten
    assert "move it away" in capsys.readouterr().err
    # A wider student fitted on this run's positions from other folders (a later round's fit): the
    # held-out positions come from the first folder only (the others may have trained the start).
    wide = tmp_path / "wide"
    assert distill.main(["--out", str(wide), "--fit-only", "--positions", str(out / "positions"), "--positions",
                         str(out / "positions"), "--init", "distilled", "--hidden", "300,260", "--fit-minutes", "0.05", "--batch-size", "64"]) == 0  # fmt: skip
    assert load_checkpoint(wide).network.hidden == (300, 260)
    wide_report = json.loads((wide / "distill.json").read_text())
    assert wide_report["positions"] == 2 * len(data["obs"]) and wide_report["held_out"] == int(0.05 * len(data["obs"]))
    for bad, says in (("128,128", "none narrower"), ("512", "must have 2 layers"), ("wide", "layer sizes")):
        with pytest.raises(SystemExit):
            distill.main(
                [
                    "--out",
                    str(tmp_path / "bad"),
                    "--fit-only",
                    "--positions",
                    str(out / "positions"),
                    "--init",
                    "distilled",
                    "--hidden",
                    bad,
                ]
            )
        assert says in capsys.readouterr().err
    with pytest.raises(SystemExit):
        distill.main(["--out", str(tmp_path / "bad"), "--fit-only", "--positions", str(tmp_path / "none")])
    assert "no such folder" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()
    # Self-play that keeps fitting the teacher's positions beside its Monte-Carlo loss.
    config = dmc.Config(runs_dir=str(tmp_path), run_name="kept", total_steps=2_000, num_envs=16, hidden=(16,), warmup=200,
                        batch_size=32, num_actors=0, eval_every=10**9, teacher_positions=str(out / "positions"))  # fmt: skip
    folder = dmc.train(config)
    log = (folder / "train.log").read_text()
    assert "teacher_loss" in log and "q_loss" in log
    # The positions' generator is saved with the run: a resumed run draws the batches it would have drawn.
    saved = load_checkpoint(folder / "checkpoint.pt").extra["teacher_rng"]
    device = resolve_device(config.device)  # the run's own (a CUDA generator's state where torch sees CUDA)
    taught = dmc.TeacherBatches(str(out / "positions"), device, seed=12345)
    taught.generator.set_state(saved)
    first = taught(64)
    taught.generator.set_state(saved)
    assert all(torch.equal(a, b) for a, b in zip(first, taught(64), strict=True))
    fresh = dmc.TeacherBatches(str(out / "positions"), device, seed=config.seed)
    assert not torch.equal(fresh(64)[1], first[1])  # the run drew from its generator: not back at its seed


def test_r1_distill_teaches_a_network_its_values_over_the_orders_of_the_suits(tmp_path, capsys):
    """The shipped recipe in small: ``chance`` labelled by ``neural:chance,suits=24`` (every legal action's value
    the mean over the 24 orders of the suits), stopped at ``--max-positions``; the student is a q_split network.
    A limit below one position a worker is refused before anything is made."""
    out = tmp_path / "sym"
    args = ["--out", str(out), "--init", "chance", "--teacher", "neural:chance,suits=24", "--label-rate", "1",
            "--max-positions", "40", "--generate-minutes", "1", "--fit-minutes", "0.05", "--workers", "2", "--games", "4",
            "--batch-size", "16"]  # fmt: skip
    assert distill.main(args) == 0
    data = load_positions([out / "positions"])
    assert len(data["obs"]) == 40
    teacher = load_agent("neural:chance,suits=24")
    values = teacher.values(data["obs"])
    assert np.allclose(np.where(data["mask"], values, 0), np.nan_to_num(data["target"]), atol=1e-4)
    assert load_checkpoint(out / "checkpoint.pt").network.kind == "q_split"
    with pytest.raises(SystemExit):
        distill.main([*args[:-12], "--max-positions", "1", "--workers", "2", "--out", str(tmp_path / "bad")])
    assert "--max-positions 1" in capsys.readouterr().err and not (tmp_path / "bad").exists()


def test_r13_r15_distill_endgame_teaches_only_the_hands_that_can_end_the_game(tmp_path, capsys):
    """``--endgame``: the teacher labels the decisions of hands where a team is within 4 points (R13) of the
    target (R15); elsewhere the student's own values are the labels, so its play there is held. The start
    may be a q_split network (the built-in ``chance``): only the body of the taught decisions moves."""
    rules = Rules()
    view = seat_view(Game(rules, 0), 1)
    assert distill.endgame(replace(view, scores=(3, 11)), rules) and not distill.endgame(replace(view, scores=(10, 10)), rules)
    student = NeuralAgent(CHANCE, device="cpu")
    made = distill.generate(tmp_path / "shard.npz", "search:net=chance,play_rollouts=2,mix=1,chances=win_chances", CHANCE,
                            seconds=6, seed=3, labelling=distill.Labelling(games=8, label_rate=1.0, own_rate=1.0))  # fmt: skip
    data = load_positions([tmp_path])
    assert made == len(data["obs"]) > 20
    scores = data["obs"][:, OFFSETS["scores"] : OFFSETS["scores"] + 2] * rules.target_score  # (mine, theirs) before the hand
    late = scores.max(axis=1) >= rules.target_score - 4 - 1e-6
    own = student.values(data["obs"])
    legal = data["mask"]
    same = np.isclose(np.where(legal, data["target"], 0), np.where(legal, own, 0), atol=1e-5).all(axis=1)
    assert (~late).any() and same[~late].all()  # the student's own values outside the endgame
    assert (~same[late & (data["phase"] == int(Phase.PLAY))]).any()  # the teacher's card play in it
    for bad, says in ((["--endgame", "2"], "in [0, 1]"), (["--hidden", "512,512"], "widens a q network only")):
        with pytest.raises(SystemExit):
            distill.main(["--out", str(tmp_path / "bad"), "--init", "chance", "--fit-only", "--positions", str(tmp_path), *bad])
        assert says in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


def contracts_data() -> tuple[torch.nn.Module, dict[str, np.ndarray]]:
    """A start network and labels whose card play is its own and whose contracts prefer its worst action."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    network = build_network(NetworkSpec("q", (32,)))
    n = 2000
    obs = rng.random((n, OBS_DIM), dtype=np.float32)
    mask = np.zeros((n, NUM_ACTIONS), dtype=bool)
    mask[:, :4] = True
    phase = np.where(np.arange(n) % 2 == 0, int(Phase.PLAY), int(Phase.TRUMP)).astype(np.int8)
    with torch.no_grad():
        target = network(torch.from_numpy(obs)).numpy().copy()  # the card play: the start's own values
    contract = phase == int(Phase.TRUMP)
    worst = target[contract, :4].argmin(axis=1)  # the contracts: the teacher prefers the start's worst action
    target[contract, :4] = np.eye(4, dtype=np.float32)[worst]
    target[~mask] = np.nan
    return network, {"obs": obs, "mask": mask, "target": target.astype(np.float32), "phase": phase}


def test_distill_keeps_a_student_that_learnt_the_contracts_when_the_card_play_was_already_the_teachers():
    """The kept student is the one with the lowest regret over all held-out decisions: a teacher whose
    card play is the start's own (a rollout teacher of the contracts) still teaches."""
    network, data = contracts_data()
    fitting = distill.Fitting(held_out=0.2, learning_rate=1e-3, batch_size=128, check_every=20)
    _, report = distill.fit(data, network, seconds=3, seed=0, fitting=fitting)
    assert report["start_regret_play"] == 0 and report["start_regret_other"] == 1
    assert report["kept_step"] > 0 and report["student_regret"] < report["start_regret"]
    assert report["student_regret_other"] < report["start_regret_other"]


def test_a_killed_fit_goes_on_from_its_saved_state_for_the_seconds_left(tmp_path):
    """The fit's state (network, optimizer, the weights kept, generators, seconds spent) is saved at every check;
    a fit started again on it goes on for the seconds left, and one whose seconds are spent only returns the kept."""
    state = tmp_path / "fit.pt"
    network, data = contracts_data()
    settings = dict(
        seed=0, fitting=distill.Fitting(held_out=0.2, learning_rate=1e-3, batch_size=128, check_every=20), state_path=state
    )
    _, first = distill.fit(data, network, seconds=1.5, **settings)
    assert state.is_file() and first["steps"] > 0
    spent = torch.load(state, weights_only=False)["seconds"]
    again, report = distill.fit(data, contracts_data()[0], seconds=spent / 2, **settings)  # nothing left to spend
    assert (report["steps"], report["kept_step"], report["student_regret"]) == (
        first["steps"],
        first["kept_step"],
        first["student_regret"],
    )
    assert report["start_regret"] == first["start_regret"]  # the start's measure is the first run's, not the new start's
    _, more = distill.fit(data, again, seconds=spent + 1.0, **settings)
    assert more["steps"] > first["steps"] and more["student_regret"] <= first["student_regret"]


def test_teacher_loss_is_least_where_the_values_are_the_teachers_and_ignores_illegal_actions():
    goal = torch.tensor([[0.3, -0.1, 0.25, 0.0], [1.0, 2.0, 0.0, 0.0]])
    legal = torch.tensor([[True, True, True, False], [True, True, False, False]])
    values = goal.clone().requires_grad_()
    teacher_loss(values, goal, legal, 0.05, 0.1).backward()
    assert values.grad is not None and values.grad.abs().max() < 1e-6  # the minimum: the teacher's own values
    other = goal.clone()
    other[~legal] = 99.0  # illegal actions' values change nothing
    assert torch.isclose(teacher_loss(other, goal, legal, 0.05, 0.1), teacher_loss(goal, goal, legal, 0.05, 0.1))
    worse = goal.clone()
    worse[0, 0] -= 0.2  # the teacher's best action valued below another
    assert teacher_loss(worse, goal, legal, 0.05, 0.1) > teacher_loss(goal, goal, legal, 0.05, 0.1)


def test_teacher_loss_without_the_policy_term_is_the_squared_error_whose_minimum_is_the_mean():
    """``policy_weight=0`` (the oracle's fit): the loss is the squared error alone, so over labels that differ
    from deal to deal its minimum is their mean, where a cross-entropy's would be their vote; ``mean_weight``
    weighs the error of a position's level apart from its ranking (1: the plain squared error)."""
    legal = torch.tensor([[True, True, False]] * 2)
    labels = torch.tensor([[1.0, 0.0, 0.0], [-3.0, 0.0, 0.0]])  # one position, two deals: action 0 best on one
    values = torch.zeros(2, 3)
    assert torch.isclose(teacher_loss(values, labels, legal, 0.05, 0.1, policy_weight=0), 0.1 * (labels**2).sum() / 4)
    values = torch.zeros(1, 3, requires_grad=True)
    optimizer = torch.optim.SGD([values], lr=0.5)
    for _ in range(200):
        optimizer.zero_grad()
        teacher_loss(values.expand(2, 3), labels, legal, 0.05, 1.0, policy_weight=0).backward()
        optimizer.step()
    assert torch.allclose(values[0, :2], labels[:, :2].mean(dim=0), atol=1e-4)  # the mean: action 0 worth -1, not best
    shifted = labels + 5.0  # every action's value moved alike: the ranking is the labels'
    plain = 0.1 * (((shifted - labels) * legal) ** 2).sum() / legal.sum()
    assert torch.isclose(teacher_loss(shifted, labels, legal, 0.05, 0.1, policy_weight=0), plain)  # mean_weight 1
    assert teacher_loss(shifted, labels, legal, 0.05, 0.1, policy_weight=0, mean_weight=0) < 1e-9


@pytest.mark.parametrize("chances", [None, "win_chances"])
def test_r8_r13_the_oracle_values_each_action_by_playing_the_hand_out_on_the_true_cards(chances):
    """``OracleTeacher``: each legal action's value is the network's own play of the hand from the position as
    it truly is: the same as a rollout of it dealt the true cards (``TrueDeal``), wherever that deal is the whole
    truth (all but another bidder's pick-up, which only it saw), by the margin (R13) or the win chance."""
    policy = NeuralAgent(SHIPPED, device="cpu")
    table = Chances.load(chances) if chances else None
    oracle, rollouts = OracleTeacher(policy, table), Rollouts(policy, 1, table)
    venv = SmearVectorEnv(8, seed=11, reward="margin")
    obs, info = venv.reset()
    rng, compared = np.random.default_rng(0), 0
    for _ in range(40):
        mask = info["action_mask"]
        games = np.flatnonzero(mask.sum(axis=1) > 1)
        if len(games):
            values = oracle.values(venv, games.tolist())
            assert (np.isnan(values) == ~mask[games].astype(bool)).all()
            for row, i in enumerate(games.tolist()):
                game = venv.game(i)
                view = seat_view(game, int(info["seat"][i]))
                if view.phase == Phase.PLAY and view.bidder != view.seat:
                    continue
                legal = np.flatnonzero(mask[i]).tolist()
                truth = rollouts.values(view, TrueDeal(game, view), legal, rng)  # type: ignore[arg-type]
                assert np.allclose([truth[a] for a in legal], values[row, legal], atol=1e-5)
                compared += 1
        obs, _, _, _, info = venv.step(policy.act_batch(obs, mask))
    assert compared > 30


def test_distill_from_the_oracle_labels_the_students_own_games_and_fits_the_squared_error(tmp_path, capsys):
    """``--teacher oracle``: every decision with a choice labelled, the student's own choices played (the odds of
    the hidden cards are those of its play), fitted with the squared error alone by default. A spec the oracle does
    not take, or ``--endgame`` with it, is refused before anything is made."""
    out = tmp_path / "oracle"
    args = ["--out", str(out), "--teacher", "oracle:margin", "--label-rate", "1", "--max-positions", "60",
            "--generate-minutes", "1", "--fit-minutes", "0.05", "--workers", "1", "--games", "8", "--batch-size", "16"]  # fmt: skip
    assert distill.main(args) == 0
    data = load_positions([out / "positions"])
    assert len(data["obs"]) == 60 and (~np.isnan(data["target"]) == data["mask"]).all()
    assert json.loads((out / "distill.json").read_text())["policy_weight"] == 0.0
    script = Path(__file__).parent.parent / "experiments" / "oracle_regret.py"
    screen = subprocess.run([sys.executable, str(script), "--positions", str(out / "positions"), "--held-out", "1",
                             "--nets", "neural", "neural:dmc"], capture_output=True, text=True, check=True, timeout=300)  # fmt: skip
    rows = {line.split()[0]: line.split()[1:] for line in screen.stdout.splitlines()[2:]}
    assert "60 positions" in screen.stdout and min(float(x) for x in rows["neural"][:3]) >= 0
    assert "[" in " ".join(rows["neural:dmc"]) and "[" not in " ".join(rows["neural"])  # the difference, by position
    bad = subprocess.run([sys.executable, str(script), "--positions", str(tmp_path / "none")], capture_output=True, text=True)
    assert bad.returncode == 2 and "no positions" in bad.stderr
    for bad, says in (
        (["--teacher", "oracle:deep"], "chances=FILE or margin"),
        (["--teacher", "oracle", "--endgame", "0.1"], "--endgame"),
    ):
        with pytest.raises(SystemExit):
            distill.main(["--out", str(tmp_path / "bad"), *bad])
        assert says in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()
    student = NeuralAgent(SHIPPED, device="cpu")
    assert isinstance(load_oracle("oracle", student), OracleTeacher)
    labelling = distill.Labelling(games=4, label_rate=1.0, limit=40)
    made = distill.generate(tmp_path / "shard.npz", "oracle", SHIPPED, seconds=60, seed=3, labelling=labelling)
    venv = SmearVectorEnv(4, seed=3, reward="margin")  # the same games, the student alone: the positions are these
    obs, info = venv.reset()
    seen: list[np.ndarray] = []
    while len(seen) < made:
        seen += list(obs[info["action_mask"].sum(axis=1) > 1])
        obs, _, _, _, info = venv.step(student.act_batch(obs, info["action_mask"]))
    labelled = np.load(tmp_path / "shard.npz")
    np.testing.assert_array_equal(labelled["obs"], np.stack(seen[:made]))
    best = np.nan_to_num(labelled["target"], nan=-1e9).argmax(axis=1)
    assert (best != student.act_batch(labelled["obs"], labelled["mask"])).any()  # the oracle would have played others


def test_widen_computes_the_same_values_and_its_copies_learn_apart():
    start = load_checkpoint(DISTILLED)
    network = start.build()
    wide, spec = widen(network, start.network, (400, 300), seed=1)
    assert spec.hidden == (400, 300) and spec.kind == "q"
    obs = []
    game = Game(Rules(), 5)
    while not game.game_over and len(obs) < 64:
        obs.append(observe(game, game.to_act))
        game.step(game.legal_actions()[0])
    x = torch.from_numpy(np.stack(obs)).float()
    assert torch.allclose(wide(x), network(x), atol=1e-4)
    first = wide.body[0].weight
    copy_of = {i: int(np.flatnonzero((first[i] == first[:256]).all(dim=1).numpy())[0]) for i in range(256, 400)}
    active = (wide.body[0](x) > 0).any(dim=0)  # units that a gradient reaches on these positions
    wide(x).pow(2).mean().backward()
    torch.optim.SGD(wide.parameters(), lr=0.1).step()
    moved = [not torch.equal(first[i], first[j]) for i, j in copy_of.items() if active[i]]
    assert len(moved) > 50 and all(moved)  # the copies are no longer copies
    with pytest.raises(ValueError, match="none narrower"):
        widen(network, start.network, (128, 256))
    with pytest.raises(ValueError, match="cannot be widened"):
        widen(build_network(NetworkSpec("actor_critic", (8,))), NetworkSpec("actor_critic", (8,)), (16,))


def test_the_v030_network_is_a_student_of_chance_over_the_orders_of_the_suits():
    """``v0.3.0`` (0.3.0's ``neural``) is a ``q_split`` network of ``chance``'s sizes and rules, taught
    ``chance:suits=24`` (its values averaged over every order of the suits), played alone; the network it replaced
    plays on as ``distilled``; each ships with how it was made beside it."""
    shipped, chance = load_checkpoint(V030), load_checkpoint(CHANCE)
    assert shipped.network == chance.network and shipped.rules == chance.rules and "suits" not in shipped.extra
    assert (
        any(not torch.equal(shipped.model[k], chance.model[k]) for k in chance.model)
        and shipped.model.keys() == chance.model.keys()
    )
    assert NeuralAgent().suits == 1 and load_agent("neural:distilled").path == DISTILLED
    for path in (V030, DISTILLED, CHANCE):
        assert json.loads(path.with_suffix(".json").read_text())["commands"]  # how it was made, beside it
    assert any('"neural:chance,suits=24"' in c for c in json.loads(V030.with_suffix(".json").read_text())["commands"])


def test_the_distilled_network_plays_other_cards_than_dmc():
    distilled, first = load_agent("neural:distilled"), load_agent("neural:dmc")
    assert distilled.batched and first.batched and load_checkpoint(DMC).rules == load_checkpoint(DISTILLED).rules
    differ = 0
    for seed in range(3):
        game = Game(Rules(), seed)
        while not game.game_over:
            seat = game.to_act
            obs, mask, view = observe(game, seat), game.action_mask(), seat_view(game, seat)
            action = distilled.act(obs, mask, view)
            assert action in game.legal_actions()
            differ += action != first.act(obs, mask, view)
            game.step(action)
    assert differ > 0  # it learnt something: some of its choices are not the shipped network's


def decisions(rules: Rules, seed: int, count: int, phases=CONTRACT_PHASES):
    """(game, view) at the first ``count`` decisions with a choice in ``phases`` of games played by ``random``."""
    rng, found = np.random.default_rng(seed), []
    game = Game(rules, seed)
    while len(found) < count:
        if game.game_over:
            game = Game(rules, int(rng.integers(1 << 30)))
        view = seat_view(game, game.to_act)
        if view.phase in phases and len(view.legal_actions) > 1:
            found.append((game.copy(), view))
        game.step(int(rng.choice(game.legal_actions())))
    return found


@pytest.mark.parametrize("kitty_size", [0, 1, 2, 3])
def test_rollouts_replay_the_hand_so_far_to_exactly_the_seats_position(kitty_size):
    """A sampled deal of a decision (a contract or a card), dealt on the batched engine and the hand's
    actions so far replayed, is the seat's position: the same observation and legal actions, the
    seat's own cards where they were, the sampled hidden cards where the sampler put them (another
    bidder's discards included)."""
    rules = Rules(kitty_size=kitty_size)
    rng = np.random.default_rng(kitty_size)
    venv = SmearVectorEnv(1, seed=0, rules=rules)
    venv.reset()
    phases = set()
    for game, view in decisions(rules, kitty_size, 120, (*CONTRACT_PHASES, Phase.PLAY)):
        places = DealSampler(view).deal(rng)
        deck, history = deal_of(view, places, rng)
        obs, info = venv.deal_hands(np.array([deck]), view.dealer, view.scores)
        for action in history:
            obs, _, _, _, info = venv.step(np.array([action]))
        np.testing.assert_array_equal(obs[0], observe(game, view.seat))
        np.testing.assert_array_equal(info["action_mask"][0], game.action_mask())
        replayed = seat_view(venv.game(0), view.seat)
        assert replayed.hand == view.hand and replayed.bids == view.bids and replayed.discards == view.discards
        others = [s for s in range(4) if s != view.seat]
        assert [sorted(venv.game(0).holding[s]) for s in others] == [sorted(p) for p in places[:3]]
        if view.phase == Phase.PLAY and view.bidder != view.seat:
            assert sorted(seat_view(venv.game(0), view.bidder).discards or ()) == sorted(card_str(c) for c in places[3])
        phases.add(view.phase)
    assert phases == ({Phase.BID, Phase.TRUMP, Phase.PLAY} if kitty_size == 0 else {*CONTRACT_PHASES, Phase.PLAY})


@pytest.mark.parametrize("valued_by", ["margin", "chance"])
def test_rollout_values_are_the_hands_the_network_plays_out_in_the_single_engine(valued_by, tmp_path):
    """Each action's value (a contract's or a card's) is the mean hand margin (R13, R14) for the acting
    team over the deals, every seat played by the network from its own observation: here recomputed
    deal by deal on the reference engine. With a table of win chances, the mean change the hand makes
    to the team's chance of winning (R15: a game won or lost in the hand is 1 or 0), times its scale."""
    policy = NeuralAgent(SHIPPED, device="cpu")
    chances = None
    if valued_by == "chance":
        rows = np.array([(d, *o) for d in range(4) for o in ((-2, 2, 0, -4), (2, -2, 1, 4), (3, 1, 0, 2))], dtype=float)
        chances = solve(rows, policy.rules)
    rollouts = Rollouts(policy, deals=3, chances=chances)
    positions = decisions(policy.rules, 11, 8) + decisions(policy.rules, 12, 8, (Phase.PLAY,))
    assert any(view.bidder != view.seat for _, view in positions[8:])  # another bidder's discards are sampled
    for _game, view in positions:
        sampler, legal = DealSampler(view), list(view.legal_actions)
        values = rollouts.values(view, sampler, legal, np.random.default_rng(5))
        assert sorted(values) == legal
        deals = [deal_of(view, sampler.deal(rng), rng) for rng in [np.random.default_rng(5)] for _ in range(3)]
        for action in legal:
            margins = []
            for deck, history in deals:
                played = Game.at_hand(policy.rules, view.dealer, [deck[6 * s : 6 * s + 6] for s in range(4)], deck[24:],
                                      view.scores, rng=0)  # fmt: skip
                for a in [*history, action]:
                    played.step(a)
                while not played.records:
                    played.step(policy.act(observe(played, played.to_act), played.action_mask(), None))
                if chances is None:
                    change = [played.scores[t] - view.scores[t] for t in (0, 1)]
                    margins.append(change[view.team] - change[1 - view.team])
                    continue
                if played.winner is not None:
                    after = float(played.winner == 0)
                else:
                    scored = list(played.scores) != list(view.scores)  # thrown in (R7): the same dealer deals again
                    dealer = (view.dealer + 1) % 4 if scored else view.dealer
                    after = chances.team0(np.array([played.scores]), np.array([dealer]))[0]
                change0 = chances.scale * (after - chances.team0(np.array([view.scores]), np.array([view.dealer]))[0])
                margins.append(change0 if view.team == 0 else -change0)
            assert values[action] == pytest.approx(np.mean(margins))


def test_search_with_rollouts_values_trump_and_discards_by_them_and_plays_the_best():
    """With ``rollouts`` a trump or a discard is the blend of the rollout values and the network's;
    the bids stay the network's."""
    agent = load_agent("search:rollouts=4,blend=0.5")
    network = load_agent("neural:dmc")
    differs, phases = 0, set()
    for game, view in decisions(network.rules, 2, 24):
        obs, mask = observe(game, view.seat), game.action_mask()
        agent.seed(1)
        scores = agent.scores(obs, mask, view)
        q = network.values(obs[None])[0]
        if view.phase == Phase.BID:
            expected = {a: float(q[a]) for a in view.legal_actions}
        else:
            rollout = Rollouts(network, 4).values(
                view, agent._sampler(view, obs), list(view.legal_actions), np.random.default_rng(1)
            )
            expected = {a: (rollout[a] + 0.5 * float(q[a])) / 1.5 for a in view.legal_actions}
        # abs: the search's network is on the CPU, dmc on whatever auto picked (a GPU's sums differ in the 8th digit)
        assert scores == pytest.approx(expected, abs=1e-5)
        agent.seed(1)
        chosen = agent.act(obs, mask, view)
        assert scores[chosen] == pytest.approx(max(scores.values()))
        if view.phase != Phase.BID:
            differs += scores != pytest.approx({a: float(q[a]) for a in view.legal_actions})
        phases.add(view.phase)
    assert differs > 0 and phases == set(CONTRACT_PHASES)  # the rollouts' values are not the network's
    with pytest.raises(ValueError, match="rollouts"):
        load_agent("search:rollouts=-1")


def test_search_with_play_rollouts_mixes_them_into_a_cards_search_value():
    """With ``play_rollouts`` a card's search value is ``(1 - mix)`` times the PIMC value plus ``mix``
    times the rollouts' (drawn after PIMC's deals from the same generator); at ``mix=1`` no deal is
    solved, at ``mix=0`` the rollouts are off."""
    network = load_agent("neural:dmc")
    plain, mixed, rolled = (
        load_agent(f"{FAST},{extra}") for extra in ("mix=0,play_rollouts=4", "play_rollouts=4", "play_rollouts=4,mix=1")
    )
    assert plain.play_rollouts is None and plain.mix == 0
    differs = 0
    for game, view in decisions(network.rules, 4, 6, (Phase.PLAY,)):
        obs, mask, legal = observe(game, view.seat), game.action_mask(), list(view.legal_actions)
        values = network.values(obs[None])[0]
        q = {a: float(values[a]) for a in legal}
        for agent in (plain, mixed, rolled):
            agent.seed(3)
        pimc = {a: 1.5 * s - 0.5 * q[a] for a, s in plain.scores(obs, mask, view).items()}  # undo the blend (blend=0.5)
        after_pimc = Rollouts(network, 4).values(view, plain._sampler(view, obs), legal, plain.rng)
        assert mixed.scores(obs, mask, view) == pytest.approx(
            {a: (0.5 * pimc[a] + 0.5 * after_pimc[a] + 0.5 * q[a]) / 1.5 for a in legal}
        )
        solved = rolled.deals_solved
        alone = Rollouts(network, 4).values(view, rolled._sampler(view, obs), legal, np.random.default_rng(3))
        assert rolled.scores(obs, mask, view) == pytest.approx({a: (alone[a] + 0.5 * q[a]) / 1.5 for a in legal})
        assert rolled.deals_solved == solved
        differs += alone != pytest.approx(pimc)
    assert differs > 0
    for bad, allowed in (("play_rollouts=-1", "from 0 to 100,000"), ("mix=1.5", "from 0 to 1"), ("mix=-0.1", "from 0 to 1")):
        with pytest.raises(ValueError, match=allowed):
            load_agent(f"search:{bad}")


def test_search_rollouts_value_hands_by_the_win_chance_with_a_table(tmp_path):
    """``chances=FILE``: the rollouts (trump, discards and cards) read the table (``chance``: the shipped one);
    without rollouts it is refused."""
    rows = np.array([(d, *o) for d in range(4) for o in ((-2, 2, 0, -4), (2, -2, 1, 4))], dtype=float)
    solve(rows, Rules()).save(tmp_path / "c.npz")
    agent = load_agent(f"search:rollouts=2,play_rollouts=2,mix=1,chances={tmp_path / 'c.npz'}")
    assert agent.rollouts.chances is not None and agent.play_rollouts.chances is not None
    assert load_agent("search:rollouts=2").rollouts.chances is None
    agent = load_agent("search:net=chance,rollouts=2,chances=win_chances")  # the shipped network and its table, by name
    assert agent.network.path == CHANCE and np.array_equal(agent.rollouts.chances.chance, Chances.load(SHIPPED_CHANCES).chance)
    with pytest.raises(ValueError, match="give rollouts=R or play_rollouts=P"):
        load_agent(f"search:chances={tmp_path / 'c.npz'}")
    with pytest.raises(ValueError, match="not a table of win chances"):
        load_agent(f"search:rollouts=2,chances={tmp_path / 'missing.npz'}")


def test_rollouts_infer_weighs_each_deal_by_the_networks_odds_of_the_play_seen():
    """``infer=T``: a deal's log-likelihood is the sum, over the other seats' bids, trump and cards
    of the hand so far, of the network's log-softmax (values over ``T``) at the action made, here
    recomputed in the single engine from the observations of the game as it was played (the
    seat is the bidder, so the true deal is known to it but for the others' cards); the deals
    kept are as many as asked, each replays to the seat's position, and are likelier than those drawn."""
    network = NeuralAgent(SHIPPED)
    temperature = 0.25
    rollouts = Rollouts(network, deals=8, infer=temperature, draws=4)
    checked = 0
    for seed in range(40):
        if checked == 8:
            break
        game, seen = Game(network.rules, seed), []
        while not (game.phase == Phase.PLAY and game.bidder == game.to_act and len(game.tricks) >= 2):
            if game.phase == Phase.BID and not game.bids:
                seen = []  # a new hand
            seat, obs, mask = game.to_act, observe(game, game.to_act), game.action_mask()
            action = network.act(obs, mask, seat_view(game, seat))
            seen.append((seat, obs, mask, action))
            game.step(action)
            if game.game_over:
                break
        if game.game_over:
            continue
        view = seat_view(game, game.to_act)
        expected = 0.0
        for seat, obs, mask, action in seen:
            if seat != view.seat and not DISCARD_BASE <= action < PLAY_BASE:
                logits = np.where(mask.astype(bool), network.values(obs[None])[0] / temperature, -np.inf)
                expected += logits[action] - np.log(np.exp(logits - logits.max()).sum()) - logits.max()
        others = [s for s in range(4) if s != view.seat]
        places = [*(list(game.holding[s]) for s in others), [], [c for c in game.kitty if c not in game.picked_up]]
        deck, history = deal_of(view, places, np.random.default_rng(0))
        truth = rollouts.log_likelihood(view, np.array([deck]), np.array([history]))
        assert truth[0] == pytest.approx(expected, abs=1e-4)
        rng = np.random.default_rng(seed)
        decks, histories = rollouts.deals_for(view, DealSampler(view), rng)
        assert decks.shape == (8, 32) and len(histories) == 8
        drawn = np.array([deal_of(view, DealSampler(view).deal(rng), rng) for _ in range(32)], dtype=object)
        drawn_ll = rollouts.log_likelihood(view, np.array(list(drawn[:, 0])), np.array(list(drawn[:, 1])))
        assert rollouts.log_likelihood(view, decks, histories).mean() > drawn_ll.mean()
        checked += 1
    assert checked == 8
    with pytest.raises(ValueError, match="infer=-1.0 must be 0"):
        Rollouts(network, deals=8, infer=-1.0)
    with pytest.raises(ValueError, match="give rollouts=R or play_rollouts=P"):
        load_agent("search:infer=0.25")
    assert load_agent("search:rollouts=2,infer=0.5,draws=3").rollouts.draws == 3


@pytest.mark.parametrize("know", ["partner", "opponents"])
def test_r11_the_oracle_search_told_some_hands_deals_them_true_and_the_rest_consistently(know):
    """experiments/search_oracle.py ``--know``: the seats told hold their true cards in every deal; the other
    hidden cards are drawn by the search's model given those, still consistent with the view (a revealed
    void, R11, keeps a suit out of a hand)."""
    import importlib.util

    path = Path(__file__).parent.parent / "experiments" / "search_oracle.py"
    spec = importlib.util.spec_from_file_location("search_oracle", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    search = module.OracleSearch.__new__(module.OracleSearch)
    search.__dict__.update(load_agent("search:net=neural,rollouts=2").__dict__)
    search.know = know
    rng, checked = np.random.default_rng(1), 0
    for g in range(12):
        game = Game(Rules(), g)
        for _ in range(int(rng.integers(0, 30))):
            if not game.game_over:
                game.step(int(rng.choice(np.flatnonzero(game.action_mask()))))
        if game.game_over:
            continue
        seat = game.to_act
        view = seat_view(game, seat)
        search.game = game
        sampler = search._sampler(view, observe(game, seat))
        others = [s for s in range(4) if s != seat]
        for _ in range(3):
            places = sampler.deal(rng)
            for s in others:
                told = (s - seat) % 4 in module.KNOW[know]
                assert not told or sorted(places[others.index(s)]) == sorted(game.holding[s])
                assert not {card_str(c)[-1] for c in places[others.index(s)]} & set(view.voids[s])
            checked += 1
        # ``--when``: told at the contract decisions or in the card play only; elsewhere the model's own deals.
        search.when = "contract" if view.phase == Phase.PLAY else "play"
        untold = search._sampler(view, observe(game, seat)).deal(np.random.default_rng(g))
        plain = SearchAgent._sampler(search, view, observe(game, seat)).deal(np.random.default_rng(g))
        assert [sorted(h) for h in untold] == [sorted(h) for h in plain]
        search.when = "all"
    assert checked > 20
