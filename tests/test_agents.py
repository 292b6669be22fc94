"""Agents behind one interface, spec loading, and the duplicate-format arena."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from agents import Agent, load_agent, registered
from agents.arena import fit_elo, pool_matches, run_match
from smear_apps.eval import main as eval_main
from smear_env import Game, Rules, check_records, observe, seat_view


def play_full_game(agents, seed=0, rules=None):
    game = Game(rules or Rules(), seed)
    for seat, agent in enumerate(agents):
        agent.seed([seed, seat])
    while not game.game_over:
        seat = game.to_act
        action = agents[seat].act(observe(game, seat), game.action_mask(), seat_view(game, seat))
        assert action in game.legal_actions()
        game.step(action)
    return game


@pytest.mark.parametrize("spec", ["random", "heuristic"])
@pytest.mark.parametrize("kitty_size", [0, 3])
def test_agents_play_only_legal_moves(spec, kitty_size):
    agent = load_agent(spec)
    for seed in range(4):
        play_full_game([agent] * 4, seed, Rules(kitty_size=kitty_size, stick_the_dealer=bool(seed % 2)))


def test_load_agent_errors_name_the_problem(tmp_path):
    with pytest.raises(ValueError, match="not a built-in agent"):
        load_agent("nonsense")
    with pytest.raises(ValueError, match="does not exist"):
        load_agent("missing.py:Agent")
    with pytest.raises(ValueError, match="bad option"):
        load_agent("pimc:depth=3")
    with pytest.raises(ValueError, match="needs a whole number"):
        load_agent("pimc:samples=many")
    with pytest.raises(ValueError, match="cannot import module"):
        load_agent("no_such_module_here:Agent")
    path = tmp_path / "mine.py"
    path.write_text(
        "from agents import Agent\nclass NotAgent:\n    pass\nclass Mine(Agent):\n    def act(self, o, m, v):\n        return int(v.legal_actions[0])\n"
    )
    with pytest.raises(ValueError, match="subclass of agents.Agent"):
        load_agent(f"{path}:NotAgent")
    mine = load_agent(f"{path}:Mine")
    assert isinstance(mine, Agent)
    play_full_game([mine, load_agent("random")] * 2)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("pimc:samples=0", "option samples needs a whole number from 1 to 100,000, got '0'"),
        ("pimc:seconds=nan", "option seconds needs a number above 0 and at most 3,600, got 'nan'"),
        ("search:draws=65", "option draws needs a whole number from 1 to 64"),
        ("search:mix=inf", "option mix needs a number from 0 to 1"),
        ("ismcts:rollouts=nan", "option rollouts needs a whole number from 1 to 1,000"),
        ("heuristic", None),
    ],
)
def test_a_number_out_of_its_range_is_refused_naming_the_range_before_anything_is_imported(spec, words, monkeypatch):
    import agents.registry

    monkeypatch.setattr(agents.registry, "_import", lambda *a: pytest.fail("imported the agent's module"))
    if words is None:
        assert agents.registry.parse_spec(spec)[1] == {}
        return
    with pytest.raises(ValueError, match=re.escape(words)):
        agents.registry.parse_spec(spec)


def test_the_constructors_check_the_registered_ranges():
    from agents.pimc import PIMCAgent
    from agents.registry import Bounds, check_options, register

    with pytest.raises(ValueError, match=re.escape("pimc: samples=0 must be from 1 to 100,000")):
        PIMCAgent(samples=0)
    with pytest.raises(ValueError, match=re.escape("pimc: seconds=0 must be above 0 and at most 3,600")):
        PIMCAgent(seconds=0)
    check_options("search", blend=0, mix=1.0, draws=64)  # both ends are allowed
    with pytest.raises(ValueError, match=re.escape("search: mix=nan must be from 0 to 1")):
        check_options("search", mix=float("nan"))
    with pytest.raises(ValueError, match="not among its options"):
        register("typo", "agents.random_agent:RandomAgent", options={"samples": int}, bounds={"sample": Bounds(1, 2)})
    assert "typo" not in {e.id for e in registered()}
    for entry in registered():  # every bound is on a numeric option
        assert all(entry.options[key] in (int, float) for key in entry.bounds), entry.id


def test_duplicate_match_pairs_deals_and_is_the_same_with_workers():
    one = run_match("heuristic", "random", 8, seed=3, keep_records=True)
    two = run_match("heuristic", "random", 8, seed=3, workers=2, keep_records=True)
    s1, s2 = one.summary(), two.summary()
    s1.pop("decisions_per_second"), s2.pop("decisions_per_second")
    assert s1 == s2
    assert one.records() == two.records()
    assert s1["games"] == 8 and s1["deal_sets"] == 4
    # The two games of a deal set see the same cards, hand by hand.
    records = one.records()
    first = [r for r in records if r["game_id"].endswith("-A")]
    second = [r for r in records if r["game_id"].endswith("-B")]
    by_hand = {(r["game_id"][:-2], r["hand_index"]): r for r in second}
    matched = [r for r in first if (r["game_id"][:-2], r["hand_index"]) in by_hand]
    assert matched and all(r["hands"] == by_hand[(r["game_id"][:-2], r["hand_index"])]["hands"] for r in matched)
    assert check_records(records) == len(records)


def test_heuristic_beats_random():
    summary = run_match("heuristic", "random", 40, seed=1).summary()
    low, high = summary["win_rate_ci95"]
    assert summary["win_rate"] > 0.9 and low > 0.7 and low <= summary["win_rate"] <= high


def test_fit_elo_orders_agents():
    games = [(0, 1, 1.0)] * 30 + [(0, 1, 0.0)] * 10 + [(1, 2, 1.0)] * 30 + [(1, 2, 0.0)] * 10
    ratings = fit_elo(["a", "b", "c"], games)
    assert ratings[0] > ratings[1] > ratings[2] and abs(ratings.mean() - 1500) < 1e-6


def test_eval_cli_match_json_records(tmp_path, capsys):
    out, rec = tmp_path / "m.json", tmp_path / "m.jsonl"
    assert (
        eval_main(
            [
                "heuristic",
                "random",
                "--games",
                "6",
                "--json",
                str(out),
                "--records",
                str(rec),
                "--no-progress",
                "--kitty-size",
                "2",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "3 deal sets" in text and "95% CI" in text
    summary = json.loads(out.read_text())
    for key in (
        "agents",
        "games",
        "deal_sets",
        "win_rate",
        "win_rate_ci95",
        "score_margin_per_game",
        "points_by_category",
        "decisions_per_second",
    ):
        assert key in summary
    assert summary["agents"] == ["heuristic", "random"] and summary["rules"]["kitty_size"] == 2
    assert check_records(rec) > 0


def test_eval_cli_league_writes_plot(tmp_path, capsys):
    plot = tmp_path / "league.png"
    assert eval_main(["--league", "random,heuristic,random", "--games", "4", "--plot", str(plot), "--no-progress"]) == 0
    assert "Ratings" in capsys.readouterr().out
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_eval_cli_rejects_bad_input(capsys):
    with pytest.raises(SystemExit):
        eval_main(["heuristic", "bogus", "--no-progress"])
    assert "not a built-in agent" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        eval_main(["heuristic", "random", "--games", "1"])
    assert "at least 2 games" in capsys.readouterr().err


def test_eval_cli_pools_matches_on_several_seeds(tmp_path, capsys):
    out = tmp_path / "pooled.json"
    assert eval_main(["heuristic", "random", "--games", "4,6", "--seed", "3,5", "--json", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert (
        "seed 3: 4 games" in text
        and "seed 5: 6 games" in text
        and "10 games in 5 deal sets" in text
        and "seeds 3, 5, pooled" in text
    )
    summary = json.loads(out.read_text())
    parts = [run_match("heuristic", "random", 4, seed=3), run_match("heuristic", "random", 6, seed=5)]
    outcomes = np.concatenate([part.outcomes() for part in parts])
    assert summary["seed"] == [3, 5] and [p["seed"] for p in summary["parts"]] == [3, 5]
    assert summary["win_rate"] == pytest.approx(outcomes.mean())
    assert summary["win_rate_ci95"] == pytest.approx(list(pool_matches(parts).win_rate_ci95()[1:]))
    assert summary["hands"] == sum(part.summary()["hands"] for part in parts)


def test_pooling_refuses_a_seed_twice_and_other_matches(capsys):
    with pytest.raises(SystemExit):
        eval_main(["heuristic", "random", "--games", "2", "--seed", "3,3", "--no-progress"])
    assert "each seed once" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        eval_main(["heuristic", "random", "--games", "2,4", "--seed", "3", "--no-progress"])
    assert "one for each seed" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        eval_main(["heuristic", "random", "--seed", "3,x", "--no-progress"])
    assert "--seed 3,x: give a whole number" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        eval_main(["heuristic", "random", "--seed", "3,-1", "--no-progress"])
    assert "0 or more" in capsys.readouterr().err
    a, b = run_match("heuristic", "random", 2, seed=1), run_match("random", "heuristic", 2, seed=2)
    with pytest.raises(ValueError, match="only the same agents under the same rules pool"):
        pool_matches([a, b])
    with pytest.raises(ValueError, match="seed 1 more than once"):
        pool_matches([a, pool_matches([a])])


def test_random_agent_is_seeded():
    agent = load_agent("random")
    mask = np.zeros(72, dtype=np.int8)
    mask[[0, 1, 2, 3]] = 1
    game = Game(Rules(), 0)
    view = seat_view(game, game.to_act)
    agent.seed(5)
    first = [agent.act(None, mask, view) for _ in range(20)]
    agent.seed(5)
    assert first == [agent.act(None, mask, view) for _ in range(20)]


def test_r16_truncated_games_are_counted_and_said(tmp_path, capsys):
    out = tmp_path / "m.json"
    # Random players rarely reach the target: with a hand limit of 3, most games are truncated.
    assert eval_main(["random", "random", "--games", "6", "--max-hands", "3", "--json", str(out), "--no-progress"]) == 0
    summary = json.loads(out.read_text())
    outcomes = run_match("random", "random", 6, rules=Rules(max_hands=3)).outcomes()
    assert summary["truncated_games"] == int((outcomes == 0.5).sum()) > 0
    assert summary["truncated_games_count_as"] == 0.5
    assert f"games truncated by the hand limit (R16): {summary['truncated_games']}, each counted as half a win" in (
        capsys.readouterr().out
    )


def test_league_draws_no_plot_unless_asked_and_labels_are_short(tmp_path, capsys, monkeypatch):
    from agents.arena import short_labels

    monkeypatch.chdir(tmp_path)
    assert eval_main(["--league", "random,heuristic", "--games", "2", "--no-progress"]) == 0
    assert not list(tmp_path.iterdir()) and "wrote" not in capsys.readouterr().out
    long = "neural:runs/a_rather_long_run_name/snapshots/step_000000123456.pt"
    labels = short_labels([long, "heuristic", long])
    assert all(len(label) <= 31 for label in labels) and labels[1] == "heuristic"
    assert labels[0] != labels[2] and labels[0].startswith("neural:…") and labels[0].endswith(".pt #1")


def test_eval_help_names_the_neural_specs(capsys):
    with pytest.raises(SystemExit):
        eval_main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "neural (the shipped network)" in text and "neural:PATH" in text


def test_result_files_are_readable_by_others(tmp_path):
    import os
    import stat

    out, rec, plot = tmp_path / "m.json", tmp_path / "m.jsonl", tmp_path / "league.png"
    old = os.umask(0o022)
    try:
        assert eval_main(["heuristic", "random", "--games", "2", "--json", str(out), "--records", str(rec), "--no-progress"]) == 0
        assert eval_main(["--league", "random,heuristic", "--games", "2", "--plot", str(plot), "--no-progress"]) == 0
    finally:
        os.umask(old)
    for path in (out, rec, plot):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


def _torch_threads() -> int:
    import torch

    return torch.get_num_threads()


def test_match_workers_share_the_cores_between_them():
    """K workers each run torch on their share of the cores, not K times the machine's threads."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from agents.arena.match import _share_cores

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=context, initializer=_share_cores, initargs=(1,)) as pool:
        assert [pool.submit(_torch_threads).result() for _ in range(2)] == [1, 1]


@pytest.mark.parametrize("old", ["dmc", "distilled:suits=4", "chance"])
def test_the_retired_network_ids_are_gone(old):
    """0.2.0 named three shipped networks as agents of their own; 0.3.0 read them with a warning; 0.4.0 has one
    network agent that names its weights (``neural:dmc``; CHANGELOG.md's table of old names)."""
    with pytest.raises(ValueError, match="not a built-in agent|cannot import module 'distilled'"):
        load_agent(old)
    assert old.partition(":")[0] not in {e.id for e in registered()}  # not offered any more, only accepted


def test_search_presets_set_every_option_and_a_key_changes_one():
    from agents.search import PRESETS

    agent = load_agent("search:preset=chance,play_rollouts=2,rollouts=2")
    assert agent.options == PRESETS["chance"] | {"play_rollouts": 2, "rollouts": 2}
    assert agent.network.path == load_agent("neural:chance").path and agent.rollouts.chances is not None
    assert load_agent("search").options == PRESETS["pimc"]
    with pytest.raises(ValueError, match="preset='fast': one of pimc, rollouts, chance"):
        load_agent("search:preset=fast")
