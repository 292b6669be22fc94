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

import copy
import dataclasses
import multiprocessing
import queue
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.multiprocessing as mp
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
    num_actors: int = 1
    """actor processes stepping games while this process learns (0: this process steps them too)"""
    torch_threads: int = 1
    """threads torch may use in the learner"""

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
        if self.num_actors < 0:
            raise ValueError(f"config num_actors={self.num_actors}: 0 or more")
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


class SelfPlay:
    """``num_envs`` games in lockstep: the learner's network (epsilon-greedy) and the opponents act,
    and each learner decision is kept until the end of its hand (or game) tells its return."""

    def __init__(self, config: Config, seed: int, rng: np.random.Generator) -> None:
        n, self.config, self.rng = config.num_envs, config, rng
        reward = "margin" if config.target == "hand" else "game"
        self.venv = SmearVectorEnv(n, seed=seed, reward=reward, kitty_size=config.kitty_size, copy=False)
        self.obs, self.info = self.venv.reset()
        self.opponents = Opponents(n, config.opponents, rng, seed)
        self.segment = np.zeros(n, dtype=np.int64)  # hands (or games) finished per slot
        self.returns = np.zeros((n, 8, 4), dtype=np.float32)  # recent segments' returns, by seat
        self.pending: list[tuple[np.ndarray, ...]] = []
        self.episode_returns: list[float] = []  # team 0's, of games finished

    def step(self, q: torch.nn.Module) -> int:
        """One decision in every game; the number of agent-steps taken."""
        config, rng, venv, obs = self.config, self.rng, self.venv, self.obs
        mask, seat = self.info["action_mask"], self.info["seat"]
        learner = self.opponents.learner_acts(seat)
        actions = np.zeros(config.num_envs, dtype=np.int64)
        idx = np.flatnonzero(learner)
        if idx.size:
            with torch.no_grad():
                scores = q(torch.from_numpy(obs[idx])).numpy()
            actions[idx] = np.where(mask[idx] > 0, scores, -np.inf).argmax(axis=1)
            explore = idx[rng.random(idx.size) < config.epsilon]
            if explore.size:
                actions[explore] = venv.sample_actions(rng)[explore]
        self.opponents.act(venv, obs, mask, seat, actions, learner)
        self.pending.append((obs[idx], actions[idx], idx, seat[idx], self.segment[idx]))

        self.obs, rewards, terminated, truncated, self.info = venv.step(actions)
        done = terminated | truncated
        ends = self.info["hand_over"] if config.target == "hand" else done
        segment = self.segment
        if config.target == "hand":
            self.returns[ends, segment[ends] % 8] = rewards[ends]
        elif done.any():
            self.returns[done, segment[done] % 8] = self.info["final_return"][done]
        segment[ends] += 1
        if done.any():
            self.episode_returns.extend(self.info["final_return"][done][:, 0].tolist())
            self.opponents.draw(np.flatnonzero(done))
        return config.num_envs

    def ready(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The kept decisions whose return is now known (observation, action, return); the rest stay."""
        o, a, slot, s, seg = (np.concatenate(x) for x in zip(*self.pending, strict=True))
        done = seg < self.segment[slot]
        self.pending = [(o[~done], a[~done], slot[~done], s[~done], seg[~done])]
        return o[done], a[done], self.returns[slot[done], seg[done] % 8, s[done]]


STEPS_PER_BATCH = 16  # lockstep steps between hand-overs of finished decisions to the learner


def actor(config: dict, seed: int, shared: torch.nn.Module, version, lock, pool_queue, data_queue, stop) -> None:
    """An actor process: steps its own games with the newest weights the learner shared and
    sends the finished decisions, until the learner says stop or dies (kill -9 included)."""
    torch.set_num_threads(1)
    data_queue.cancel_join_thread()  # exit without waiting for a learner that may be gone
    cfg = Config(**config)
    rng = np.random.default_rng(seed)
    play = SelfPlay(cfg, seed, rng)
    q, seen = build_network(config), -1
    parent = multiprocessing.parent_process()
    while not stop.is_set() and parent is not None and parent.is_alive():
        if version.value != seen:
            with lock:
                seen = version.value
                q.load_state_dict(shared.state_dict())
        while not pool_queue.empty():
            state, step = pool_queue.get()
            play.opponents.remember(state, step, lambda: build_network(config), cfg.pool_size)
        steps = sum(play.step(q) for _ in range(STEPS_PER_BATCH))
        batch = (*play.ready(), steps, play.episode_returns)
        play.episode_returns = []
        while not stop.is_set() and parent.is_alive():
            try:
                data_queue.put(batch, timeout=1.0)
                break
            except queue.Full:
                continue


class Actors:
    """``config.num_actors`` actor processes, fed the learner's weights and pool."""

    def __init__(self, config: Config, q: torch.nn.Module, global_step: int) -> None:
        ctx = mp.get_context("spawn")
        self.shared = build_network(dataclasses.asdict(config))
        self.shared.share_memory()
        self.version, self.lock = ctx.Value("l", 0), ctx.Lock()
        self.data = ctx.Queue(maxsize=2 * config.num_actors)
        self.stop = ctx.Event()
        self.pool_queues = [ctx.Queue() for _ in range(config.num_actors)]
        self.share(q)
        self.processes = []
        for i in range(config.num_actors):
            seed = int(np.random.SeedSequence([config.seed, global_step, i]).generate_state(1)[0])
            args = (
                dataclasses.asdict(config),
                seed,
                self.shared,
                self.version,
                self.lock,
                self.pool_queues[i],
                self.data,
                self.stop,
            )
            self.processes.append(ctx.Process(target=actor, args=args, daemon=True))
            self.processes[-1].start()

    def share(self, q: torch.nn.Module) -> None:
        with self.lock, torch.no_grad():
            for mine, theirs in zip(self.shared.parameters(), q.parameters(), strict=True):
                mine.copy_(theirs)
            self.version.value += 1

    def remember(self, state: dict, step: int) -> None:
        for pool_queue in self.pool_queues:
            pool_queue.put((state, step))

    def collect(self, wait: bool) -> list[tuple]:
        """Finished decisions from the actors: all that are waiting, and (``wait``) at least one batch."""
        batches = []
        while wait and not batches:
            try:
                batches.append(self.data.get(timeout=60.0))
            except queue.Empty:
                if not any(p.is_alive() for p in self.processes):
                    raise RuntimeError("every actor process died; see its error above") from None
        while True:
            try:
                batches.append(self.data.get_nowait())
            except queue.Empty:
                return batches

    def close(self) -> None:
        self.stop.set()
        for _ in range(3):  # unblock actors waiting on a full queue
            self.collect(wait=False)
        for p in self.processes:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()


def main(argv: list[str] | None = None) -> int:
    config, resume = runs.parse_config(Config, argv, __doc__.splitlines()[0])
    torch.set_num_threads(config.torch_threads)
    folder = runs.run_dir(config) if not resume else runs.Path(resume)
    rng = runs.seed_everything(config.seed)

    # ---------------------------------------------------------------- network, optimizer, resume
    def build() -> torch.nn.Module:
        return build_network(dataclasses.asdict(config))

    q = build()
    optimizer = torch.optim.Adam(q.parameters(), lr=config.learning_rate)
    global_step, updates, elapsed, pool = 0, 0, 0.0, []
    if resume:
        payload = runs.load_checkpoint(folder)
        q.load_state_dict(payload["model"])
        optimizer.load_state_dict(payload["optimizer"])
        global_step, updates, elapsed = payload["global_step"], payload["updates"], payload.get("elapsed", 0.0)
        pool = list(zip(payload["pool"], payload["pool_steps"], strict=True))
        runs.restore_rng_state(rng, payload["rng"])
        print(f"resumed {folder} at step {global_step:,}")
    runs.write_config(config, folder)
    writer = SummaryWriter(str(folder))
    started = time.time()

    def seconds() -> float:
        """Training time of the run, resumed parts added up."""
        return elapsed + time.time() - started

    def checkpoint() -> None:
        runs.save_checkpoint(
            folder / runs.CHECKPOINT,
            {
                "model": q.state_dict(),
                "optimizer": optimizer.state_dict(),
                "config": dataclasses.asdict(config),
                "global_step": global_step,
                "updates": updates,
                "elapsed": seconds(),
                "pool": [state for state, _ in pool],
                "pool_steps": [step for _, step in pool],
                "rng": runs.rng_state(rng),
            },
        )

    def hand_over(state: dict, step: int) -> None:
        """A pool entry to whoever plays the games: the actors, or this process's opponents."""
        if actors:
            actors.remember(state, step)
        else:
            play.opponents.remember(state, step, build, config.pool_size)

    def remember() -> None:
        pool.append((copy.deepcopy(q.state_dict()), global_step))
        del pool[: -config.pool_size]
        hand_over(*pool[-1])

    def evaluate() -> dict:
        runs.save_snapshot(folder, q, config, global_step, seconds())
        return evaluation.log(writer, q, config, global_step)

    # ---------------------------------------------------------------- games: actor processes, or in this process
    # A resumed run deals new games: seeds follow the step reached.
    actors, play = None, None
    if config.num_actors:
        actors = Actors(config, q, global_step)
    else:
        play = SelfPlay(config, config.seed * 1_000_003 + global_step, rng)
    for state, step in pool:
        hand_over(state, step)
    replay = Replay(config.buffer_size)
    last_checkpoint, last_eval, last_pool, last_log = time.time(), global_step, global_step, global_step
    episode_returns: list[float] = []
    steps_at_start, losses = global_step, []

    try:
        while global_step < config.total_steps and not (config.max_seconds and time.time() - started > config.max_seconds):
            # ---------------------------------------------------------------- decisions with their returns -> replay
            learning = len(replay) >= config.warmup
            target_updates = int((global_step // config.num_envs) * config.updates_per_step)
            if actors:
                batches = actors.collect(wait=not learning or updates >= target_updates)
            else:
                steps = sum(play.step(q) for _ in range(STEPS_PER_BATCH))
                batches = [(*play.ready(), steps, play.episode_returns)]
                play.episode_returns = []
            for o, a, r, steps, finished in batches:
                replay.add(o, a, r)
                global_step += steps
                episode_returns.extend(finished)

            # ---------------------------------------------------------------- learn
            target_updates = int((global_step // config.num_envs) * config.updates_per_step)
            if len(replay) < config.warmup:
                updates = target_updates
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
            if actors:
                actors.share(q)

            # ---------------------------------------------------------------- logs, pool, eval, checkpoint
            if global_step - last_log >= 50 * config.num_envs:
                sps = (global_step - steps_at_start) / max(time.time() - started, 1e-9)
                writer.add_scalar("charts/agent_steps_per_second", sps, global_step)
                if losses:
                    writer.add_scalar("losses/q_loss", float(np.mean(losses)), global_step)
                    losses.clear()
                if episode_returns:
                    writer.add_scalar("charts/episode_return_team0", float(np.mean(episode_returns)), global_step)
                    episode_returns.clear()
                print(
                    f"step {global_step:>11,}  {sps:8,.0f} agent-steps/s  replay {len(replay):,}  updates {updates:,}", flush=True
                )
                last_log = global_step
            if global_step - last_pool >= config.pool_every:
                remember()
                last_pool = global_step
            if global_step - last_eval >= config.eval_every:
                evaluate()
                last_eval = global_step
            if time.time() - last_checkpoint >= config.checkpoint_seconds:
                checkpoint()
                last_checkpoint = time.time()
    finally:
        if actors:
            actors.close()

    checkpoint()
    sps = (global_step - steps_at_start) / max(time.time() - started, 1e-9)
    summary = evaluate()
    writer.close()
    print(f"trained {global_step:,} agent-steps ({sps:,.0f}/s); checkpoint {folder / runs.CHECKPOINT}")
    print(evaluation.describe(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
