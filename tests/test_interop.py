"""Smear in OpenSpiel and RLCard (``smear_env.openspiel_game``, ``smear_env.rlcard_env``, ``agents.interop``):
each framework's own checks pass, a game through either equals the same game in ``smear_v0`` record for record,
and their algorithms and agents play it, and the kit's arena plays theirs."""

from __future__ import annotations

import numpy as np
import pytest

from smear_env import Game, Rules, check_records, observe, parse_card, seat_view
from smear_env import env as smear_v0
from smear_env.actions import PASS

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra (make test installs it)")
rlcard = pytest.importorskip("rlcard", reason="the rlcard extra (make test installs it)")

import smear_env.openspiel_game  # noqa: E402, F401
import smear_env.rlcard_env  # noqa: E402, F401

pytestmark = pytest.mark.xdist_group("interop")

SETTINGS = [
    {},
    {"kitty_size": 0},
    {"kitty_size": 1},
    {"kitty_size": 2},
    {"stick_the_dealer": True},
    {"high_low_in_play": True},
    {"win_only_on_made_bid": True},
    {"defender_cap": 7},
    {"max_hands": 3},
    {"one_hand": True},
]
"""Every rule setting the kit has, one at a time (a short target keeps the quadratic serialisation check quick)."""


def smear_v0_game(seed: int, rules: Rules, episode: str = "game") -> tuple[list[int], list[dict]]:
    """An episode of ``smear_v0`` with random legal moves: its actions and its hand records."""
    env = smear_v0(episode=episode, reward="game" if episode == "game" else "margin", **rules.to_dict())
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        env.step(action)
    return actions, env.unwrapped.game.records


# ---------------------------------------------------------------------- OpenSpiel


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "default")
def test_openspiel_random_sim_test_with_serialisation_under_every_rule_setting(setting):
    params = {"target_score": 5, **setting}
    game = pyspiel.load_game("smear", params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    assert game.get_type().short_name == "smear" and game.num_players() == 4 and game.num_distinct_actions() == 72


def test_openspiel_game_parameters_are_the_rule_settings_and_bad_ones_are_refused():
    game = pyspiel.load_game("smear(kitty_size=2,stick_the_dealer=true)")
    assert game.rules == Rules(kitty_size=2, stick_the_dealer=True)
    with pytest.raises(Exception, match="kitty_size"):
        pyspiel.load_game("smear(kitty_size=7)")


@pytest.mark.parametrize("rules", [Rules(), Rules(kitty_size=1, high_low_in_play=True)], ids=["default", "kitty1-highlow"])
def test_r1_r16_a_game_through_openspiel_equals_smear_v0_record_for_record(rules):
    """The deals of smear_v0's records as OpenSpiel's chance outcomes, then its moves: the same records."""
    actions, records = smear_v0_game(seed=31, rules=rules)
    values = {**rules.to_dict(), "defender_cap": -1 if rules.defender_cap is None else rules.defender_cap}
    state = pyspiel.load_game("smear", values).new_initial_state()
    moves = iter(actions)
    hand = 0
    while not state.is_terminal():
        if state.is_chance_node():
            record = records[hand]
            if state.kit is None and state.first_dealer is None:
                state.apply_action(record["dealer"])
                continue
            for card in [c for h in record["hands"] for c in h] + record["kitty"]:
                assert state.is_chance_node()
                state.apply_action(parse_card(card))
            hand += 1
        else:
            action = next(moves)
            assert action in state.legal_actions()
            state.apply_action(action)
    assert next(moves, None) is None
    played = state.records
    assert [{k: v for k, v in r.items() if k != "game_id"} for r in played] == [
        {k: v for k, v in r.items() if k != "game_id"} for r in records
    ]
    assert check_records(played) == len(records)
    winner = records[-1]["winner"]
    assert state.returns() == ([0.0] * 4 if winner is None else [1.0 if s % 2 == winner else -1.0 for s in range(4)])


def test_openspiel_information_state_hides_the_other_hands_and_is_perfect_recall():
    game = pyspiel.load_game("smear(target_score=5)")
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    while state.is_chance_node():
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    kit = state.kit
    for seat in range(4):
        text = state.information_state_string(seat)
        others = {c for s in range(4) if s != seat for c in kit.dealt[s]} | set(kit.kitty)
        from smear_env import card_str

        assert all(card_str(c) not in text.split("dealt")[1].split(";")[0] for c in others)
        assert len(state.observation_tensor(seat)) == 427 == len(state.information_state_tensor(seat))
    before = state.information_state_string(0)
    state.apply_action(state.legal_actions()[0])
    assert state.information_state_string(0).startswith(before.rsplit("; to act", 1)[0].split("bids")[0])


def test_openspiel_resampler_draws_worlds_the_seat_cannot_tell_apart():
    game = pyspiel.load_game("smear(target_score=5)")
    state = game.new_initial_state()
    rng = np.random.default_rng(4)
    while state.is_chance_node() or len(state.history()) < 60:
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    seat = state.current_player()
    draws = iter(np.random.default_rng(5).random(100))
    worlds = [state.resample_from_infostate(seat, lambda: next(draws)) for _ in range(8)]
    for world in worlds:
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert world.legal_actions() == state.legal_actions()
    assert len({str(w.kit.holding) for w in worlds}) > 1  # the hidden cards differ between worlds


def test_openspiel_resampled_worlds_of_a_one_hand_game_end_with_the_hand():
    """IS-MCTS searches ``smear(one_hand=true)`` through resampled worlds: each must still end with the hand (a
    world that played on to 15 made every rollout a whole game, ~50x the work), and a clone shares the finished
    hands' records instead of copying them."""
    game = pyspiel.load_game("smear(one_hand=true)")
    state = game.new_initial_state()
    rng = np.random.default_rng(6)
    while state.is_chance_node() or len(state.history()) < 40:
        state.apply_action(
            int(rng.choice([a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()))
        )
    world = state.resample_from_infostate(state.current_player(), lambda: 0.25)
    while not world.is_terminal():
        assert not world.is_chance_node()  # no second deal: the hand is the whole game
        world.apply_action(int(rng.choice(world.legal_actions())))
    assert len(world.records) == 1 and world.clone().records[0] is world.records[0]


def test_openspiel_ismcts_bot_plays_whole_games_and_evaluate_bots_plays_kit_agents():
    from open_spiel.python.algorithms import evaluate_bots

    from agents.interop import ismcts_bot, kit_bot

    game = pyspiel.load_game("smear(target_score=4)")
    searcher = ismcts_bot(game, simulations=8, seed=1)
    bots = [searcher, kit_bot("heuristic"), kit_bot("random", seed=2), kit_bot("heuristic")]
    for seed in range(2):
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(seed))
        assert state.is_terminal() and sorted(returns) in ([-1.0, -1.0, 1.0, 1.0], [0.0] * 4)
        assert check_records(state.records) == len(state.records) > 0


def test_openspiel_rl_environment_trains_dqn_for_a_short_run():
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import dqn

    sampler = rl_environment.ChanceEventSampler(seed=0)
    env = rl_environment.Environment(pyspiel.load_game("smear(one_hand=true)"), chance_event_sampler=sampler)
    size = env.observation_spec()["info_state"][0]
    learner = dqn.DQN(0, size, env.action_spec()["num_actions"], hidden_layers_sizes=[32], replay_buffer_capacity=2000,
                      batch_size=16, min_buffer_size_to_learn=32, learn_every=4)  # fmt: skip
    others = [None] + [kit_bot_agent(seat) for seat in range(1, 4)]
    learnt = 0
    for _ in range(12):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            if player == 0:
                output = learner.step(time_step)
                action = output.action
            else:
                action = others[player](time_step)
            time_step = env.step([action])
        learner.step(time_step)
        learnt += 1
    assert learnt == 12 and learner.loss is not None and np.isfinite(float(learner.loss))


def kit_bot_agent(seat: int):
    """A uniform random legal move from an rl_environment time step (the other seats of the DQN test)."""
    rng = np.random.default_rng(seat)
    return lambda time_step: int(rng.choice(time_step.observations["legal_actions"][seat]))


@pytest.mark.parametrize("max_hands", [1, 2])
@pytest.mark.parametrize("kitty_size", [0, 1, 2, 3])
def test_r16_ismcts_finishes_every_game_the_rule_settings_allow(max_hands, kitty_size):
    """IS-MCTS as a kit agent on games cut short by R16, every kitty size: a simulation may reach the hand limit
    with every deal thrown in (R7), a one-hand game with no hand scored, whose margin is 0 (it raised StopIteration
    there and stopped smear-web's tables)."""
    from agents.interop import ISMCTSAgent

    rules = Rules(max_hands=max_hands, kitty_size=kitty_size)
    for seed in range(3):
        agent = ISMCTSAgent(simulations=4)
        agent.seed(seed)
        game = Game(rules, rng=seed)
        while not game.game_over:
            seat = game.to_act
            game.step(agent.act(observe(game, seat), game.action_mask(), seat_view(game, seat)))
        assert game.hand_index <= max_hands and (game.winner is not None or game.truncated)


def test_r7_r16_a_one_hand_game_of_only_thrown_in_deals_ends_with_no_margin():
    game = pyspiel.load_game("smear", {"max_hands": 1, "one_hand": True})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    while not state.is_terminal():
        state.apply_action(PASS)  # everyone passes: the one hand R16 allows is thrown in
    assert [r["redeal"] for r in state.records] == [True] and state.returns() == [0.0] * 4


def test_openspiel_ismcts_as_an_agent_of_the_kit_arena():
    from agents.arena import run_match

    summary = run_match("ismcts:simulations=8", "random", games=2, seed=1).summary()
    assert summary["games"] == 2 and 0.0 <= summary["win_rate"] <= 1.0


# ---------------------------------------------------------------------- RLCard


def test_rlcard_env_random_agents_tournament_and_kit_agents():
    from rlcard.agents import RandomAgent
    from rlcard.utils import tournament

    from agents.interop import KitRLCardAgent

    env = rlcard.make("smear", config={"seed": 0, "game_target_score": 5, "game_episode": "game"})
    assert env.num_players == 4 and env.num_actions == 72 and env.state_shape[0] == [427]
    env.set_agents([KitRLCardAgent("heuristic"), RandomAgent(72), KitRLCardAgent("heuristic"), RandomAgent(72)])
    payoffs = tournament(env, 6)
    assert len(payoffs) == 4 and payoffs[0] == payoffs[2] and payoffs[1] == payoffs[3] and payoffs[0] > payoffs[1]
    assert check_records(env.game.records) == len(env.game.records)


def test_rlcard_dqn_learner_runs_on_smear():
    from rlcard.agents import DQNAgent, RandomAgent
    from rlcard.utils import reorganize

    env = rlcard.make("smear", config={"seed": 1})  # one hand an episode, its margin the payoff
    learner = DQNAgent(num_actions=72, state_shape=env.state_shape[0], mlp_layers=[32], replay_memory_init_size=50,
                       replay_memory_size=2000, batch_size=16, train_every=4, device="cpu")  # fmt: skip
    env.set_agents([learner, RandomAgent(72), RandomAgent(72), RandomAgent(72)])
    for _ in range(30):  # hands
        trajectories, payoffs = env.run(is_training=True)
        for transition in reorganize(trajectories, payoffs)[0]:
            learner.feed(transition)
    assert learner.total_t > 0 and learner.train_t > 0


@pytest.mark.parametrize("rules", [Rules(), Rules(kitty_size=2, stick_the_dealer=True)], ids=["default", "kitty2-stick"])
def test_r1_r16_a_game_through_rlcard_equals_smear_v0_record_for_record(rules):
    actions, records = smear_v0_game(seed=41, rules=rules)
    config = {"seed": 41, "game_episode": "game", **{f"game_{k}": v for k, v in rules.to_dict().items()}}
    env = rlcard.make("smear", config=config)
    state, player = env.reset()
    for action in actions:
        assert action in state["legal_actions"]
        state, player = env.step(action)
    assert env.is_over()
    assert env.game.records == records
    assert check_records(env.game.records) == len(records)
    winner = records[-1]["winner"]
    assert list(env.get_payoffs()) == ([0.0] * 4 if winner is None else [1.0 if s % 2 == winner else -1.0 for s in range(4)])


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_r7_r15_an_rlcard_episode_is_one_hand_as_smear_v0_s_its_margin_the_payoff(seed):
    """The default episode: one hand (a thrown-in hand redealt within it, R7), the same cards and records as
    ``smear_v0(episode="hand")`` for the seed; each seat's payoff its partnership's points less the other's (R15's
    scoring of the hand), partners equal, opponents opposite; a bad episode name refused by name."""
    actions, records = smear_v0_game(seed=seed, rules=Rules(), episode="hand")
    env = rlcard.make("smear", config={"seed": seed})
    state, _ = env.reset()
    for action in actions:
        assert action in state["legal_actions"]
        assert list(env.get_payoffs()) == [0.0] * 4  # nothing until the hand is scored
        state, _ = env.step(action)
    assert env.is_over() and env.game.records == records and not records[-1]["redeal"]
    after = records[-1]["score_after"]  # the hand's scoring as the record says (it started at 0 to 0)
    margin = after[0] - after[1]
    assert list(env.get_payoffs()) == [margin, -margin, margin, -margin]
    with pytest.raises(ValueError, match="game_episode"):
        rlcard.make("smear", config={"game_episode": "trick"})


def test_an_rlcard_dqn_agent_plays_in_the_kit_arena_by_its_spec(tmp_path):
    """``rlcard:PATH``: RLCard's DQN checkpoint as a kit agent (its greedy action among the legal ones), in a
    duplicate match; a file that is not one is refused naming the spec."""
    from rlcard.agents import DQNAgent

    from agents import load_agent
    from agents.arena import run_match

    env = rlcard.make("smear", config={"seed": 2})
    learner = DQNAgent(num_actions=72, state_shape=env.state_shape[0], mlp_layers=[16], device="cpu")
    learner.save_checkpoint(str(tmp_path))
    agent = load_agent(f"rlcard:{tmp_path / 'checkpoint_dqn.pt'}")
    game = Game(Rules(), 3)
    for _ in range(12):
        view = seat_view(game, game.to_act)
        action = agent.act(observe(game, game.to_act), game.action_mask(), view)
        assert action in view.legal_actions
        game.step(action)
    summary = run_match(f"rlcard:{tmp_path / 'checkpoint_dqn.pt'}", "random", games=2, seed=1).summary()
    assert summary["games"] == 2
    (tmp_path / "not.pt").write_text("no")
    with pytest.raises(ValueError, match="rlcard:"):
        load_agent(f"rlcard:{tmp_path / 'not.pt'}")
