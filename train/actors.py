"""DMC's actors: the code that steps self-play games and hands the learner blocks of finished decisions,
and the transports that carry blocks and weights between actors and learner.

:class:`SelfPlay` is the actor code: ``num_envs`` games on the batched engine, the learner's
network acting epsilon-greedily (batched on its device) and the opponents for the rest; each
learner decision is kept until the end of its hand (or game) tells its return, and
:meth:`SelfPlay.block` returns a :class:`Block` of decisions whose return is known. Every
transport drives the same code, only the carrying differs:

* :class:`InProcess` (``num_actors: 0``): the learner's own process steps the games.
* :class:`LocalActors` (``backend: local``): actor processes on this machine; the weights go
  through shared memory, blocks through a queue. Actors exit when the learner stops or dies.
* ``train.ray_actors.RayActors`` (``backend: ray``): Ray actors on a cluster.
"""

from __future__ import annotations

import copy
import multiprocessing
import queue
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.multiprocessing as mp

from agents.chances import Chances
from nets import NetworkSpec, build_network, masked_argmax, resolve_device
from smear_env import SmearVectorEnv

from .opponents import Opponents

STEPS_PER_BLOCK = 16  # lockstep steps between hand-overs of finished decisions to the learner
TEAM_SIGN = np.array([1.0, -1.0, 1.0, -1.0], dtype=np.float32)  # a change of team 0's chance, seen from each seat


@dataclass
class Block:
    """Decisions whose return is known, and what the actor counted while making them."""

    obs: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    steps: int  # agent-steps taken (all seats)
    finished: list[float] = field(default_factory=list)  # team 0's return of each game that ended
    version: int = -1  # the weight version that acted


@dataclass(frozen=True)
class ActorSettings:
    """What an actor needs of the trainer's config (plain values: it crosses process boundaries)."""

    num_envs: int
    target: str
    epsilon: float
    opponents: dict[str, float]
    pool_size: int
    rules: dict[str, Any]
    network: dict[str, Any]
    device: str
    chances: str | None = None  # target chance: the table of win chances (train.chances)

    @classmethod
    def of(cls, config: Any, spec: NetworkSpec) -> ActorSettings:
        return cls(
            config.num_envs, config.target, config.epsilon, dict(config.opponents), config.pool_size, config.rules.to_dict(),
            spec.to_dict(), config.device, config.chances,
        )  # fmt: skip


class SelfPlay:
    """The actor code: games in lockstep producing blocks of decisions with their returns (see the module docstring)."""

    def __init__(self, settings: ActorSettings, seed: int) -> None:
        from smear_env import Rules

        n, self.settings = settings.num_envs, settings
        self.rng = np.random.default_rng(seed)
        self.device = resolve_device(settings.device)
        self.spec = NetworkSpec.from_dict(settings.network)
        rules = Rules.from_dict(settings.rules)
        reward = "game" if settings.target == "game" else "margin"
        self.chances = Chances.load(settings.chances) if settings.target == "chance" and settings.chances else None
        self.venv = SmearVectorEnv(n, seed=seed, reward=reward, copy=False, **settings.rules)
        self.obs, self.info = self.venv.reset()
        self.opponents = Opponents(n, settings.opponents, self.rng, seed, rules, self.device)
        self.segment = np.zeros(n, dtype=np.int64)  # hands (or games) finished per slot
        self.returns = np.zeros((n, 8, 4), dtype=np.float32)  # recent segments' returns, by seat
        self.pending: list[tuple[np.ndarray, ...]] = []
        self.finished: list[float] = []  # team 0's return of games finished
        self.steps = 0

    def step(self, q: torch.nn.Module) -> None:
        """One decision in every game."""
        settings, rng, venv, obs = self.settings, self.rng, self.venv, self.obs
        mask, seat = self.info["action_mask"], self.info["seat"]
        learner = self.opponents.learner_acts(seat)
        actions = np.zeros(settings.num_envs, dtype=np.int64)
        idx = np.flatnonzero(learner)
        if idx.size:
            with torch.no_grad():
                scores = q(torch.from_numpy(obs[idx]).to(self.device, non_blocking=True))
            on_cpu = self.device.type == "cpu"  # numpy's argmax there; on a GPU, the mask goes to the scores
            actions[idx] = masked_argmax(
                scores.numpy() if on_cpu else scores, mask[idx] if on_cpu else torch.from_numpy(mask[idx]).to(self.device)
            )
            explore = idx[rng.random(idx.size) < settings.epsilon]
            if explore.size:
                actions[explore] = venv.sample_actions(rng)[explore]
        self.opponents.act(venv, obs, mask, seat, actions, learner)
        self.pending.append((obs[idx], actions[idx], idx, seat[idx], self.segment[idx]))
        if self.chances is not None:
            before, dealer = venv.scores.copy(), venv.dealer.astype(np.int64)  # the hand's start

        self.obs, rewards, terminated, truncated, self.info = venv.step(actions)
        done = terminated | truncated
        ends = done if settings.target == "game" else self.info["hand_over"]
        segment = self.segment
        if self.chances is not None:
            if ends.any():
                games = np.flatnonzero(ends)
                change = self.chances.hand_change(venv, self.info, games, done[games], before[games], dealer[games])
                self.returns[ends, segment[ends] % 8] = change[:, None] * TEAM_SIGN
        elif settings.target == "hand":
            self.returns[ends, segment[ends] % 8] = rewards[ends]
        elif done.any():
            self.returns[done, segment[done] % 8] = self.info["final_return"][done]
        segment[ends] += 1
        if done.any():
            self.finished.extend(self.info["final_return"][done][:, 0].tolist())
            self.opponents.draw(np.flatnonzero(done))
        self.steps += settings.num_envs

    def block(self, q: torch.nn.Module, version: int = -1, steps: int = STEPS_PER_BLOCK) -> Block:
        """``steps`` lockstep steps, then the decisions whose return is now known (the rest wait)."""
        for _ in range(steps):
            self.step(q)
        o, a, slot, s, seg = (np.concatenate(x) for x in zip(*self.pending, strict=True))
        done = seg < self.segment[slot]
        self.pending = [(o[~done], a[~done], slot[~done], s[~done], seg[~done])]
        block = Block(o[done], a[done], self.returns[slot[done], seg[done] % 8, s[done]], self.steps, self.finished, version)
        self.steps, self.finished = 0, []
        return block

    def remember(self, state: dict, step: int) -> None:
        """A network for the opponents' pool."""
        self.opponents.remember(state, step, self.spec, self.settings.pool_size)


class InProcess:
    """No actors: the learner's process steps the games between its gradient steps."""

    replaced = 0  # actors replaced after dying (none here)

    def __init__(self, settings: ActorSettings, q: torch.nn.Module, seed: int) -> None:
        self.play = SelfPlay(settings, seed)
        self.q = copy.deepcopy(q)  # the games are played by the weights last published, as the actors' are

    def publish(self, q: torch.nn.Module) -> None:
        """The learner's newest weights, for the next block."""
        self.q.load_state_dict(q.state_dict())

    def remember(self, state: dict, step: int) -> None:
        self.play.remember(state, step)

    def collect(self, wait: bool) -> list[Block]:
        return [self.play.block(self.q)]

    def close(self) -> None:
        pass


def _local_actor(settings: ActorSettings, seed: int, shared, version, lock, pool_queue, data_queue, stop) -> None:
    """An actor process: steps its own games with the newest weights the learner shared and sends
    blocks, until the learner says stop or dies (kill -9 included)."""
    torch.set_num_threads(1)
    data_queue.cancel_join_thread()  # exit without waiting for a learner that may be gone
    play = SelfPlay(settings, seed)
    q, seen = build_network(play.spec).to(play.device).eval(), -1
    parent = multiprocessing.parent_process()
    while not stop.is_set() and parent is not None and parent.is_alive():
        if version.value != seen:
            with lock:
                seen = version.value
                q.load_state_dict(shared.state_dict())
        while not pool_queue.empty():
            play.remember(*pool_queue.get())
        block = play.block(q, seen)
        while not stop.is_set() and parent.is_alive():
            try:
                data_queue.put(block, timeout=1.0)
                break
            except queue.Full:
                continue


class LocalActors:
    """``num_actors`` actor processes on this machine, fed the learner's weights (shared memory) and pool."""

    replaced = 0  # a local actor that dies stops the run with an error instead

    def __init__(self, settings: ActorSettings, q: torch.nn.Module, seeds: list[int]) -> None:
        ctx = mp.get_context("spawn")
        self.shared = build_network(NetworkSpec.from_dict(settings.network))
        self.shared.share_memory()
        self.version, self.lock = ctx.Value("l", 0), ctx.Lock()
        self.data = ctx.Queue(maxsize=2 * len(seeds))
        self.stop = ctx.Event()
        self.pool_queues = [ctx.Queue() for _ in seeds]
        self.publish(q)
        self.processes = []
        for seed, pool_queue in zip(seeds, self.pool_queues, strict=True):
            args = (settings, seed, self.shared, self.version, self.lock, pool_queue, self.data, self.stop)
            self.processes.append(ctx.Process(target=_local_actor, args=args, daemon=True))
            self.processes[-1].start()

    def publish(self, q: torch.nn.Module) -> None:
        """The learner's newest weights, for the actors to take at their next block."""
        with self.lock, torch.no_grad():
            for mine, theirs in zip(self.shared.parameters(), q.parameters(), strict=True):
                mine.copy_(theirs.detach().cpu())
            self.version.value += 1

    def remember(self, state: dict, step: int) -> None:
        for pool_queue in self.pool_queues:
            pool_queue.put(({k: v.cpu() for k, v in state.items()}, step))

    def collect(self, wait: bool) -> list[Block]:
        """The blocks waiting, and (``wait``) at least one."""
        blocks = []
        while wait and not blocks:
            try:
                blocks.append(self.data.get(timeout=60.0))
            except queue.Empty:
                if not any(p.is_alive() for p in self.processes):
                    raise RuntimeError("every actor process died; see its error above") from None
        while True:
            try:
                blocks.append(self.data.get_nowait())
            except queue.Empty:
                return blocks

    def close(self) -> None:
        self.stop.set()
        for _ in range(3):  # unblock actors waiting on a full queue
            self.collect(wait=False)
        for p in self.processes:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()
