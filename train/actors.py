"""DMC's actors: the code that steps self-play games and hands the learner blocks of finished decisions,
and the transports that carry blocks and weights between actors and learner.

:class:`SelfPlay` is the actor code: ``num_envs`` games on the batched engine, the learner's
network acting epsilon-greedily (batched on its device) and the opponents for the rest; each
learner decision is kept until the end of its hand (or game) tells its return, and
:meth:`SelfPlay.block` returns a :class:`Block` of decisions whose return is known. Every
transport drives the same code, only the carrying differs:

* :class:`InProcess` (``num_actors: 0``): the learner's own process steps the games.
* :class:`LocalActors` (``backend: local``): actor processes on this machine. Nothing is
  pickled on the way: each actor writes its blocks into slots of shared memory that it owns
  (:class:`Slots`) and only a slot's number, its count and a few figures cross a queue; the
  learner copies the slot out and hands the number back. The weights are published in place,
  into one shared copy the actors read from when its version moves. Actors exit when the
  learner stops or dies.
* ``train.ray_actors.RayActors`` (``backend: ray``): Ray actors on a cluster.

A block's observations are packed (``smear_nets.packed``: 80 bytes a decision, not 1,708), and only
the decisions of the phases the learner fits (``learn_phases``) are kept.
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
from smear_env import Phase, SmearVectorEnv
from smear_env.observer import OFFSETS
from smear_nets import NetworkSpec, build_network, masked_argmax, resolve_device
from smear_nets.packed import PACKED, pack

from .opponents import Opponents

STEPS_PER_BLOCK = 16  # lockstep steps between hand-overs of finished decisions to the learner
TEAM_SIGN = np.array([1.0, -1.0, 1.0, -1.0], dtype=np.float32)  # a change of team 0's chance, seen from each seat
PHASES = tuple(p.name.lower() for p in Phase if p != Phase.GAME_OVER)  # the observation's phase one-hot, in order
SLOTS = 4  # shared-memory slots per local actor: blocks it may have written before the learner takes them


def in_phases(obs: np.ndarray, phases: tuple[str, ...]) -> np.ndarray:
    """Which rows of ``obs`` [n, OBS_DIM] are decisions of one of ``phases`` (names of the observation's phase one-hot)."""
    learned = np.array([name in phases for name in PHASES])
    at = OFFSETS["phase"]
    return obs[:, at : at + len(PHASES)].argmax(axis=1).choose(learned)


@dataclass
class Block:
    """Decisions whose return is known, and what the actor counted while making them."""

    obs: np.ndarray  # packed (smear_nets.packed): uint8 [n, PACKED]
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
    chances: str | None = None  # target chance: the table of win chances (train.chance_table)
    learn_phases: tuple[str, ...] = PHASES  # the decisions a block keeps
    precision: str = "fp32"  # bf16: the network's matrix products in bfloat16 (autocast)

    @classmethod
    def of(cls, config: Any, spec: NetworkSpec) -> ActorSettings:
        return cls(
            config.num_envs, config.target, config.epsilon, dict(config.opponents), config.pool_size, config.rules.to_dict(),
            spec.to_dict(), config.actor_device or config.device, config.chances, tuple(config.learn_phases),
            config.precision,
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
        self.pending: list[tuple[np.ndarray, ...]] = []  # learner decisions (of the learn_phases) awaiting their return
        self.every_phase = len(settings.learn_phases) == len(PHASES)
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
            with torch.no_grad(), torch.autocast(self.device.type, torch.bfloat16, enabled=settings.precision == "bf16"):
                scores = q(torch.from_numpy(obs[idx]).to(self.device, non_blocking=True)).float()
            on_cpu = self.device.type == "cpu"  # numpy's argmax there; on a GPU, the mask goes to the scores
            actions[idx] = masked_argmax(
                scores.numpy() if on_cpu else scores, mask[idx] if on_cpu else torch.from_numpy(mask[idx]).to(self.device)
            )
            explore = idx[rng.random(idx.size) < settings.epsilon]
            if explore.size:
                actions[explore] = venv.sample_actions(rng)[explore]
        self.opponents.act(venv, obs, mask, seat, actions, learner)
        kept = idx if self.every_phase else idx[in_phases(obs[idx], settings.learn_phases)]
        # Packed now (80 bytes a decision) rather than at the block: the pending decisions stay small.
        self.pending.append((pack(obs[kept]), actions[kept], kept, seat[kept], self.segment[kept]))
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
        # The games are played by the weights last published, as the actors' are, on the actors' device.
        self.q = copy.deepcopy(q).to(self.play.device).eval()

    def publish(self, q: torch.nn.Module) -> None:
        """The learner's newest weights, for the next block."""
        self.q.load_state_dict(q.state_dict())

    def remember(self, state: dict, step: int) -> None:
        self.play.remember(state, step)

    def collect(self, wait: bool) -> list[Block]:
        return [self.play.block(self.q)]

    def close(self) -> None:
        pass


class Slots:
    """One local actor's blocks in shared memory: ``count`` slots of up to ``capacity`` decisions each
    (packed observations, actions, returns), written by the actor and read by the learner."""

    def __init__(self, count: int, capacity: int) -> None:
        self.capacity = capacity
        self.obs = torch.zeros((count, capacity, PACKED), dtype=torch.uint8).share_memory_()
        self.actions = torch.zeros((count, capacity), dtype=torch.int16).share_memory_()
        self.returns = torch.zeros((count, capacity), dtype=torch.float32).share_memory_()

    def write(self, slot: int, block: Block, begin: int, end: int) -> None:
        """Decisions ``begin:end`` of ``block`` into ``slot``."""
        n = end - begin
        self.obs[slot, :n] = torch.from_numpy(block.obs[begin:end])
        self.actions[slot, :n] = torch.from_numpy(block.actions[begin:end].astype(np.int16))
        self.returns[slot, :n] = torch.from_numpy(block.returns[begin:end])

    def read(self, slot: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A copy of the first ``n`` decisions of ``slot`` (after which the slot may be written again)."""
        return (
            self.obs[slot, :n].numpy().copy(),
            self.actions[slot, :n].numpy().astype(np.int64),
            self.returns[slot, :n].numpy().copy(),
        )


@dataclass(frozen=True)
class Handoff:
    """What crosses the queue for a slot written: whose, which, how many decisions, and, with the last slot
    of a block (a block may need several), the block's figures."""

    actor: int
    slot: int
    n: int
    last: bool
    steps: int
    finished: list[float]
    version: int


def _local_actor(
    index: int, settings: ActorSettings, seed: int, slots: Slots, free, ready, shared, version, lock, pool_queue, stop
) -> None:
    """An actor process: steps its own games with the newest weights the learner shared, writes each block
    into its free slots and says which, until the learner says stop or dies (kill -9 included)."""
    torch.set_num_threads(1)
    ready.cancel_join_thread()  # exit without waiting for a learner that may be gone
    play = SelfPlay(settings, seed)
    q, seen = build_network(play.spec).to(play.device).eval(), -1
    parent = multiprocessing.parent_process()

    def running() -> bool:
        return not stop.is_set() and parent is not None and parent.is_alive()

    while running():
        if version.value != seen:
            with lock:
                seen = version.value
                q.load_state_dict(shared.state_dict())
        while not pool_queue.empty():
            play.remember(*pool_queue.get())
        block = play.block(q, seen)
        begin = 0
        while running():
            try:
                slot = free.get(timeout=1.0)
            except queue.Empty:
                continue
            end = min(begin + slots.capacity, len(block.actions))
            slots.write(slot, block, begin, end)
            last = end == len(block.actions)
            ready.put(Handoff(index, slot, end - begin, last, block.steps if last else 0, block.finished if last else [], seen))
            begin = end
            if last:
                break


class LocalActors:
    """``num_actors`` actor processes on this machine: blocks through shared-memory slots, the learner's
    weights published in place (shared memory) and its pool through a queue."""

    replaced = 0  # a local actor that dies stops the run with an error instead

    def __init__(self, settings: ActorSettings, q: torch.nn.Module, seeds: list[int], capacity: int | None = None) -> None:
        ctx = mp.get_context("spawn")
        self.shared = build_network(NetworkSpec.from_dict(settings.network))
        self.shared.share_memory()
        self.version, self.lock = ctx.Value("l", 0), ctx.Lock()
        self.ready = ctx.Queue()
        self.stop = ctx.Event()
        # A slot holds a block's decisions, mostly: a block that has more takes several slots.
        self.slots = [Slots(SLOTS, capacity or settings.num_envs * 2 * STEPS_PER_BLOCK) for _ in seeds]
        self.free = [ctx.Queue() for _ in seeds]
        for free in self.free:
            for slot in range(SLOTS):
                free.put(slot)
        self.pool_queues = [ctx.Queue() for _ in seeds]
        self.publish(q)
        self.processes = []
        for index, seed in enumerate(seeds):
            args = (index, settings, seed, self.slots[index], self.free[index], self.ready, self.shared, self.version, self.lock,
                    self.pool_queues[index], self.stop)  # fmt: skip
            self.processes.append(ctx.Process(target=_local_actor, args=args, daemon=True))
            self.processes[-1].start()
        self.parts: list[list[tuple[np.ndarray, ...]]] = [[] for _ in seeds]  # pieces of a block not yet whole, by actor

    def publish(self, q: torch.nn.Module) -> None:
        """The learner's newest weights, in place, for the actors to take at their next block."""
        with self.lock, torch.no_grad():
            for mine, theirs in zip(self.shared.parameters(), q.parameters(), strict=True):
                mine.copy_(theirs.detach())
            self.version.value += 1

    def remember(self, state: dict, step: int) -> None:
        for pool_queue in self.pool_queues:
            pool_queue.put(({k: v.cpu() for k, v in state.items()}, step))

    def collect(self, wait: bool) -> list[Block]:
        """The blocks written, each copied out of its slots (which go back to their actor), and (``wait``) at least one."""
        blocks: list[Block] = []
        while True:
            try:
                handoff = self.ready.get(timeout=60.0) if wait and not blocks else self.ready.get_nowait()
            except queue.Empty:
                if wait and not blocks:
                    if not any(p.is_alive() for p in self.processes):
                        raise RuntimeError("every actor process died; see its error above") from None
                    continue
                return blocks
            # Each slot is copied out and handed back at once: a block larger than all an actor's slots still passes.
            parts = self.parts[handoff.actor]
            parts.append(self.slots[handoff.actor].read(handoff.slot, handoff.n))
            self.free[handoff.actor].put(handoff.slot)
            if handoff.last:
                obs, actions, returns = (np.concatenate(x) for x in zip(*parts, strict=True))
                blocks.append(Block(obs, actions, returns, handoff.steps, handoff.finished, handoff.version))
                parts.clear()

    def close(self) -> None:
        self.stop.set()
        for _ in range(3):  # let actors waiting for a slot see the stop
            self.collect(wait=False)
        for p in self.processes:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()
