"""Deep Monte-Carlo self-play (in the manner of DouZero) for the whole game of Smear.

A Q-network scores every legal action from the acting seat's observation; its target
is the Monte-Carlo return of each decision: the team's score difference for the hand
the decision was made in (``target: hand``) or the game's outcome, +1/-1
(``target: game``). Games run in lockstep on the batched engine with epsilon-greedy,
batched network calls. Opponents are drawn per game from a mix of the current
network (self-play: all four seats learn), past checkpoints of the run (the pool) and
built-in agents.

Run: ``python -m train.dmc --config configs/dmc_quick.yaml [--FIELD VALUE ...]``;
``--resume runs/NAME`` continues a run from its last checkpoint.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812 - the usual alias
from torch.utils.tensorboard import SummaryWriter

from smear_env import OBS_DIM, SmearVectorEnv
from train import evaluation, runs
from train.networks import build_network
from train.opponents import Opponents, check_mix


@dataclass
class Config:
    run_name: str = "dmc"
    """name of the run: its folder is runs_dir/run_name"""
    runs_dir: str = "runs"
    """where runs live"""
    seed: int = 1
    """seed of python, numpy and torch, and of the games"""
    algo: str = "dmc"
    """the trainer (fixed: dmc)"""
    total_steps: int = 2_000_000
    """agent-steps (decisions, all seats) to train for"""
    max_seconds: float = 0.0
    """stop after this many seconds of training as well (0: no limit)"""
    num_envs: int = 512
    """games stepped in lockstep"""
    hidden: str = "512,512,256"
    """hidden layer sizes of the Q-network"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    batch_size: int = 2048
    """decisions per gradient step"""
    updates_per_step: float = 0.25
    """gradient steps per batched env step"""
    buffer_size: int = 300_000
    """decisions kept for learning (newest first out)"""
    warmup: int = 20_000
    """decisions collected before learning starts"""
    epsilon: float = 0.05
    """exploration: chance of a uniformly random legal action"""
    target: str = "hand"
    """return of a decision: 'hand' (team's score difference for the hand) or 'game' (+1/-1 outcome)"""
    opponents: dict[str, float] = field(default_factory=lambda: {"self": 0.7, "pool": 0.2, "heuristic": 0.1})
    """mix of opponent kinds per game: self, pool (past checkpoints), heuristic, random"""
    pool_size: int = 4
    """past checkpoints kept as opponents"""
    pool_every: int = 200_000
    """agent-steps between additions to the pool"""
    kitty_size: int = 3
    """rule setting R5 (the other rules are the defaults)"""
    eval_every: int = 250_000
    """agent-steps between evaluations against the fixed opponents"""
    eval_games: int = 100
    """games per evaluation (duplicate format, against heuristic)"""
    checkpoint_seconds: float = 60.0
    """seconds between checkpoints"""
    torch_threads: int = 2
    """threads torch may use"""

    def __post_init__(self) -> None:
        if self.algo != "dmc":
            raise ValueError(f"config algo={self.algo!r}: train.dmc trains 'dmc'")
        if self.target not in ("hand", "game"):
            raise ValueError(f"config target={self.target!r}: 'hand' or 'game'")
        check_mix(self.opponents)
        for name in (
            "total_steps",
            "num_envs",
            "batch_size",
            "buffer_size",
            "pool_size",
            "pool_every",
            "eval_every",
            "eval_games",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"config {name}={getattr(self, name)}: must be at least 1")
        if not 0 <= self.epsilon <= 1:
            raise ValueError(f"config epsilon={self.epsilon}: must be in [0, 1]")
        try:
            sizes = [int(h) for h in self.hidden.split(",")]
        except ValueError:
            sizes = []
        if not sizes or min(sizes) < 1:
            raise ValueError(f"config hidden={self.hidden!r}: comma-separated layer sizes, e.g. 512,256")


class Replay:
    """The newest ``size`` decisions: observation, action, return."""

    def __init__(self, size: int) -> None:
        self.obs = np.zeros((size, OBS_DIM), dtype=np.float32)
        self.action = np.zeros(size, dtype=np.int64)
        self.ret = np.zeros(size, dtype=np.float32)
        self.size, self.next, self.full = size, 0, False

    def add(self, obs: np.ndarray, action: np.ndarray, ret: np.ndarray) -> None:
        for start in range(0, len(action), self.size):
            o, a, r = obs[start : start + self.size], action[start : start + self.size], ret[start : start + self.size]
            idx = (self.next + np.arange(len(a))) % self.size
            self.obs[idx], self.action[idx], self.ret[idx] = o, a, r
            self.full |= self.next + len(a) >= self.size
            self.next = (self.next + len(a)) % self.size

    def __len__(self) -> int:
        return self.size if self.full else self.next

    def sample(self, rng: np.random.Generator, n: int):
        idx = rng.integers(len(self), size=n)
        return torch.from_numpy(self.obs[idx]), torch.from_numpy(self.action[idx]), torch.from_numpy(self.ret[idx])


def main(argv: list[str] | None = None) -> int:
    config, resume = runs.parse_config(Config, argv, __doc__.splitlines()[0])
    torch.set_num_threads(config.torch_threads)
    folder = runs.run_dir(config) if not resume else runs.Path(resume)
    rng = runs.seed_everything(config.seed)

    # ---------------------------------------------------------------- network, optimizer, resume
    def build():
        return build_network(dataclasses.asdict(config))

    q = build()
    optimizer = torch.optim.Adam(q.parameters(), lr=config.learning_rate)
    global_step, updates, pool, pool_steps, started = 0, 0, [], [], time.time()
    if resume:
        payload = runs.load_checkpoint(folder)
        q.load_state_dict(payload["model"])
        optimizer.load_state_dict(payload["optimizer"])
        global_step, updates = payload["global_step"], payload["updates"]
        pool, pool_steps = payload["pool"], payload["pool_steps"]
        runs.restore_rng_state(rng, payload["rng"])
        print(f"resumed {folder} at step {global_step:,}")
    runs.write_config(config, folder)
    writer = SummaryWriter(str(folder))

    def checkpoint() -> None:
        runs.save_checkpoint(
            folder / runs.CHECKPOINT,
            {
                "model": q.state_dict(),
                "optimizer": optimizer.state_dict(),
                "config": dataclasses.asdict(config),
                "global_step": global_step,
                "updates": updates,
                "pool": opponents.pool_states,
                "pool_steps": opponents.pool_steps,
                "rng": runs.rng_state(rng),
            },
        )

    # ---------------------------------------------------------------- games
    n = config.num_envs
    # A resumed run deals new games: seed from the step reached.
    reward = "margin" if config.target == "hand" else "game"
    venv = SmearVectorEnv(n, seed=config.seed * 1_000_003 + global_step, reward=reward, kitty_size=config.kitty_size)
    obs, info = venv.reset()
    opponents = Opponents(n, config.opponents, rng, config.seed)
    for state, step in zip(pool, pool_steps, strict=True):
        opponents.remember(state, step, build, config.pool_size)
    # Decisions wait for the end of their hand (or game) to learn their return.
    segment = np.zeros(n, dtype=np.int64)  # hands (or games) finished per slot
    returns = np.zeros((n, 8, 4), dtype=np.float32)  # recent segments' returns, by seat
    pending: list[tuple[np.ndarray, ...]] = []
    replay = Replay(config.buffer_size)
    last_checkpoint, last_eval, last_pool = time.time(), global_step, global_step
    episode_returns: list[float] = []
    step_start, steps_at_start = time.time(), global_step
    losses: list[float] = []

    while global_step < config.total_steps and not (config.max_seconds and time.time() - started > config.max_seconds):
        mask = info["action_mask"]
        seat = info["seat"]
        # ---------------------------------------------------------------- act
        learner = opponents.learner_acts(seat)
        actions = np.zeros(n, dtype=np.int64)
        idx = np.flatnonzero(learner)
        if idx.size:
            with torch.no_grad():
                scores = q(torch.from_numpy(obs[idx])).numpy()
            actions[idx] = np.where(mask[idx] > 0, scores, -np.inf).argmax(axis=1)
            explore = idx[rng.random(idx.size) < config.epsilon]
            if explore.size:
                actions[explore] = venv.sample_actions(rng)[explore]
        opponents.act(venv, obs, mask, seat, actions, learner)
        idx = np.flatnonzero(learner)
        pending.append((obs[idx], actions[idx], idx, seat[idx], segment[idx]))

        # ---------------------------------------------------------------- step
        obs, rewards, terminated, truncated, info = venv.step(actions)
        global_step += n
        done = terminated | truncated
        ends = info["hand_over"] if config.target == "hand" else done
        if config.target == "hand":
            returns[ends, segment[ends] % 8] = rewards[ends]
        elif done.any():
            returns[done, segment[done] % 8] = info["final_return"][done]
        segment[ends] += 1
        if done.any():
            episode_returns.extend(info["final_return"][done][:, 0].tolist())
            opponents.draw(np.flatnonzero(done))

        # ---------------------------------------------------------------- returns -> replay
        if len(pending) >= 16:
            o, a, slot, s, seg = (np.concatenate(x) for x in zip(*pending, strict=True))
            ready = seg < segment[slot]
            replay.add(o[ready], a[ready], returns[slot[ready], seg[ready] % 8, s[ready]])
            pending = [(o[~ready], a[~ready], slot[~ready], s[~ready], seg[~ready])]

        # ---------------------------------------------------------------- learn
        if len(replay) >= config.warmup:
            target_updates = int((global_step // n) * config.updates_per_step)
            while updates < target_updates:
                b_obs, b_act, b_ret = replay.sample(rng, config.batch_size)
                value = q(b_obs).gather(1, b_act[:, None]).squeeze(1)
                loss = F.mse_loss(value, b_ret)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(q.parameters(), 40.0)
                optimizer.step()
                updates += 1
                losses.append(loss.item())
        else:
            updates = int((global_step // n) * config.updates_per_step)

        # ---------------------------------------------------------------- logs, pool, eval, checkpoint
        if global_step // n % 50 == 0:
            sps = (global_step - steps_at_start) / max(time.time() - step_start, 1e-9)
            writer.add_scalar("charts/agent_steps_per_second", sps, global_step)
            if losses:
                writer.add_scalar("losses/q_loss", float(np.mean(losses)), global_step)
                losses.clear()
            if episode_returns:
                writer.add_scalar("charts/episode_return_team0", float(np.mean(episode_returns)), global_step)
                episode_returns.clear()
            print(f"step {global_step:>10,}  {sps:8,.0f} agent-steps/s  replay {len(replay):,}  updates {updates:,}", flush=True)
        if global_step - last_pool >= config.pool_every:
            opponents.remember(q.state_dict(), global_step, build, config.pool_size)
            last_pool = global_step
        if global_step - last_eval >= config.eval_every:
            evaluation.log(writer, q, config, global_step)
            last_eval = global_step
        if time.time() - last_checkpoint >= config.checkpoint_seconds:
            checkpoint()
            last_checkpoint = time.time()

    checkpoint()
    summary = evaluation.log(writer, q, config, global_step)
    writer.close()
    sps = (global_step - steps_at_start) / max(time.time() - step_start, 1e-9)
    print(f"trained {global_step:,} agent-steps ({sps:,.0f}/s); checkpoint {folder / runs.CHECKPOINT}")
    print(evaluation.describe(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
