"""The PettingZoo env smear_v0: library checkers, rewards, illegal actions, no hidden-information leak."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import smear_env
from smear_env import NUM_ACTIONS, OBS_DIM, IllegalActionError, Phase, encode, seat_view
from smear_env.game import Game
from smear_env.rules import Rules


def random_episode(environment, seed: int, rng: np.random.Generator) -> dict[str, float]:
    environment.reset(seed=seed)
    returns = dict.fromkeys(environment.possible_agents, 0.0)
    for agent in environment.agent_iter():
        obs, reward, terminated, truncated, _ = environment.last()
        returns[agent] += reward
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        environment.step(action)
    return returns


def test_pettingzoo_api_test():
    api_test(smear_env.env(), num_cycles=3000)


def test_pettingzoo_api_test_one_hand_episodes():
    api_test(smear_env.env(episode="hand", reward="margin", kitty_size=0), num_cycles=500)


def test_smear_v0_is_a_versioned_module_as_pettingzoos_classic_games_are():
    """``from smear_env import smear_v0; smear_v0.env()``, as ``from pettingzoo.classic import texas_holdem_v4``;
    ``smear_env.env`` is the same function."""
    from smear_env import smear_v0

    assert smear_v0.env is smear_env.env and smear_v0.raw_env is smear_env.raw_env
    environment = smear_v0.env()
    assert environment.metadata["name"] == smear_v0.__name__.rpartition(".")[2] == "smear_v0"
    assert not environment.metadata["is_parallelizable"] and not hasattr(smear_v0, "parallel_env")  # turns, not steps
    api_test(smear_v0.env(), num_cycles=200)


def test_the_order_checks_are_pettingzoos_own():
    """Our order wrapper says what PettingZoo's OrderEnforcingWrapper says, through PettingZoo's own logger."""
    from pettingzoo.utils import wrappers

    from smear_env import smear_v0

    for make in (smear_v0.env, lambda: wrappers.OrderEnforcingWrapper(smear_v0.raw_env())):
        with pytest.raises(AssertionError, match="reset\\(\\) needs to be called before step"):
            make().step(0)  # a step before reset: the stock wrapper's error
        with pytest.raises((AssertionError, AttributeError), match="before reset|reset\\(\\) needs to be called"):
            make().last()  # the stock wrapper's AttributeError, or the error of PettingZoo's observe() before reset


def test_pettingzoo_seed_test():
    seed_test(smear_env.env, num_cycles=1000)


def test_spaces_and_observation_shapes():
    environment = smear_env.env()
    environment.reset(seed=1)
    obs = environment.observe(environment.agent_selection)
    assert obs["observation"].shape == (OBS_DIM,) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (NUM_ACTIONS,) and obs["action_mask"].dtype == np.int8
    assert obs["action_mask"][:4].sum() >= 3  # bidding: pass and bids
    others = [a for a in environment.agents if a != environment.agent_selection]
    assert all(environment.observe(a)["action_mask"].sum() == 0 for a in others)
    assert environment.unwrapped.state().shape == (smear_env.STATE_DIM,)


def test_r15_game_rewards_are_team_shared_plus_minus_one():
    environment = smear_env.env(target_score=6)
    rng = np.random.default_rng(0)
    outcomes = set()
    for seed in range(6):
        returns = random_episode(environment, seed, rng)
        game = environment.unwrapped.game
        assert returns["player_0"] == returns["player_2"] == -returns["player_1"] == -returns["player_3"]
        if game.truncated:
            assert returns["player_0"] == 0
        else:
            assert returns["player_0"] == (1.0 if game.winner == 0 else -1.0)
            outcomes.add(game.winner)
    assert outcomes  # at least one game was won


@pytest.mark.parametrize("mode", ["hand", "margin"])
def test_r14_hand_rewards_follow_score_changes(mode):
    environment = smear_env.env(reward=mode)
    returns = random_episode(environment, 3, np.random.default_rng(1))
    scores = environment.unwrapped.game.scores
    if mode == "hand":
        assert returns["player_0"] == scores[0] and returns["player_1"] == scores[1]
    else:
        assert returns["player_0"] == scores[0] - scores[1] == -returns["player_1"]


def test_one_hand_episode_ends_after_the_scored_hand():
    environment = smear_env.env(episode="hand", reward="hand")
    random_episode(environment, 4, np.random.default_rng(2))
    records = environment.unwrapped.game.records
    assert not records[-1]["redeal"] and all(r["redeal"] for r in records[:-1])


def test_r16_truncation():
    environment = smear_env.env(max_hands=1)
    random_episode(environment, 0, np.random.default_rng(0))
    raw = environment.unwrapped
    assert raw.game.truncated or raw.game.winner is not None
    if raw.game.truncated:
        assert all(raw.truncations.values()) and not any(raw.terminations.values())


def test_illegal_action_raises_and_leaves_game_unchanged():
    environment = smear_env.env(illegal_action="raise")
    environment.reset(seed=2)
    agent = environment.agent_selection
    before = environment.observe(agent)
    illegal = int(np.flatnonzero(before["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=r"seat \d cannot take action .* phase BID: legal are"):
        environment.step(illegal)
    after = environment.observe(agent)
    assert environment.agent_selection == agent
    np.testing.assert_array_equal(before["observation"], after["observation"])
    legal = int(np.flatnonzero(before["action_mask"])[0])
    environment.step(legal)  # the caller can recover


def test_terminate_illegal_option():
    environment = smear_env.env(illegal_action="terminate")
    environment.reset(seed=2)
    agent = environment.agent_selection
    mask = environment.observe(agent)["action_mask"]
    with pytest.warns(UserWarning, match=r"illegal move .* legal were: pass, bid 2, bid 3, bid 4\. The episode ends"):
        environment.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(environment.terminations.values())
    assert environment.rewards[agent] == -1


def test_bad_settings_are_named():
    with pytest.raises(ValueError, match="kitty_size=5"):
        smear_env.env(kitty_size=5)
    with pytest.raises(ValueError, match="unknown rule setting"):
        smear_env.env(kity_size=2)
    with pytest.raises(ValueError, match="episode="):
        smear_env.env(episode="match")
    with pytest.raises(ValueError, match="reward='game' needs episode='game'"):
        smear_env.env(episode="hand")
    with pytest.raises(ValueError, match="illegal_action"):
        smear_env.env(illegal_action="ignore")


def test_render_ansi_shows_table():
    environment = smear_env.env(render_mode="ansi")
    environment.reset(seed=5)
    text = environment.render()
    assert "Bids:" in text and "seat 3" in text and "Legal:" in text


def _permute_hidden(game: Game, seat: int, rng: np.random.Generator) -> Game:
    """Reshuffle every card `seat` cannot see, keeping each place's size."""
    other = game.copy()
    bidder_hidden = other.bidder is not None and other.bidder != seat and other.phase != Phase.BID
    places = [other.holding[s] for s in range(4) if s != seat]
    if other.phase == Phase.BID:
        places.append(other.kitty)
    else:
        places.append(other.kitty)  # the whole kitty is hidden unless seat is the bidder
        if bidder_hidden:
            places.append(other.discards)
    if other.bidder == seat and other.phase != Phase.BID:
        places.pop()  # the bidder knows the cards it picked up: keep the kitty as is
    pool = [c for p in places for c in p]
    rng.shuffle(pool)
    start = 0
    for p in places:
        p[:] = pool[start : start + len(p)]
        start += len(p)
    other._legal = None
    return other


def test_observation_does_not_leak_hidden_cards():
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(30):
        game = Game(Rules(), seed)
        while not game.game_over and game.hand_index < 3:
            for seat in range(4):
                obs = encode(seat_view(game, seat))
                permuted = _permute_hidden(game, seat, rng)
                np.testing.assert_array_equal(obs, encode(seat_view(permuted, seat)))
                checked += 1
            legal = game.legal_actions()
            game.step(legal[rng.integers(len(legal))])
    assert checked > 1000


def test_observation_sees_own_private_information():
    game = Game(Rules(), 11)
    rng = np.random.default_rng(0)
    while game.phase != Phase.DISCARD:
        legal = game.legal_actions()
        game.step(legal[rng.integers(len(legal))])
    bidder = game.bidder
    view = seat_view(game, bidder)
    assert view.picked_up is not None and len(view.picked_up) == 3
    assert seat_view(game, (bidder + 1) % 4).picked_up is None


def test_observation_slots_of_a_scripted_trick():
    from scenarios import MIXED, MIXED_KITTY, act, deal

    from smear_env.observer import OFFSETS, observe

    game = deal(MIXED, MIXED_KITTY, dealer=3, rules=Rules(kitty_size=0))
    act(game, "bid 2", "pass", "pass", "pass", "trump H", "AH", "7H", "8H", "JH", "KH")
    obs = observe(game, 1)  # seat 1, to act in trick 2; seat 0 (its right, relative 3) led KH
    o = OFFSETS
    card = smear_env.parse_card
    assert obs[o["hand"] + card("8C")] == 1 and obs[o["hand"] + card("7H")] == 0
    assert obs[o["phase"] + 3] == 1 and obs[o["to_act"] + 0] == 1 and obs[o["dealer"] + 2] == 1
    assert obs[o["bids"] + 4 * 3 + 1] == 1  # seat 0 (relative 3) bid 2
    assert obs[o["bids"] + 4 * 0 + 0] == 1  # I passed
    assert obs[o["bidder"] + 3] == 1 and obs[o["bid"] + 0] == 1 and obs[o["trump"] + 2] == 1
    assert obs[o["played"] + 32 * 0 + card("7H")] == 1  # my own 7 of trump
    assert obs[o["played"] + 32 * 2 + card("JH")] == 1  # seat 3 is my partner
    assert obs[o["trick"] + 32 * 3 + card("KH")] == 1 and obs[o["leader"] + 3] == 1
    assert obs[o["points"] + 0 : o["points"] + 6].tolist() == [0, 1, 1, 0, 0, 1]  # High theirs, Low mine, Jack theirs
    assert obs[o["tricks_won"] + 1] == pytest.approx(1 / 6)
    assert obs[o["game_count"] + 1] == pytest.approx(5 / 80)
    assert obs[o["picked_up"] : o["discards"] + 32].sum() == 0  # not the bidder


def test_encode_of_view_equals_fast_observe():
    from smear_env.observer import observe

    # observe() keeps per-hand caches (and the final scores arrive with the sixth trick);
    # encode() of a view starts from nothing. Played to the end of short games.
    rng = np.random.default_rng(3)
    for seed in range(10):
        game = Game(Rules(kitty_size=int(seed % 4), high_low_in_play=bool(seed % 2), target_score=4), seed)
        while True:
            for seat in range(4):
                np.testing.assert_array_equal(observe(game, seat), encode(seat_view(game, seat)))
            if game.game_over:
                break
            legal = game.legal_actions()
            game.step(legal[rng.integers(len(legal))])


def test_default_env_ends_the_episode_on_an_illegal_move_with_the_teams_penalty():
    """PettingZoo classic's convention: the episode ends, the offender's team gets -1, a warning names the move."""
    environment = smear_env.env()
    environment.reset(seed=2)
    agent = environment.agent_selection
    mask = environment.observe(agent)["action_mask"]
    with pytest.warns(UserWarning, match=r"illegal move 4 \(trump C\) by player_\d .* legal were: pass"):
        environment.step(4)
    assert not mask[4]
    team = int(agent[-1]) & 1
    for other in environment.agents:
        assert environment.terminations[other] and not environment.truncations[other]
        assert environment._cumulative_rewards[other] == (-1.0 if int(other[-1]) & 1 == team else 0.0)
    for _ in environment.agent_iter():  # the usual loop finishes the episode
        _, reward, terminated, _, _ = environment.last()
        assert terminated
        environment.step(None)
    assert not environment.agents


def test_unmasked_random_actions_end_episodes_cleanly():
    """What third-party env checkers do (RLlib's pre-check): step unmasked actions, expect no exception."""
    environment = smear_env.env()
    rng = np.random.default_rng(0)
    for seed in range(20):
        environment.reset(seed=seed)
        for _ in environment.agent_iter():
            _, _, terminated, truncated, _ = environment.last()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                environment.step(None if terminated or truncated else int(rng.integers(NUM_ACTIONS)))


def test_one_hand_episode_ends_on_the_finished_hand():
    environment = smear_env.env(episode="hand", reward="margin", render_mode="ansi")
    random_episode(environment, 4, np.random.default_rng(2))
    raw = environment.unwrapped
    record = raw.game.records[-1]
    assert not record["redeal"] and raw.game.game_over and raw.game.winner is None and not raw.game.truncated
    for agent in raw.possible_agents:
        obs = raw.observe(agent)
        assert obs["action_mask"].sum() == 0
        # The six tricks of the finished hand are on the table: 24 cards played, none held.
        o = smear_env.observer.OFFSETS
        assert obs["observation"][o["played"] : o["played"] + 128].sum() == 24
        assert obs["observation"][o["hand"] : o["hand"] + 32].sum() == 0
    text = environment.render()
    assert "Tally: tricks" in text and f"bid {record['bid']}" in text and "Legal" not in text
    state = raw.state()
    assert state[:128].sum() == 0  # nobody holds a card: not the next deal


def test_observer_cache_is_kept_outside_the_engine():
    from smear_env import observer

    game = Game(Rules(), 3)
    observe_first = observer.observe(game, 0)
    assert "obs_cache" not in vars(game) and id(game) in observer._CACHES
    copy = game.copy()
    np.testing.assert_array_equal(observer.observe(copy, 0), observe_first)
