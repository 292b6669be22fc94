"""DMC's pipeline split into its stages: what each can carry alone, in agent-steps per second, on this machine.

Run: ``python benchmarks/bench_pipeline.py [--seconds 8] [--actors 1,2] [--baseline DIR]``. Each stage is
measured alone, with the previous commit's way of doing it beside it where it changed (in the same run):

1. **engine**: the batched engine stepping ``num_envs`` games with random legal actions (one process).
2. **inference**: the Q-network's forward pass on batches of decisions, on the CPU (one thread) and, where
   torch sees one, the GPU; decisions per second (each agent-step of the learner needs one).
3. **actor**: the actor code (``train.actors.SelfPlay``: engine, inference, opponents, returns, packing).
4. **transport**: blocks from ``--actors`` processes to the learner's process with no learning and no games
   (the processes send a block made beforehand, as fast as they can): shared-memory slots (this release)
   against pickled blocks of float32 observations through a queue (the previous).
5. **learner**: gradient steps as DMC takes them (replay in, batches out, DMC's own ``train.dmc.gradient_step``
   under the config's precision, publishing the weights)
   on the learner's device, times the agent-steps each stands for at ``dmc_quick``'s reuse: the replay on
   the device with packed observations and no wait per step (this release) against the numpy replay with
   a ``loss.item()`` per step and a publication per round (the previous).
6. **trainer**: ``python -m train.dmc --config dmc_quick`` for ``--trainer-seconds`` (evaluation off), and
   with ``--baseline DIR`` (a checkout of the previous commit) the same from there, taking turns.

The last line says which stage bounds the whole here. ``make gpu-check`` runs this with the GPU rows.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import queue
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import yaml

from smear_env import OBS_DIM, SmearVectorEnv
from smear_nets import NetworkSpec, SuitShuffle, build_network
from train import dmc
from train.actors import ActorSettings, Block, Handoff, LocalActors, SelfPlay, Slots
from train.config import from_mapping

ROOT = Path(__file__).parent.parent
CONFIG = ROOT / "configs" / "dmc_quick.yaml"


def quick(**changes) -> dmc.Config:
    values = yaml.safe_load(CONFIG.read_text())
    values.update(changes)
    return from_mapping(dmc.Config, values)


def timed(seconds: float, work) -> float:
    """Units of ``work()`` (it returns how many it did) per second, for about ``seconds`` after a warm-up call."""
    work()
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        done += work()
    return done / (time.perf_counter() - start)


# ---------------------------------------------------------------------------------------------- 1-3


def engine(seconds: float, num_envs: int) -> float:
    env = SmearVectorEnv(num_envs, seed=0, copy=False)
    env.reset()
    rng = np.random.default_rng(0)

    def step() -> int:
        env.step(env.sample_actions(rng))
        return num_envs

    return timed(seconds, step)


def inference(seconds: float, hidden: tuple[int, ...], batch: int, device: torch.device) -> float:
    q = build_network(NetworkSpec("q", hidden)).to(device).eval()
    obs = torch.from_numpy((np.random.default_rng(0).random((batch, OBS_DIM)) < 0.1).astype(np.float32))

    def forward() -> int:
        with torch.no_grad():
            q(obs.to(device, non_blocking=True)).argmax(dim=1).cpu()  # to the host: the games need the actions
        return batch

    return timed(seconds, forward)


def actor(seconds: float, config: dmc.Config) -> float:
    spec = NetworkSpec("q", config.hidden)
    play = SelfPlay(ActorSettings.of(config, spec), seed=0)
    q = build_network(spec).to(play.device).eval()
    return timed(seconds, lambda: play.block(q).steps)


# ---------------------------------------------------------------------------------------------- 4. transport


def canned_block(config: dmc.Config) -> Block:
    """A block as an actor hands it over: one made by the actor code, every decision known."""
    spec = NetworkSpec("q", config.hidden)
    play = SelfPlay(ActorSettings.of(config, spec), seed=0)
    q = build_network(spec).eval()
    for _ in range(4):
        block = play.block(q)
    return block


def _slot_sender(index, slots, free, ready, stop, block) -> None:
    """A process that sends ``block`` through its slots as fast as the learner frees them (``LocalActors``' protocol)."""
    while not stop.is_set():
        try:
            slot = free.get(timeout=0.5)
        except queue.Empty:
            continue
        slots.write(slot, block, 0, len(block.actions))
        ready.put(Handoff(index, slot, len(block.actions), True, block.steps, block.finished, 0))


def _pickle_sender(data, stop, block) -> None:
    """The previous transport: a whole block, float32 observations, pickled through a bounded queue."""
    while not stop.is_set():
        try:
            data.put(block, timeout=0.5)
        except queue.Full:
            continue


def transport(seconds: float, config: dmc.Config, actors: int) -> tuple[float, float]:
    """Agent-steps per second carried to the learner's process: (shared-memory slots, pickled blocks)."""
    block = canned_block(config)
    slot_actors = LocalActors.__new__(LocalActors)  # its collect(), fed by senders in place of the actor code
    ctx = torch.multiprocessing.get_context("spawn")
    slot_actors.ready, slot_actors.stop = ctx.Queue(), ctx.Event()
    slot_actors.slots = [Slots(4, max(len(block.actions), 1)) for _ in range(actors)]
    slot_actors.free = [ctx.Queue() for _ in range(actors)]
    slot_actors.parts = [[] for _ in range(actors)]
    for free in slot_actors.free:
        for slot in range(4):
            free.put(slot)
    senders = [
        ctx.Process(
            target=_slot_sender,
            args=(i, slot_actors.slots[i], slot_actors.free[i], slot_actors.ready, slot_actors.stop, block),
            daemon=True,
        )
        for i in range(actors)
    ]
    for p in senders:
        p.start()
    slot_actors.processes = senders
    slots_rate = timed(seconds, lambda: sum(b.steps for b in slot_actors.collect(wait=True)))
    slot_actors.stop.set()
    for p in senders:
        p.join(5)
        if p.is_alive():
            p.terminate()

    floats = Block(np.ones((len(block.actions), OBS_DIM), dtype=np.float32), block.actions, block.returns, block.steps, [])
    data, stop = ctx.Queue(maxsize=2 * actors), ctx.Event()
    senders = [ctx.Process(target=_pickle_sender, args=(data, stop, floats), daemon=True) for _ in range(actors)]
    for p in senders:
        p.start()
    pickled_rate = timed(seconds, lambda: data.get(timeout=60).steps)
    stop.set()
    for p in senders:
        p.join(5)
        if p.is_alive():
            p.terminate()
    return slots_rate, pickled_rate


# ---------------------------------------------------------------------------------------------- 5. learner


class NumpyReplay:
    """The previous commit's replay: float32 observations in host memory, sampled by numpy fancy indexing."""

    def __init__(self, size: int) -> None:
        self.obs = np.zeros((size, OBS_DIM), dtype=np.float32)
        self.action = np.zeros(size, dtype=np.int64)
        self.ret = np.zeros(size, dtype=np.float32)
        self.size, self.next, self.full = size, 0, False

    def add(self, obs: np.ndarray, action: np.ndarray, ret: np.ndarray) -> None:
        idx = (self.next + np.arange(len(action))) % self.size
        self.obs[idx], self.action[idx], self.ret[idx] = obs, action, ret
        self.full |= self.next + len(action) >= self.size
        self.next = (self.next + len(action)) % self.size

    def sample(self, rng: np.random.Generator, n: int, device: torch.device):
        idx = rng.integers(self.size if self.full else self.next, size=n)
        batch = (torch.from_numpy(self.obs[idx]), torch.from_numpy(self.action[idx]), torch.from_numpy(self.ret[idx]))
        return tuple(t.to(device, non_blocking=True) for t in batch)


def learner(seconds: float, config: dmc.Config, device: torch.device, previous: bool) -> float:
    """The most agent-steps per second one learner takes in at the config's reuse (no actors: blocks made beforehand)."""
    block = canned_block(config)
    spec = NetworkSpec("q", config.hidden)
    q = build_network(spec).to(device)
    optimizer = torch.optim.Adam(q.parameters(), lr=config.learning_rate)
    shared = build_network(spec)
    shared.share_memory()
    updates_per_block = block.steps / config.num_envs * config.updates_per_step
    if previous:
        replay = NumpyReplay(config.buffer_size)
        floats = np.ones((len(block.actions), OBS_DIM), dtype=np.float32)
        rng = np.random.default_rng(0)
    else:
        replay = dmc.Replay(config.buffer_size, device, seed=0)
    sums, owed, since = torch.zeros((), device=device), 0.0, 0.0
    shuffle = SuitShuffle(device) if config.augment_suits else None
    generator = None if previous else replay.generator

    def round_() -> int:
        nonlocal sums, owed, since
        if previous:
            replay.add(floats, block.actions, block.returns)
        else:
            replay.add(block.obs, block.actions, block.returns)
        owed += updates_per_block
        while owed >= 1:
            owed -= 1
            batch = replay.sample(rng, config.batch_size, device) if previous else replay.sample(config.batch_size)
            loss = dmc.gradient_step(q, optimizer, batch, None, 0.0, None, config, shuffle, generator)["q_loss"]
            if previous:
                loss.item()  # the previous loop read each step's loss on the host
            else:
                sums += loss
        since += updates_per_block
        if previous or since >= config.publish_every:  # a publication per round (the previous), every publish_every steps (this)
            since = 0.0
            with torch.no_grad():
                for mine, theirs in zip(shared.parameters(), q.parameters(), strict=True):
                    mine.copy_(theirs.detach())
        if not previous:
            sums.item()  # once a round
        return block.steps

    if device.type == "cuda":
        torch.cuda.synchronize()
    return timed(seconds, round_)


# ---------------------------------------------------------------------------------------------- 6. trainer


def train_speed(seconds: float, *flags: str, algo: str = "dmc", config: str = "dmc_quick", checkout: Path = ROOT) -> float:
    """Agent-steps per second of ``python -m train.ALGO --config CONFIG FLAGS`` from ``checkout``, trained for
    ``seconds`` with evaluation off (NaN if it failed)."""
    with tempfile.TemporaryDirectory() as runs:
        command = [sys.executable, "-m", f"train.{algo}", "--config", config, "--runs-dir", runs, "--run-name", "bench",
                   "--max-seconds", str(seconds), "--total-steps", str(10**11), "--eval-every", str(10**11),
                   "--eval-games", "2", *flags]  # fmt: skip
        done = subprocess.run(command, cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)}, capture_output=True)
        if done.returncode:
            return float("nan")
        log = (Path(runs) / "bench" / "train.log").read_text().splitlines()
    line = next(line for line in reversed(log) if line.startswith("trained "))
    return float(line.split("(")[1].split("/s")[0].replace(",", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds of each stage measurement (default 8)")
    parser.add_argument("--actors", default="1,2", help="actor processes for the transport stage (default 1,2)")
    parser.add_argument("--trainer-seconds", type=float, default=40.0, help="seconds of each trainer run (0: none)")
    parser.add_argument("--rounds", type=int, default=2, help="trainer runs each, taking turns (default 2)")
    parser.add_argument("--baseline", type=Path, help="a checkout of the previous commit: its trainer runs beside this one")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    config = quick(device="cpu")
    gpu = torch.cuda.is_available()
    rows: list[tuple[str, str, float, float | None]] = []  # stage, what, this release, the previous

    def row(stage: str, what: str, now: float, before: float | None = None) -> None:
        rows.append((stage, what, now, before))
        ratio = f"  ({now / before:.2f}x the previous)" if before else ""
        print(f"{stage:<11} {what:<52} {now:>13,.0f}{ratio}", flush=True)

    print(f"{'stage':<11} {'what':<52} {'agent-steps/s':>13}")
    row("engine", f"{config.num_envs} games, 1 process", engine(args.seconds, config.num_envs))
    row("inference", f"{config.hidden} network, batch {config.num_envs}, CPU 1 thread",
        inference(args.seconds, config.hidden, config.num_envs, torch.device("cpu")))  # fmt: skip
    if gpu:
        for batch in (256, 1024, 4096, 16384):
            row("inference", f"{config.hidden} network, batch {batch}, {torch.cuda.get_device_name()}",
                inference(args.seconds, config.hidden, batch, torch.device("cuda")))  # fmt: skip
    row("actor", f"the actor code, {config.num_envs} games, CPU", actor(args.seconds, config))
    if gpu:
        row("actor", f"the actor code, {config.num_envs} games, inference on the GPU", actor(args.seconds, quick(device="cuda")))
    for n in (int(a) for a in args.actors.split(",")):
        now, before = transport(args.seconds, config, n)
        row("transport", f"{n} sender process(es), shared-memory slots vs pickled", now, before)
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if gpu else [])
    for device in devices:
        reuse = config.updates_per_step * config.batch_size / config.num_envs
        what = f"batch {config.batch_size}, reuse {reuse:.1f}, {device.type}"
        row("learner", what, learner(args.seconds, config, device, False), learner(args.seconds, config, device, True))
        fp32 = learner(args.seconds, config, device, False)
        row(
            "learner",
            f"{what}, bf16 against fp32",
            learner(args.seconds, quick(device=device.type, precision="bf16"), device, False),
            fp32,
        )
    if gpu:
        big = quick(device="cuda", batch_size=8192, updates_per_step=config.updates_per_step * config.batch_size / 8192)
        row("learner", "batch 8192, the same reuse, cuda", learner(args.seconds, big, torch.device("cuda"), False))
    if args.trainer_seconds:
        speeds: dict[str, list[float]] = {"this": [], "previous": []}
        for _ in range(args.rounds):
            speeds["this"].append(train_speed(args.trainer_seconds, "--device", "cpu", "--num-actors", "1"))
            if args.baseline:
                flags = ("--device", "cpu", "--num-actors", "1")
                speeds["previous"].append(train_speed(args.trainer_seconds, *flags, checkout=args.baseline))
        now = float(np.median(speeds["this"]))
        before = float(np.median(speeds["previous"])) if speeds["previous"] else None
        runs = ", ".join(f"{v:,.0f}" for v in speeds["this"]) + (
            "; previous " + ", ".join(f"{v:,.0f}" for v in speeds["previous"]) if before else ""
        )
        row("trainer", f"dmc_quick, 1 actor, cpu (runs: {runs})", now, before)
    cores = multiprocessing.cpu_count()
    alone = {stage: max(v for s, _, v, _ in rows if s == stage) for stage in ("actor", "transport", "learner")}
    alone["actors"] = alone.pop("actor") * max(cores - 1, 1)  # an actor process on every core but the learner's
    bound = min(alone, key=lambda stage: alone[stage])
    print(
        f"\nOn this machine ({cores} cores): the actors {alone['actors']:,.0f} agent-steps/s ({max(cores - 1, 1)} processes), "
        f"the transport {alone['transport']:,.0f}, the learner {alone['learner']:,.0f}: the whole is bound by the {bound}."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
