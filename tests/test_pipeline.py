"""The parts of DMC's pipeline that make it fast on a GPU box, on whatever device torch has here (``auto``:
a GPU where there is one, else the CPU): packed observations, the replay on the learner's device, the
blocks through shared memory, the weights published every ``publish_every`` gradient steps."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from smear_env import Game, Rules, SmearVectorEnv, observe
from smear_nets import NetworkSpec, build_network, resolve_device
from smear_nets.packed import PACKED, pack, unpack
from train import dmc
from train.actors import ActorSettings, LocalActors, SelfPlay

DEVICES = ["cpu", "auto"]  # auto is the GPU on a machine that has one: the same tests then run there


def observations(games: int = 64, steps: int = 120, seed: int = 0) -> np.ndarray:
    """Observations of random games: the batched engine's, and the reference engine's one game."""
    env = SmearVectorEnv(games, seed=seed)
    obs, _ = env.reset()
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(steps):
        rows.append(obs.copy())
        obs, *_ = env.step(env.sample_actions(rng))
    game = Game(Rules(kitty_size=2, target_score=7), seed)
    while not game.game_over:
        rows.append(observe(game, game.to_act)[None])
        game.step(game.legal_actions()[len(rows) % len(game.legal_actions())])
    return np.concatenate(rows)


@pytest.mark.parametrize("device", DEVICES)
def test_a_packed_observation_unpacks_exactly_on_the_device(device):
    obs = observations()
    packed = pack(obs)
    assert packed.shape == (len(obs), PACKED) and packed.dtype == np.uint8  # 80 bytes, not 1,708
    back = unpack(torch.from_numpy(packed).to(resolve_device(device)))
    assert back.device == resolve_device(device) and back.dtype == torch.float32
    assert np.array_equal(back.cpu().numpy(), obs)


@pytest.mark.parametrize("device", DEVICES)
def test_the_replay_keeps_the_newest_decisions_on_the_device_and_samples_only_them(device):
    obs = observations(games=8, steps=40)
    n = len(obs)
    replay = dmc.Replay(100, resolve_device(device), seed=3)
    returns = np.arange(n, dtype=np.float32)  # each row's return names it
    for begin in range(0, n, 37):  # in blocks that wrap around the ring
        end = min(begin + 37, n)
        replay.add(pack(obs[begin:end]), np.arange(begin, end) % 72, returns[begin:end])
    assert len(replay) == 100 and replay.obs.device.type == resolve_device(device).type
    state = replay.generator.get_state()
    b_obs, b_act, b_ret = replay.sample(500)
    assert b_obs.device.type == resolve_device(device).type
    rows = b_ret.long().cpu().numpy()
    assert rows.min() >= n - 100  # only the newest 100
    assert np.array_equal(b_obs.cpu().numpy(), obs[rows]) and np.array_equal(b_act.cpu().numpy(), rows % 72)
    replay.generator.set_state(state)  # a resumed run draws what it would have drawn
    assert torch.equal(replay.sample(500)[2], b_ret)
    big = dmc.Replay(10, resolve_device(device), seed=0)
    big.add(pack(obs[:25]), np.zeros(25, dtype=np.int64), returns[:25])  # more than it holds at once
    assert sorted(big.ret.cpu().tolist()) == list(range(15, 25))


def test_blocks_cross_the_shared_memory_slots_unchanged():
    """An actor process's blocks, carried through slots too small for them (each block takes several), are
    the blocks the same actor code makes in this process with the same seed and weights."""
    config = dmc.Config(num_envs=16, hidden=(16,), opponents={"self": 0.7, "heuristic": 0.3}, device="cpu")
    spec = NetworkSpec("q", config.hidden)
    settings = ActorSettings.of(config, spec)
    torch.manual_seed(0)
    q = build_network(spec).eval()
    actors = LocalActors(settings, q, [11], capacity=50)
    try:
        carried = []
        while len(carried) < 4:
            carried += actors.collect(wait=True)
    finally:
        actors.close()
    here = SelfPlay(settings, 11)
    for block in carried[:4]:
        made = here.block(q, block.version)
        assert block.steps == made.steps == 16 * 16 and block.finished == made.finished
        assert len(block.actions) > 50  # it took several slots
        for got, want in ((block.obs, made.obs), (block.actions, made.actions), (block.returns, made.returns)):
            assert np.array_equal(got, want)


def test_the_weights_are_published_every_n_gradient_steps(tmp_path, monkeypatch):
    from train import actors as actors_module

    published = []
    original = actors_module.InProcess.publish
    monkeypatch.setattr(actors_module.InProcess, "publish", lambda self, q: published.append(1) or original(self, q))
    config = dmc.Config(runs_dir=str(tmp_path), run_name="p", num_actors=0, num_envs=16, hidden=(16,), total_steps=6000,
                        warmup=200, batch_size=32, updates_per_step=1.0, publish_every=5, eval_every=10**9,
                        eval_games=2, device="cpu")  # fmt: skip
    folder = dmc.train(config)
    updates = torch.load(folder / "checkpoint.pt", weights_only=True)["updates"]
    assert updates > 50 and updates // 5 - 2 <= len(published) <= updates // 5
