"""Search over learned models: the ``search`` agent, the model of the hidden cards it draws deals from
(``train.beliefs``), and the network distilled from it (``train.distill``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import load_agent
from agents.neural import DISTILLED, SHIPPED, NeuralAgent
from nets import load_checkpoint
from smear_env import Game, Phase, Rules, observe, seat_view
from train import beliefs, distill

FAST = "search:samples=3,seconds=10"  # every decision solves its 3 deals: the same choice each time


def test_search_plays_a_whole_game_legally_and_plays_its_best_score():
    """Its choice is the best of its scores; outside the card play the scores are the network's values."""
    agent, network = load_agent(FAST), NeuralAgent()
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
            "--sampler-draws", "20"]  # fmt: skip
    assert beliefs.main(args) == 0
    assert load_checkpoint(out).network.kind == "beliefs"
    report = json.loads(out.with_suffix(".json").read_text())
    assert report["positions"] == 40 and report["hidden_cards"] > 40 * 10
    assert 0 < report["log_loss_model"] < 5 and 0 < report["log_loss_uniform_sampler"] < 5
    assert 0 <= report["expected_calibration_error"] <= 1
    with pytest.raises(SystemExit):
        beliefs.main(args)  # never over a model that exists
    assert "--force" in capsys.readouterr().err


def test_distill_labels_positions_with_the_teachers_scores_and_fits_a_playable_network(tmp_path, capsys):
    out = tmp_path / "distill"
    args = ["--out", str(out), "--teacher", FAST, "--generate-minutes", "0.15", "--fit-minutes", "0.05", "--workers", "1",
            "--games", "8", "--batch-size", "64"]  # fmt: skip
    assert distill.main(args) == 0
    data = distill.load_positions(out / "positions")
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


def test_distilled_is_a_network_under_the_shipped_rules_that_plays_its_own_cards():
    distilled, shipped = load_agent("distilled"), NeuralAgent()
    assert distilled.batched and load_checkpoint(DISTILLED).rules == load_checkpoint(SHIPPED).rules
    differ = 0
    for seed in range(3):
        game = Game(Rules(), seed)
        while not game.game_over:
            seat = game.to_act
            obs, mask, view = observe(game, seat), game.action_mask(), seat_view(game, seat)
            action = distilled.act(obs, mask, view)
            assert action in game.legal_actions()
            differ += action != shipped.act(obs, mask, view)
            game.step(action)
    assert differ > 0  # it learnt something: some of its choices are not the shipped network's
