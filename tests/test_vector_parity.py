"""The batched engine plays exactly the games of the single-game engine (and of smear_v0)."""

from __future__ import annotations

import numpy as np
import pytest

import smear_env
from smear_env import Game, IllegalActionError, Rules, check_records, observe, seat_view
from smear_env.game import game_label, game_rng
from smear_env.observer import OFFSETS
from smear_env.observer import state as single_state
from smear_env.vector import SmearVectorEnv

SETTINGS = [
    {},
    {"kitty_size": 0},
    {"kitty_size": 1, "stick_the_dealer": True},
    {"kitty_size": 2, "high_low_in_play": True},
    {"kitty_size": 3, "win_only_on_made_bid": True, "defender_cap": 15},
    {"kitty_size": 3, "defender_cap": 10, "target_score": 7, "max_hands": 6},
]
EPISODES = [("game", "game"), ("game", "hand"), ("hand", "margin")]


class Reference:
    """B single-engine games driven like the batched engine (same seeds, same auto-reset)."""

    def __init__(self, n: int, seed: int, rules: Rules, episode: str, reward: str):
        self.n, self.seed, self.rules, self.episode, self.reward = n, seed, rules, episode, reward
        self.episodes = [0] * n
        self.games = [self._new(i) for i in range(n)]
        self.records: list[dict] = []
        self.final_obs: dict[int, np.ndarray] = {}  # game -> its last observation, for games that just ended

    def _new(self, i: int) -> Game:
        label = game_label(self.seed, i, self.episodes[i])
        return Game(self.rules, game_rng(self.seed, i, self.episodes[i]), game_id=label, stop_after_hand=self.episode == "hand")

    def observe(self):
        obs = np.stack([observe(g, g.to_act) for g in self.games])
        mask = np.stack([g.action_mask() for g in self.games])
        return obs, mask, np.array([g.to_act for g in self.games])

    def step(self, actions):
        rewards = np.zeros((self.n, 4), dtype=np.float32)
        terminated = np.zeros(self.n, dtype=bool)
        truncated = np.zeros(self.n, dtype=bool)
        self.final_obs = {}
        for i, game in enumerate(self.games):
            acting = game.to_act
            before = len(game.records)
            scores = list(game.scores)
            game.step(int(actions[i]))
            if len(game.records) == before:
                continue
            self.records.extend(game.records[before:])
            scored = not game.records[-1]["redeal"]
            change = [game.scores[t] - scores[t] for t in (0, 1)]
            for seat in range(4):
                team = seat & 1
                if scored and self.reward == "hand":
                    rewards[i, seat] = change[team]
                elif scored and self.reward == "margin":
                    rewards[i, seat] = change[team] - change[1 - team]
                elif self.reward == "game" and game.winner is not None:
                    rewards[i, seat] = 1.0 if team == game.winner else -1.0
            if game.truncated:
                truncated[i] = True
            elif game.winner is not None or (self.episode == "hand" and scored):
                terminated[i] = True
            if terminated[i] or truncated[i]:
                self.final_obs[i] = observe(game, acting)
                self.episodes[i] += 1
                self.games[i] = self._new(i)
        return rewards, terminated, truncated


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "default")
@pytest.mark.parametrize("episode, reward", EPISODES)
def test_parity_every_step(settings, episode, reward):
    n, seed, steps = 24, 7, 500
    rules = Rules(**settings)
    venv = SmearVectorEnv(n, seed=seed, episode=episode, reward=reward, record="all", **settings)
    ref = Reference(n, seed, rules, episode, reward)
    obs, info = venv.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(steps):
        ref_obs, ref_mask, ref_seat = ref.observe()
        np.testing.assert_array_equal(info["seat"], ref_seat)
        np.testing.assert_array_equal(info["action_mask"], ref_mask)
        np.testing.assert_array_equal(obs, ref_obs)
        actions = venv.sample_actions(rng)
        obs, rewards, terminated, truncated, info = venv.step(actions)
        ref_rewards, ref_terminated, ref_truncated = ref.step(actions)
        np.testing.assert_array_equal(rewards, ref_rewards)
        np.testing.assert_array_equal(terminated, ref_terminated)
        np.testing.assert_array_equal(truncated, ref_truncated)
        ended += int((terminated | truncated).sum())
    assert venv.records == ref.records
    assert check_records(venv.records) == len(venv.records) > 0
    if settings.get("max_hands") or episode == "hand":
        assert ended > 0


def test_parity_with_the_pettingzoo_env_for_one_game():
    """Game 0 of a batch seeded S is episode after episode the smear_v0 env reset with seed S."""
    venv = SmearVectorEnv(1, seed=11, reward="hand")
    obs, info = venv.reset()
    environment = smear_env.env(reward="hand")
    environment.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(400):
        agent = environment.agent_selection
        pz_obs = environment.observe(agent)
        assert int(agent[-1]) == info["seat"][0]
        np.testing.assert_array_equal(pz_obs["observation"], obs[0])
        np.testing.assert_array_equal(pz_obs["action_mask"], info["action_mask"][0])
        action = venv.sample_actions(rng)
        obs, rewards, terminated, truncated, info = venv.step(action)
        environment.step(int(action[0]))
        if terminated[0] or truncated[0]:
            environment.reset()


def test_state_and_game_snapshot_match_single_engine():
    rules = Rules(kitty_size=2)
    venv = SmearVectorEnv(6, seed=3, kitty_size=2)
    venv.reset()
    ref = Reference(6, 3, rules, "game", "game")
    rng = np.random.default_rng(2)
    for _ in range(150):
        np.testing.assert_array_equal(venv.state(), np.stack([single_state(g) for g in ref.games]))
        for i, game in enumerate(ref.games):
            for seat in range(4):
                assert seat_view(venv.game(i), seat) == seat_view(game, seat)
        actions = venv.sample_actions(rng)
        venv.step(actions)
        ref.step(actions)


def test_final_info_on_episode_end():
    venv = SmearVectorEnv(32, seed=0, target_score=5)
    venv.reset()
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(600):
        _, rewards, terminated, truncated, info = venv.step(venv.sample_actions(rng))
        if "_final" in info:
            done = info["_final"]
            assert np.array_equal(done, terminated | truncated)
            for i in np.flatnonzero(terminated):
                winner = info["final_winner"][i]
                assert info["final_return"][i].tolist() == ([1, -1, 1, -1] if winner == 0 else [-1, 1, -1, 1])
                assert info["final_scores"][i].max() >= 5
                assert info["final_points"][i].sum() <= 4 * info["final_hands"][i]
                assert info["final_made"][i].sum() <= info["final_bids"][i].sum()
                seen += 1
    assert seen > 0


def test_bad_actions_name_games_and_change_nothing():
    venv = SmearVectorEnv(4, seed=0)
    obs, info = venv.reset()
    actions = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    bad = actions.copy()
    bad[2] = 71  # not legal while bidding
    before = venv.state().copy()
    with pytest.raises(IllegalActionError, match=r"game 2: action 71 by seat \d in phase BID"):
        venv.step(bad)
    np.testing.assert_array_equal(venv.state(), before)
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        venv.step(actions[:3])
    with pytest.raises(ValueError, match="integer array"):
        venv.step(actions.astype(float))
    venv.step(actions)  # recovers
    with pytest.raises(ValueError, match="kitty_size"):
        SmearVectorEnv(2, kitty_size=9)
    with pytest.raises(ValueError, match="num_envs"):
        SmearVectorEnv(0)
    with pytest.raises(ValueError, match="record="):
        SmearVectorEnv(2, record=[5])


def test_copy_false_reuses_one_buffer_with_the_same_contents():
    fresh, reused = SmearVectorEnv(16, seed=4), SmearVectorEnv(16, seed=4, copy=False)
    (obs_a, info_a), (obs_b, info_b) = fresh.reset(), reused.reset()
    rng = np.random.default_rng(4)
    for _ in range(200):
        np.testing.assert_array_equal(obs_a, obs_b)
        np.testing.assert_array_equal(info_a["action_mask"], info_b["action_mask"])
        actions = fresh.sample_actions(rng)
        last = obs_b
        obs_a, _, _, _, info_a = fresh.step(actions)
        obs_b, _, _, _, info_b = reused.step(actions)
        assert obs_b is last  # the same array, overwritten in place
    with pytest.raises(ValueError, match="copy="):
        SmearVectorEnv(2, copy="no")


@pytest.mark.parametrize(
    "settings", SETTINGS[:3] + SETTINGS[-1:], ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "default"
)
@pytest.mark.parametrize("episode, reward", EPISODES)
def test_parity_of_final_observations(settings, episode, reward):
    """Same-step autoreset: a finished game's last observation (the seat that moved last, the finished
    table) is the single-game engine's at the end of that game."""
    n, seed = 16, 3
    venv = SmearVectorEnv(n, seed=seed, episode=episode, reward=reward, **settings)
    ref = Reference(n, seed, Rules(**settings), episode, reward)
    venv.reset()
    rng = np.random.default_rng(2)
    compared = 0
    for _ in range(600):
        actions = venv.sample_actions(rng)
        _, _, terminated, truncated, info = venv.step(actions)
        ref.step(actions)
        done = np.flatnonzero(terminated | truncated)
        assert sorted(ref.final_obs) == done.tolist()
        for i in done.tolist():
            assert info["_final_obs"][i] and info["final_obs"][i][OFFSETS["phase"] : OFFSETS["phase"] + 4].sum() == 0
            np.testing.assert_array_equal(info["final_obs"][i], ref.final_obs[i])
            compared += 1
    assert compared > 0


def test_vector_env_is_a_gymnasium_vector_env():
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode
    from gymnasium.wrappers.vector import ClipReward, DictInfoToList

    venv = SmearVectorEnv(8, seed=0, reward="margin", render_mode="ansi")
    assert isinstance(venv, gym.vector.VectorEnv) and venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert venv.single_observation_space == gym.spaces.Box(-1.0, 1.0, (smear_env.OBS_DIM,), np.float32)
    assert venv.single_action_space == gym.spaces.Discrete(72)
    assert venv.observation_space.shape == (8, smear_env.OBS_DIM) and venv.action_space.shape == (8,)
    obs, info = venv.reset(seed=5)
    assert venv.observation_space.contains(obs)
    assert "seat 0 (team 0)" in venv.render(game=3) and venv.render(3) == smear_env.render_table(venv.game(3))
    wrapped = DictInfoToList(ClipReward(venv, -1.0, 1.0))
    obs2, infos = wrapped.reset(seed=5)
    np.testing.assert_array_equal(obs2, obs)
    assert isinstance(infos, list) and len(infos) == 8 and infos[0]["action_mask"].shape == (72,)
    rng = np.random.default_rng(0)
    for _ in range(300):
        _, rewards, _, _, _ = wrapped.step(venv.sample_actions(rng))
        assert rewards.min() >= -1 and rewards.max() <= 1
    wrapped.close()
    assert venv.closed


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "default")
def test_r4_chosen_deals_play_as_the_single_engine_dealt_them(settings):
    """``deal_hands``: games started from given decks, dealers and scores are, step by step to the end
    of the hand, the single-game engine's games at the same deals (``Game.at_hand``)."""
    n = 16
    rules = Rules(**settings)
    venv = SmearVectorEnv(n, seed=5, reward="margin", **settings)
    venv.reset()
    rng = np.random.default_rng(3)
    for _ in range(4):  # a few rounds: the games are mid-game, mid-hand when dealt anew
        for _ in range(int(rng.integers(0, 30))):
            venv.step(venv.sample_actions(rng))
        decks = np.stack([rng.permutation(32) for _ in range(n)])
        dealers = rng.integers(0, 4, n)
        scores = rng.integers(-5, 14, (n, 2))
        obs, info = venv.deal_hands(decks, dealers, scores)
        games = [Game.at_hand(rules, int(d), [list(map(int, deck[6 * s : 6 * s + 6])) for s in range(4)],
                              list(map(int, deck[24:])), tuple(map(int, sc)), rng=0)
                 for deck, d, sc in zip(decks, dealers, scores, strict=True)]  # fmt: skip
        playing = np.ones(n, dtype=bool)
        while playing.any():
            for i in np.flatnonzero(playing).tolist():
                game = games[i]
                assert info["seat"][i] == game.to_act
                np.testing.assert_array_equal(obs[i], observe(game, game.to_act))
                np.testing.assert_array_equal(info["action_mask"][i], game.action_mask())
            actions = venv.sample_actions(rng)
            obs, rewards, _, _, info = venv.step(actions)
            for i in np.flatnonzero(playing).tolist():
                game, before = games[i], list(games[i].scores)
                hands = len(game.records)
                game.step(int(actions[i]))
                if len(game.records) > hands:  # the hand ended: scored (R13-R15) or thrown in (R7)
                    change = [game.scores[t] - before[t] for t in (0, 1)]
                    assert rewards[i].tolist() == [change[s & 1] - change[1 - (s & 1)] for s in range(4)]
                    assert info["hand_over"][i]
                    playing[i] = False
                else:
                    assert not info["hand_over"][i]


def test_deal_hands_refuses_what_is_not_a_deal():
    venv = SmearVectorEnv(2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        venv.deal_hands(np.stack([np.arange(32)] * 2), 0)
    venv.reset()
    with pytest.raises(ValueError, match="32 cards"):
        venv.deal_hands(np.stack([np.arange(32), np.zeros(32, dtype=int)]), 0)
    with pytest.raises(ValueError, match="2 rows"):
        venv.deal_hands(np.arange(32)[None], 0)
    with pytest.raises(ValueError, match="dealer"):
        venv.deal_hands(np.stack([np.arange(32)] * 2), 4)


@pytest.mark.parametrize("settings", SETTINGS[:4])
def test_copy_positions_play_on_as_the_games_they_copy(settings):
    """``copy_positions``: a game copied mid-hand, mid-game (any of a source's games, some twice) gives
    the same observations, masks, rewards and ends as its original, step for step, under the same actions."""
    n = 12
    source = SmearVectorEnv(n, seed=7, reward="margin", **settings)
    source.reset()
    rng = np.random.default_rng(1)
    for _ in range(int(rng.integers(20, 60))):
        source.step(source.sample_actions(rng))
    games = rng.integers(0, n, 8)
    copies = SmearVectorEnv(8, seed=0, reward="margin", **settings)
    copies.reset()
    obs, info = copies.copy_positions(source, games)
    for _ in range(80):
        np.testing.assert_array_equal(obs, source.observe(source.to_act.astype(np.int64))[games])
        np.testing.assert_array_equal(info["action_mask"], source.action_mask[games])
        actions = source.sample_actions(rng)
        _, rewards, terminated, _, source_info = source.step(actions)
        obs, copied_rewards, copied_terminated, _, info = copies.step(actions[games])
        np.testing.assert_array_equal(copied_rewards, rewards[games])
        np.testing.assert_array_equal(copied_terminated, terminated[games])
        np.testing.assert_array_equal(info["hand_over"], source_info["hand_over"][games])
        over = info["hand_over"] | copied_terminated
        if over.any():  # the next hands are dealt from each batch's own streams
            break
    with pytest.raises(ValueError, match="8 game numbers 0-11"):
        copies.copy_positions(source, np.arange(7))
    other = SmearVectorEnv(n, seed=0, target_score=7)
    other.reset()
    with pytest.raises(ValueError, match="other rules"):
        copies.copy_positions(other, games)


def test_r16_a_chosen_deal_starts_the_length_guard_afresh():
    """R16 counts the hands of an episode: ``deal_hands`` starts one, so a search that deals thousands of
    hands into one batch (``agents.rollouts``) never has a rollout cut short by the guard."""
    venv = SmearVectorEnv(4, seed=0, reward="margin", max_hands=2)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):
        obs, info = venv.deal_hands(np.stack([rng.permutation(32) for _ in range(4)]), 0)
        assert (venv.hand_index == 0).all()
        playing = np.ones(4, dtype=bool)
        while playing.any():
            _, _, _, truncated, info = venv.step(venv.sample_actions(rng))
            assert not truncated[playing].any()
            playing &= ~info["hand_over"]
