"""The table of win chances (train.chance_table) and DMC's ``target: chance`` built on it (R14, R15)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import load_agent
from agents.chances import Chances
from smear_env import Game, Rules, SmearVectorEnv, observe, seat_view
from smear_env.actions import bid_action
from smear_nets import NetworkSpec, build_network, load_checkpoint, save_checkpoint
from smear_nets.shipped import BELIEFS, NETWORKS
from train import dmc
from train.actors import ActorSettings, SelfPlay
from train.chance_table import hand_outcomes, main, solve
from train.tools import export

CHANCE = NETWORKS["chance"]


def outcomes(*rows: tuple[int, int, int, int]) -> np.ndarray:
    """The same outcomes (change 0, change 1, bidder's team, margin) for every dealer."""
    return np.array([(d, *row) for d in range(4) for row in rows], dtype=np.float64)


def test_r15_the_bidders_team_wins_when_both_reach_the_target():
    """Every hand moves both teams by 1 with team 0 bidding: whoever reaches 15 first wins, and from a tie
    both reach it in the same hand and the bidder's team (team 0) wins."""
    table = solve(outcomes((1, 1, 0, 0)), Rules())
    at = lambda a, b: table.team0(np.array([[a, b]]), np.array([0]))[0]  # noqa: E731
    assert at(14, 14) == 1.0 and at(0, 0) == 1.0 and at(-3, -3) == 1.0
    assert at(14, 13) == 1.0 and at(13, 14) == 0.0 and at(5, 9) == 0.0


def test_r14_a_set_bidder_moves_down_and_the_chances_are_a_fair_coin_when_the_hands_are():
    """Half the hands team 0 bids 2 and is set (-2) while team 1 takes 2, half the mirror image: from level
    scores each team's chance is one half; ahead is better than behind; every chance is in [0, 1]."""
    table = solve(outcomes((-2, 2, 0, -4), (2, -2, 1, 4)), Rules())
    level = table.team0(np.array([[0, 0], [7, 7], [-4, -4]]), np.array([0, 1, 2]))
    assert np.allclose(level, 0.5, atol=1e-6)
    ahead, behind = table.team0(np.array([[9, 3], [3, 9]]), np.array([0, 0]))
    assert ahead > 0.5 > behind and np.isclose(ahead + behind, 1.0, atol=1e-6)
    assert table.chance.min() >= 0 and table.chance.max() <= 1
    assert table.scale > 0


def test_thrown_in_hands_leave_the_chances_as_they_are():
    """R7: a thrown-in hand (bidder's team -1) changes no score and the same dealer deals again."""
    plain = solve(outcomes((-2, 2, 0, -4), (2, -2, 1, 4)), Rules())
    thrown = solve(outcomes((-2, 2, 0, -4), (2, -2, 1, 4), (0, 0, -1, 0), (0, 0, -1, 0)), Rules())
    assert np.allclose(plain.chance, thrown.chance, atol=1e-6)


def test_hand_outcomes_follow_r14():
    """Every hand of a real game: a scored hand moves the bidder's team by a made bid (2 or more) or by minus
    the bid (set); the dealers go round; the margin is the two changes' difference unless the hand ended a game."""
    rng = np.random.default_rng(0)
    act = lambda obs, mask: np.array([rng.choice(np.flatnonzero(m)) for m in mask])  # noqa: E731
    rows = hand_outcomes(act, Rules(), 300, seed=3, num_envs=8)
    assert rows.shape == (300, 5)
    dealer, c0, c1, team, margin = rows.T
    assert set(np.unique(dealer)) == {0, 1, 2, 3}
    scored = team >= 0
    bidder_change = np.where(team == 0, c0, c1)[scored]
    assert ((bidder_change >= 2) | np.isin(bidder_change, [-2, -3, -4])).all()
    assert np.isclose(margin[scored], (c0 - c1)[scored]).mean() > 0.9


def test_the_table_is_written_whole_and_refused_when_it_is_not_one(tmp_path, capsys):
    out = tmp_path / "chances.npz"
    assert main(["--out", str(out), "--hands", "2000", "--seed", "1"]) == 0
    table = Chances.load(out)
    assert table.chance.shape == (4, 30, 30) and table.target_score == 15 and 10 < table.scale < 100
    assert [p.name for p in tmp_path.iterdir()] == ["chances.npz"]
    with pytest.raises(SystemExit):  # never overwritten unless asked
        main(["--out", str(out), "--hands", "2000"])
    assert "already exists" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "few.npz"), "--hands", "10"])
    (tmp_path / "bad.npz").write_bytes(b"not a table")
    with pytest.raises(ValueError, match="not a table of win chances"):
        Chances.load(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="default rules"):
        solve(outcomes((1, 1, 0, 0)), Rules(win_only_on_made_bid=True))


def test_dmc_target_chance_returns_the_change_of_the_teams_chance(tmp_path):
    """target chance: every decision of a hand gets its team's change of chance times the table's scale
    (never more than the scale, not one constant); the config needs the table, and only that target takes one."""
    table_path = tmp_path / "chances.npz"
    solve(outcomes((-2, 2, 0, -4), (2, -2, 1, 4), (3, 1, 0, 2)), Rules()).save(table_path)
    table = Chances.load(table_path)
    spec = NetworkSpec("q", (16,))
    settings = ActorSettings(8, "chance", 0.1, {"self": 1.0}, 1, Rules().to_dict(), spec.to_dict(), "cpu", str(table_path))
    actor = SelfPlay(settings, seed=5)
    q = build_network(spec)
    returns = []
    with torch.no_grad():
        for _ in range(6):
            block = actor.block(q, steps=16)
            returns.append(block.returns)
    returns = np.concatenate(returns)
    assert len(returns) > 0 and np.isfinite(returns).all()
    assert np.abs(returns).max() <= table.scale + 1e-6  # a chance moves by at most 1
    assert np.unique(np.round(np.abs(returns), 4)).size > 1  # not one constant
    with pytest.raises(ValueError, match="target chance needs chances"):
        dmc.Config(target="chance")
    with pytest.raises(ValueError, match="chances is for target chance only"):
        dmc.Config(chances=str(table_path))
    config = tmp_path / "chance.yaml"
    config.write_text(f"runs_dir: {tmp_path}\nrun_name: chance\ntarget: chance\nchances: {table_path}\nnum_actors: 0\n"
                      "total_steps: 3000\nwarmup: 50\nbatch_size: 32\nnum_envs: 16\nhidden: [16]\neval_every: 1000000\n")  # fmt: skip
    assert dmc.main(["--config", str(config)]) == 0
    assert "q_loss" in (tmp_path / "chance" / "train.log").read_text()


def test_a_split_network_answers_each_decision_with_its_own_part(tmp_path):
    """train.tools.export --contracts: the joined q_split network gives the contracts network's values at the bid,
    trump and discard decisions and the play network's at the card play; DMC trains it on as one (learning the
    contracts only, it leaves the card play's body as it was); a network
    of another kind or size is refused by name."""
    spec, rules = NetworkSpec("q", (16,)), Rules()
    nets = {}
    for name, seed in (("play", 1), ("contracts", 2)):
        torch.manual_seed(seed)
        nets[name] = build_network(spec)
        save_checkpoint(tmp_path / f"{name}.pt", spec, rules, nets[name].state_dict())
    out = tmp_path / "split.pt"
    assert export.main([str(tmp_path / "play.pt"), str(out), "--contracts", str(tmp_path / "contracts.pt")]) == 0
    split = load_checkpoint(out)
    assert split.network.kind == "q_split"
    network = split.build()
    game, rows, phases = Game(rules, 4), [], []
    while not game.game_over:
        rows.append(observe(game, game.to_act))
        phases.append(seat_view(game, game.to_act).phase.name.lower())
        game.step(game.legal_actions()[-1])
    obs = torch.as_tensor(np.stack(rows))
    contract = torch.as_tensor(np.isin(phases, ["bid", "trump", "discard"]))
    assert 0 < int(contract.sum()) < len(obs)
    with torch.no_grad():
        both, play, contracts = network(obs), nets["play"](obs), nets["contracts"](obs)
        assert torch.equal(both[contract], contracts[contract]) and torch.equal(both[~contract], play[~contract])
        assert torch.equal(network(obs[contract]), contracts[contract]) and torch.equal(network(obs[~contract]), play[~contract])
    assert export.main([str(tmp_path / "play.pt"), str(tmp_path / "x.pt"), "--contracts", str(BELIEFS)]) == 1
    save_checkpoint(tmp_path / "wide.pt", NetworkSpec("q", (32,)), rules, build_network(NetworkSpec("q", (32,))).state_dict())
    assert export.main([str(tmp_path / "play.pt"), str(tmp_path / "x.pt"), "--contracts", str(tmp_path / "wide.pt")]) == 1
    assert not (tmp_path / "x.pt").exists()
    folder = dmc.train(dmc.Config(runs_dir=str(tmp_path), run_name="on", init=str(out), hidden=(16,), num_actors=0,
                                  total_steps=2000, warmup=50, batch_size=32, num_envs=16, eval_every=10**6,
                                  learn_phases=("bid", "trump", "discard")))  # fmt: skip
    trained = load_checkpoint(folder)
    assert trained.network.kind == "q_split"
    for name, weights in split.model.items():  # the contracts learnt, the card play never touched
        assert torch.equal(trained.model[name], weights) == name.startswith("play."), name


def test_the_shipped_chance_network_plays_the_cards_as_distilled_does():
    """``chance``: a q_split network whose card play is ``distilled``'s (the neural shipped when it was made),
    weight for weight, and whose contracts are its own (they differ somewhere); the table of its play ships beside it."""
    chance, neural = load_agent("neural:chance"), load_agent("neural:distilled")
    assert chance.name == "neural:chance" and load_checkpoint(CHANCE).network.kind == "q_split"
    play = {k.removeprefix("play."): v for k, v in chance.network.state_dict().items() if k.startswith("play.")}
    shipped = {k.removeprefix("body."): v for k, v in neural.network.state_dict().items()}
    assert play.keys() == shipped.keys() and all(torch.equal(play[k], shipped[k]) for k in play)
    contracts = {k.removeprefix("contracts."): v for k, v in chance.network.state_dict().items() if k.startswith("contracts.")}
    assert any(not torch.equal(contracts[k], shipped[k]) for k in contracts)
    table = Chances.load("win_chances")  # the shipped table of its play, by name wherever a table is asked for
    assert table.chance.shape == (4, 30, 30) and table.target_score == 15 and 10 < table.scale < 100
    assert 0.45 < table.chance[0, 15, 15] < 0.55 and table.chance[0, 29, 15] > 0.9  # 0-0 near even; 14-0 all but won
    with pytest.raises(ValueError, match="the shipped table is win_chances since 0.4.0 \\(chance is a network\\)"):
        Chances.load("chance")  # 0.3.0's name for the table, now the network's alone


def test_export_average_is_a_model_soup_of_networks_of_one_kind(tmp_path, capsys):
    """train.tools.export --average: every weight of the written network is the mean of the given networks'; the
    soup can be joined to contracts in the same command; a network of another kind or size is refused by name
    and nothing is written."""
    spec, rules = NetworkSpec("q", (16,)), Rules()
    paths, weights = [], []
    for seed in (1, 2, 3):
        torch.manual_seed(seed)
        weights.append(build_network(spec).state_dict())
        paths.append(str(tmp_path / f"n{seed}.pt"))
        save_checkpoint(paths[-1], spec, rules, weights[-1])
    out = tmp_path / "soup.pt"
    assert export.main([paths[0], str(out), "--average", *paths[1:]]) == 0
    soup = load_checkpoint(out)
    assert soup.network == spec and soup.model.keys() == weights[0].keys()
    for key, value in soup.model.items():
        assert torch.allclose(value, (weights[0][key] + weights[1][key] + weights[2][key]) / 3)
    joined = tmp_path / "joined.pt"
    assert export.main([paths[0], str(joined), "--average", paths[1], "--contracts", paths[2]]) == 0
    split = load_checkpoint(joined).model
    assert torch.allclose(split["play.0.weight"], (weights[0]["body.0.weight"] + weights[1]["body.0.weight"]) / 2)
    assert torch.equal(split["contracts.0.weight"], weights[2]["body.0.weight"])
    save_checkpoint(tmp_path / "wide.pt", NetworkSpec("q", (32,)), rules, build_network(NetworkSpec("q", (32,))).state_dict())
    assert export.main([paths[0], str(tmp_path / "x.pt"), "--average", str(tmp_path / "wide.pt")]) == 1
    assert "wide.pt" in capsys.readouterr().err
    assert export.main([paths[0], str(tmp_path / "x.pt"), "--average", str(BELIEFS)]) == 1
    assert "--average needs the same kind" in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()


def test_export_suits_records_how_the_network_is_played(tmp_path, capsys):
    """train.tools.export --suits K: the weights unchanged, ``suits`` in the checkpoint, which ``neural:OUT`` plays
    (a spec's suits= overrides it) and a later export keeps; a count outside 1 to 24 or a network that is not
    a Q-network is refused by name and nothing is written."""
    spec, rules = NetworkSpec("q", (16,)), Rules()
    save_checkpoint(tmp_path / "n.pt", spec, rules, build_network(spec).state_dict())
    out = tmp_path / "sym.pt"
    assert export.main([str(tmp_path / "n.pt"), str(out), "--suits", "4"]) == 0
    written = load_checkpoint(out)
    assert written.extra["suits"] == 4 and all(
        torch.equal(v, load_checkpoint(tmp_path / "n.pt").model[k]) for k, v in written.model.items()
    )
    assert load_agent(f"neural:{out}").suits == 4 and load_agent(f"neural:{out},suits=2").suits == 2
    assert export.main([str(out), str(tmp_path / "again.pt")]) == 0 and load_checkpoint(tmp_path / "again.pt").extra["suits"] == 4
    for bad, says in ((["--suits", "0"], "1 to 24"), (["--suits", "25"], "1 to 24")):
        assert export.main([str(tmp_path / "n.pt"), str(tmp_path / "x.pt"), *bad]) == 1
        assert says in capsys.readouterr().err
    assert export.main([str(BELIEFS), str(tmp_path / "x.pt"), "--suits", "4"]) == 1
    assert "q or q_split" in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()


def test_contract_regret_judges_the_card_play_too():
    """experiments/contract_regret.py --phases play: card-play decisions judged against the reference
    rollouts, a row of non-negative regrets for the network and each rollout count; an unknown phase is
    refused by name with the choices."""
    script = Path(__file__).parent.parent / "experiments" / "contract_regret.py"
    run = subprocess.run(
        [sys.executable, str(script), "--net", "chance", "--chances", "win_chances", "--phases", "play",
         "--positions", "6", "--reference", "8", "--deals", "4"],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    assert "6 decisions (play) of chance" in run.stdout
    row = next(line for line in run.stdout.splitlines() if line.startswith("PLAY"))
    regrets = [float(x) for x in row.split()[2:]]
    assert int(row.split()[1]) == 6 and len(regrets) == 3 and min(regrets) >= 0
    bad = subprocess.run([sys.executable, str(script), "--phases", "bet"], capture_output=True, text=True)
    assert bad.returncode == 2 and "invalid choice: 'bet'" in bad.stderr and "play" in bad.stderr


def test_r6_bid_two_values_the_opening_bid_of_2_against_the_networks_choice():
    """experiments/bid_two.py: the opening bids where 2 is open (R6: no bid yet), each legal bid valued on the
    same deals by both measures; a row for every choice the network made and every place it bid from, and
    the table's answers to each forced opening (pass, 2, 3, 4). Nothing to judge is refused by name."""
    script = Path(__file__).parent.parent / "experiments" / "bid_two.py"
    run = subprocess.run([sys.executable, str(script), "--positions", "6", "--deals", "8", "--seed", "2"],
                         capture_output=True, text=True, check=True, timeout=300)  # fmt: skip
    assert "6 opening bids of neural" in run.stdout
    rows = {line[:22].strip(): line[22:].split() for line in run.stdout.splitlines()}
    assert int(rows["all"][0]) == 6 and 0 <= float(rows["all"][1]) <= 1
    assert sum(int(v[0]) for k, v in rows.items() if k.startswith("the network:")) == 6
    assert sum(int(v[0]) for k, v in rows.items() if k.startswith("seat:")) == 6
    answers = [line.split() for line in run.stdout.splitlines() if line.startswith(("pass ", "bid "))]
    assert len(answers) == 4 and float(answers[3][-4]) == 1.0  # an opening 4 cannot be overbid (R6)
    bad = subprocess.run([sys.executable, str(script), "--positions", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--positions 0" in bad.stderr
    opens_two, neural = load_agent(f"{script}:OpensTwo"), load_agent("neural")  # the match's variant
    venv = SmearVectorEnv(64, seed=4, reward="margin")
    obs, info = venv.reset()
    swaps = []
    for _ in range(3):  # the opening bid, and the turns after it
        mask = info["action_mask"]
        mine, its = opens_two.act_batch(obs, mask), neural.act_batch(obs, mask)
        swapped = (its == bid_action(3)) & (mask[:, bid_action(2)] > 0)
        assert (mine[swapped] == bid_action(2)).all() and (mine[~swapped] == its[~swapped]).all()
        swaps.append(int(swapped.sum()))
        obs, _, _, _, info = venv.step(its)
    assert swaps[0] > 0  # the first seat opens 3 (R6: 2 is open to it)


def test_r6_r7_bid_two_heard_counts_what_each_bidder_heard_from_its_partner():
    """``bid_two.py --heard N``: N contracts of whole games, by the bidder's place and its partner's call before
    the trump. Every row is one the rules allow: a partner who spoke after the bidder passed (a higher bid would
    have won, R6) or never spoke (a 4 ends the bidding, R7); one who spoke before it called less than 4."""
    script = Path(__file__).parent.parent / "experiments" / "bid_two.py"
    run = subprocess.run([sys.executable, str(script), "--heard", "300", "--seed", "3"],
                         capture_output=True, text=True, check=True, timeout=300)  # fmt: skip
    assert "300 contracts of neural" in run.stdout
    rows = [
        line.rsplit(maxsplit=1) for line in run.stdout.splitlines() if line.startswith(("first ", "second ", "third ", "dealer "))
    ]
    assert rows and abs(sum(float(share) for _, share in rows) - 1) < 0.01
    for who, _ in rows:
        place, said = who.split(maxsplit=1)
        if place in ("first", "second"):  # the partner speaks after
            assert said.startswith(("pass", "none")), who
        else:  # the partner spoke before, and lower
            assert said in ("pass", "bid 2", "bid 3"), who
    bad = subprocess.run([sys.executable, str(script), "--heard", "-1"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--heard -1" in bad.stderr
