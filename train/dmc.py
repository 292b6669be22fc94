"""Deep Monte-Carlo self-play (in the manner of DouZero) for the whole game of Smear.

A Q-network scores every legal action from the acting seat's observation; its target
is the Monte-Carlo return of each decision: the team's score difference for the hand
the decision was made in (``target: hand``) or the game's outcome, +1/-1
(``target: game``). Games run in lockstep on the batched engine with epsilon-greedy,
batched network calls, in ``num_actors`` actor processes (``train.actors``) or in this
process. Opponents are drawn per game from a mix of the current network (self-play: all
four seats learn), past networks of the run (the pool) and any agents.

The learner keeps its replay where it learns (``device``): observations packed to 80 bytes
(``smear_nets.packed``), sampled and unpacked there, so a gradient step copies nothing from the host
and waits for nothing on it (the losses are read once a round, not once a step). The actors
and the learner run at once; the learner takes ``updates_per_step`` gradient steps of
``batch_size`` decisions per batched step the actors make, waiting for them or they for it,
so each decision is sampled about ``updates_per_step * batch_size / num_envs`` times whatever
the speeds (logged as ``charts/reuse``). The actors get the learner's weights, in place,
every ``publish_every`` gradient steps.

Run: ``python -m train.dmc --config dmc_quick [--FIELD VALUE ...]``;
``--resume runs/NAME`` continues a run from its last checkpoint. From Python:
``train.dmc.train(Config(...))`` returns the run folder.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812 - the usual alias

from agents.chances import Chances
from smear_env import OBS_DIM
from smear_nets import NetworkSpec, SuitShuffle, build_network, load_checkpoint, resolve_device
from smear_nets.device import choose_precision
from smear_nets.packed import PACKED, pack, unpack
from smear_nets.shipped import weights_path
from smear_rl.cluster import need_ray

from .actors import ActorSettings, InProcess, LocalActors
from .config import RunConfig, Sizes, Start, main_of
from .opponents import load_opponents
from .run import Run, restore_rng_state, rng_state, seed_everything
from .teacher import TEMPERATURE, VALUE_WEIGHT, as_tensors, load_positions, teacher_loss


@dataclass
class Config(RunConfig):
    run_name: str = "dmc"
    """name of the run: its folder is runs_dir/run_name"""
    hidden: Sizes = (512, 512, 256)
    """hidden layer sizes of the Q-network"""
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
    target: Literal["hand", "game", "chance"] = "hand"
    """return of a decision: hand (the team's score difference for the hand), game (+1/-1 outcome) or chance (the change the hand makes to the team's chance of winning the game, from the table ``chances``)"""
    chances: str | None = None
    """target chance: a table of win chances by score and dealer (python -m train.chance_table --out FILE; win_chances: the shipped one)"""
    num_actors: int = 1
    """actors stepping games while this process learns (0: this process steps them too)"""
    actor_device: str | None = None
    """where the actors run the network for their games: auto, cpu, cuda or cuda:N (none: the learner's device)"""
    publish_every: int = 16
    """gradient steps between publications of the learner's weights to the actors (in place)"""
    backend: Literal["local", "ray"] = "local"
    """where actors run: local (processes on this machine) or ray (Ray actors on a cluster; pip install '.[ray]')"""
    ray_address: str | None = None
    """with backend ray: the cluster to join (e.g. 10.0.0.1:6379); none starts a local Ray"""
    init: str | None = None
    """start the Q-network from this checkpoint's weights (a path, or neural / dmc: a shipped network; its network must have these hidden sizes; a q_split network is trained on as one)"""
    teacher_positions: str | None = None
    """a train.distill positions folder: every gradient step also fits a batch of them to the teacher's values, so that self-play keeps a distilled network's card play"""
    teacher_weight: float = 1.0
    """weight of that loss (train.distill's: cross-entropy to the teacher's soft policy plus 0.1 x squared error) beside the Monte-Carlo loss"""
    learn_phases: tuple[Literal["bid", "trump", "discard", "play"], ...] = ("bid", "trump", "discard", "play")
    """the decisions the Monte-Carlo loss fits (e.g. bid trump discard: the contracts learnt again under a distilled network's card play, which teacher_positions keeps)"""
    anchor_weight: float = 0.0
    """weight of a squared-error pull of every action's value, relative to the action taken, towards the start network's (init's), beside the Monte-Carlo loss: the returns set the level, the start's ranking stays unless the returns keep saying otherwise (0: none)"""
    anchor_steps: int = 0
    """agent-steps after frozen_steps over which anchor_weight falls linearly to 0: held first, then let go, so that the returns decide more and more (0: it never falls)"""
    frozen_steps: int = 0
    """agent-steps at the start in which the games are played by the start network while the learner fits its values to their returns (policy evaluation); only then does the learner's policy play: a run from a distilled network starts from values calibrated to its own play"""
    precision: Literal["auto", "fp32", "bf16"] = "fp32"
    """the learner's and actors' arithmetic: fp32; bf16 (matrix products in bfloat16 under autocast, the weights and the loss in fp32: about 3x the gradient steps on a CPU with AMX, and on a GPU, but many times slower on a CPU without bf16 units); or auto: bf16 where the machine computes it faster (a GPU with bf16, a CPU with AMX or AVX-512 BF16, confirmed by a probe of a fraction of a second), else fp32; the log and config.yaml say which was chosen and why"""
    learning_rate_end: float | None = None
    """the learning rate at the end of decay_seconds of training, reached linearly from learning_rate (none: constant)"""
    decay_seconds: float = 0.0
    """seconds of training (resumed parts counted) over which the learning rate falls to learning_rate_end (0: max_seconds)"""
    max_grad_norm: float = 40.0
    """the largest norm of a gradient step (clipped to it)"""
    augment_suits: bool = False
    """learn each sampled decision under a random order of the suits (no rule names a suit: smear_env.symmetry), so that the network's values do not depend on which suit is which"""

    def validate(self) -> None:
        """Every field checked (the shared ones, then DMC's), with a message naming it and what is allowed."""
        super().validate()
        for name in ("batch_size", "buffer_size", "publish_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"config {name}={getattr(self, name)}: must be at least 1")
        for name in ("warmup", "num_actors", "frozen_steps", "anchor_steps"):
            if getattr(self, name) < 0:
                raise ValueError(f"config {name}={getattr(self, name)}: must be 0 or more")
        if self.learning_rate_end is not None:
            if not 0 < self.learning_rate_end <= self.learning_rate:
                raise ValueError(
                    f"config learning_rate_end={self.learning_rate_end}: above 0 and at most learning_rate={self.learning_rate}"
                )
            if not (self.decay_seconds or self.max_seconds):
                raise ValueError("config learning_rate_end: needs decay_seconds (or max_seconds), the time over which it falls")
        if self.decay_seconds < 0:
            raise ValueError(f"config decay_seconds={self.decay_seconds}: 0 or more")
        if not self.max_grad_norm > 0:
            raise ValueError(f"config max_grad_norm={self.max_grad_norm}: must be above 0")
        if not self.updates_per_step > 0:
            raise ValueError(f"config updates_per_step={self.updates_per_step}: must be above 0")
        if not 0 <= self.epsilon <= 1:
            raise ValueError(f"config epsilon={self.epsilon}: must be in [0, 1]")
        for name in ("teacher_weight", "anchor_weight"):
            if getattr(self, name) < 0:
                raise ValueError(f"config {name}={getattr(self, name)}: must be 0 or more")
        if self.anchor_weight > 0 and not self.init:
            raise ValueError(f"config anchor_weight={self.anchor_weight}: needs init, the network whose values it keeps close")
        if self.anchor_steps > 0 and not self.anchor_weight > 0:
            raise ValueError(f"config anchor_steps={self.anchor_steps}: needs anchor_weight above 0, the pull that falls")
        if not self.learn_phases or len(set(self.learn_phases)) < len(self.learn_phases):
            raise ValueError(f"config learn_phases={self.learn_phases}: one or more of bid, trump, discard, play, each once")
        if (self.target == "chance") != bool(self.chances):
            raise ValueError(
                f"config target={self.target!r}, chances={self.chances!r}: target chance needs chances (a table from "
                "python -m train.chance_table), and chances is for target chance only"
            )
        if self.backend == "ray" and self.num_actors < 1:
            raise ValueError(f"config num_actors={self.num_actors}: backend ray needs at least 1 actor")

    def learning_rate_at(self, seconds: float) -> float:
        """The learning rate after ``seconds`` of training: learning_rate, falling linearly to learning_rate_end."""
        if self.learning_rate_end is None:
            return self.learning_rate
        span = self.decay_seconds or self.max_seconds
        done = min(1.0, max(0.0, seconds / span))
        return self.learning_rate + done * (self.learning_rate_end - self.learning_rate)

    def anchor_at(self, step: int) -> float:
        """The anchor's weight at agent-step ``step``: anchor_weight until frozen_steps, then falling over anchor_steps."""
        if not self.anchor_steps:
            return self.anchor_weight
        return self.anchor_weight * min(1.0, max(0.0, 1.0 - (step - self.frozen_steps) / self.anchor_steps))


class Replay:
    """The newest ``size`` decisions, kept on ``device`` (packed observations, action, return) and sampled there
    with a generator of its own on that device: a batch never crosses from the host."""

    def __init__(self, size: int, device: torch.device, seed: int) -> None:
        self.obs = torch.zeros((size, PACKED), dtype=torch.uint8, device=device)
        self.action = torch.zeros(size, dtype=torch.int64, device=device)
        self.ret = torch.zeros(size, dtype=torch.float32, device=device)
        self.generator = torch.Generator(device=device)
        self.generator.manual_seed(seed)
        self.device, self.size, self.next, self.full = device, size, 0, False

    def _to_device(self, array: np.ndarray) -> torch.Tensor:
        tensor = torch.from_numpy(array if array.flags.writeable else array.copy())  # Ray's blocks arrive read-only
        if self.device.type == "cuda":  # from pinned memory the copy is asynchronous
            return tensor.pin_memory().to(self.device, non_blocking=True)
        return tensor.to(self.device)

    def add(self, obs: np.ndarray, action: np.ndarray, ret: np.ndarray) -> None:
        """Decisions: ``obs`` packed (``smear_nets.packed.pack``), their actions and returns; the oldest make room."""
        obs, action, ret = obs[-self.size :], action[-self.size :], ret[-self.size :]
        n = len(action)
        if not n:
            return
        rows = (self.next + torch.arange(n)) % self.size
        rows = rows.to(self.device)
        self.obs.index_copy_(0, rows, self._to_device(obs))
        self.action.index_copy_(0, rows, self._to_device(action.astype(np.int64, copy=False)))
        self.ret.index_copy_(0, rows, self._to_device(ret.astype(np.float32, copy=False)))
        self.full |= self.next + n >= self.size
        self.next = (self.next + n) % self.size

    def __len__(self) -> int:
        return self.size if self.full else self.next

    def sample(self, n: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``n`` decisions drawn uniformly: observations (unpacked), actions, returns, all on the device."""
        idx = torch.randint(len(self), (n,), device=self.device, generator=self.generator)
        return unpack(self.obs[idx]), self.action[idx], self.ret[idx]


class TeacherBatches:
    """Batches of a train.distill positions folder, kept and drawn on ``device`` by a generator of their own
    (saved in checkpoints, so a resumed run draws what it would have drawn): observations, the teacher's
    values, legal actions."""

    def __init__(self, folder: str, device: torch.device, seed: int):
        try:
            data = load_positions([Path(folder)])
        except ValueError as e:
            raise ValueError(f"config teacher_positions={folder!r}: {e}") from None
        if data["obs"].shape[1] != OBS_DIM:
            raise ValueError(f"config teacher_positions={folder!r}: observations of {data['obs'].shape[1]} values, not {OBS_DIM}")
        obs, goal, legal = as_tensors(data)
        self.device = device
        self.packed = torch.from_numpy(pack(obs.numpy())).to(device)
        self.goal, self.legal = goal.to(device), legal.to(device)
        self.generator = torch.Generator(device=device)
        self.generator.manual_seed(seed)

    def __call__(self, n: int) -> tuple[torch.Tensor, ...]:
        rows = torch.randint(len(self.packed), (n,), device=self.device, generator=self.generator)
        return unpack(self.packed[rows]), self.goal[rows], self.legal[rows]


def dmc_loss(
    q: torch.nn.Module,
    batch: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    anchor: torch.nn.Module | None,
    pull: float,
    taught: Callable[[int], tuple[torch.Tensor, ...]] | None,
    config: Config,
) -> dict[str, torch.Tensor]:
    """A gradient step's losses: ``q_loss``, the whole (the Monte-Carlo loss, plus the anchor's pull towards the
    start network's ranking of the actions and the teacher's loss where the config asks for them), and each of
    those two parts on its own."""
    b_obs, b_act, b_ret = batch
    outputs = q(b_obs).float()
    value = outputs.gather(1, b_act[:, None])
    losses = {"q_loss": F.mse_loss(value.squeeze(1), b_ret)}
    if anchor is not None and pull > 0:  # the start's values relative to the action taken (its ranking)
        with torch.no_grad():
            kept = anchor(b_obs)
            kept = kept - kept.gather(1, b_act[:, None])
        losses["anchor_loss"] = F.mse_loss(outputs - value, kept)
        losses["q_loss"] = losses["q_loss"] + pull * losses["anchor_loss"]
    if taught is not None:
        t_obs, t_goal, t_legal = taught(config.batch_size)
        losses["teacher_loss"] = teacher_loss(q(t_obs).float(), t_goal, t_legal, TEMPERATURE, VALUE_WEIGHT)
        losses["q_loss"] = losses["q_loss"] + config.teacher_weight * losses["teacher_loss"]
    return losses


def gradient_step(
    q: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    batch: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    anchor: torch.nn.Module | None,
    pull: float,
    taught: Callable[[int], tuple[torch.Tensor, ...]] | None,
    config: Config,
    shuffle: SuitShuffle | None = None,
    generator: torch.Generator | None = None,
) -> dict[str, torch.Tensor]:
    """The learner's one gradient step on ``batch`` (replayed decisions): the suits shuffled (``augment_suits``),
    :func:`dmc_loss` under the config's precision, the gradient clipped to ``max_grad_norm``; its losses, left
    on the device (reading them would wait for it)."""
    if shuffle is not None:
        batch = (*shuffle(batch[0], batch[1], generator), batch[2])
    with torch.autocast(batch[0].device.type, dtype=torch.bfloat16, enabled=config.precision == "bf16"):
        losses = dmc_loss(q, batch, anchor, pull, taught, config)
    optimizer.zero_grad(set_to_none=True)
    losses["q_loss"].backward()
    torch.nn.utils.clip_grad_norm_(q.parameters(), config.max_grad_norm, foreach=True)
    optimizer.step()
    return {name: value.detach() for name, value in losses.items()}


def make_actors(config: Config, settings: ActorSettings, q: torch.nn.Module, seeds: list[int]):
    """The transport of the config: Ray actors, actor processes, or this process."""
    if config.backend == "ray":
        from .ray_actors import RayActors  # Ray is imported only on this path (train() checked it is there)

        return RayActors(settings, q, seeds, config.ray_address)
    if config.num_actors:
        return LocalActors(settings, q, seeds)
    return InProcess(settings, q, seeds[0])


class Learner:
    """The learning side of a run, one round at a time: the Q-network, its optimizer and replay, the pool of its
    past networks, and the counters a resumed run takes back (:meth:`state`)."""

    def __init__(self, config: Config, run: Run, q: torch.nn.Module, rng: Any, taught: TeacherBatches | None) -> None:
        self.config, self.run, self.q, self.rng, self.taught = config, run, q, rng, taught
        self.anchor = copy.deepcopy(q).eval() if config.anchor_weight > 0 else None  # the start's values, frozen
        self.optimizer = torch.optim.Adam(q.parameters(), lr=config.learning_rate)
        self.updates, self.pool = 0, []
        if run.resumed:
            extra = run.resumed.extra
            q.load_state_dict(run.resumed.model)
            self.optimizer.load_state_dict(extra["optimizer"])
            self.updates = extra["updates"]
            self.pool = list(zip(extra["pool"], extra["pool_steps"], strict=True))
            restore_rng_state(rng, extra["rng"])
        device = next(q.parameters()).device
        self.replay = Replay(config.buffer_size, device, config.seed + run.step)
        self.shuffle = SuitShuffle(device) if config.augment_suits else None
        if run.resumed and "replay_rng" in run.resumed.extra:
            self.replay.generator.set_state(run.resumed.extra["replay_rng"])
        if run.resumed and taught is not None and "teacher_rng" in run.resumed.extra:
            taught.generator.set_state(run.resumed.extra["teacher_rng"])
        # Sums of the round's losses, kept on the device (read once a round: no wait for the device per step).
        self.sums = {name: torch.zeros((), device=device) for name in ("q_loss", "anchor_loss", "teacher_loss")}
        self.counted = {name: 0 for name in self.sums}
        self.published, self.added, self.sampled = self.updates, 0, 0
        self.finished: list[float] = []
        self.pull = 0.0  # the anchor's weight at the round's step

    def state(self) -> dict:
        """What a resumed run needs beside the network: the optimizer, the counters and every generator."""
        taught_rng = {} if self.taught is None else {"teacher_rng": self.taught.generator.get_state()}
        return dict(optimizer=self.optimizer.state_dict(), updates=self.updates, rng=rng_state(self.rng),
                    replay_rng=self.replay.generator.get_state(), pool=[s for s, _ in self.pool],
                    pool_steps=[t for _, t in self.pool], **taught_rng)  # fmt: skip

    def target_updates(self, step: int) -> int:
        """The gradient steps due by agent-step ``step``: ``updates_per_step`` a batched step of the games."""
        return int((step // self.config.num_envs) * self.config.updates_per_step)

    def collect(self, actors: Any) -> int:
        """The actors' decisions with their returns into the replay (waiting for them only while the learner is
        ahead or the replay still warms up); the agent-steps they made."""
        learning = len(self.replay) >= self.config.warmup
        steps, replaced = 0, actors.replaced
        for block in actors.collect(wait=not learning or self.updates >= self.target_updates(self.run.step)):
            self.replay.add(block.obs, block.actions, block.returns)  # the actors kept only the learn_phases
            self.added += len(block.actions)
            steps += block.steps
            self.finished.extend(block.finished)
        if actors.replaced > replaced:
            self.run.say(f"an actor died: replaced ({actors.replaced} so far); training goes on")
        return steps

    def learn(self, actors: Any, steps: int) -> None:
        """The gradient steps due after ``steps`` more agent-steps, the weights published to the actors every
        ``publish_every`` of them (not while the start network plays: ``frozen_steps``)."""
        config, run = self.config, self.run
        target = self.target_updates(run.step + steps)
        if len(self.replay) < config.warmup:
            self.updates = target
        self.pull = config.anchor_at(run.step)
        for group in self.optimizer.param_groups:
            group["lr"] = config.learning_rate_at(run.seconds())
        frozen = run.step + steps < config.frozen_steps  # until then the start network plays (policy evaluation)
        while self.updates < target:
            batch = self.replay.sample(config.batch_size)
            losses = gradient_step(
                self.q, self.optimizer, batch, self.anchor, self.pull, self.taught, config, self.shuffle, self.replay.generator
            )
            self.updates += 1
            self.sampled += config.batch_size
            for name, value in losses.items():
                self.sums[name] += value
                self.counted[name] += 1
            if not frozen and self.updates - self.published >= config.publish_every:
                actors.publish(self.q)  # in place: the actors take it at their next block
                self.published = self.updates

    def scalars(self) -> dict[str, float]:
        """The round's figures for the log and TensorBoard (the round's one wait for the device)."""
        scalars = {"charts/replay_size": float(len(self.replay)), "charts/updates": float(self.updates)}
        for name, total in self.sums.items():
            if self.counted[name]:
                scalars[f"losses/{name}"] = total.item() / self.counted[name]
                total.zero_()
                self.counted[name] = 0
        scalars["charts/learning_rate"] = self.optimizer.param_groups[0]["lr"]
        if "losses/anchor_loss" in scalars:
            scalars["charts/anchor_weight"] = self.pull
        if self.added:
            scalars["charts/reuse"] = self.sampled / self.added  # samples drawn per decision taken in, since the start
        if self.finished:
            scalars["charts/episode_return_team0"] = float(np.mean(self.finished))
            self.finished.clear()
        return scalars

    def keep(self, actors: Any, report: Callable[[dict[str, Any]], None] | None) -> None:
        """What falls due: a past network into the pool (and to the actors), an evaluation, a checkpoint."""
        config, run = self.config, self.run
        if run.due("pool", config.pool_every):
            self.pool.append(({k: v.detach().cpu().clone() for k, v in self.q.state_dict().items()}, run.step))
            del self.pool[: -config.pool_size]
            actors.remember(*self.pool[-1])
        if run.due("eval", config.eval_every):
            run.evaluate(self.q, report)
        if run.checkpoint_due():
            run.checkpoint(self.q, **self.state())


def train(config: Config, start: Start | None = None, report: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """Train a Q-network as the config says; returns the run folder. ``report`` gets each evaluation's result."""
    start = start or Start()
    # ---------------------------------------------------------------- everything checked before anything starts
    device = resolve_device(config.device)
    load_opponents(config.opponents, config.rules)
    if config.backend == "ray":
        need_ray("config backend='ray'")
    start_from = load_checkpoint(weights_path(config.init)) if config.init else None
    split = start_from is not None and start_from.network.kind == "q_split"  # trained on as it is: both bodies
    spec = NetworkSpec("q_split" if split else "q", config.hidden)
    if start_from is not None and start_from.network != spec:
        raise ValueError(f"config init={config.init!r}: its network {start_from.network} is not this run's {spec}")
    taught = TeacherBatches(config.teacher_positions, device, config.seed) if config.teacher_positions else None
    if config.chances:
        Chances.load(config.chances)  # a ValueError naming the file before anything runs
    torch.set_num_threads(config.torch_threads)
    precision, why = choose_precision(config.precision, device)  # after the threads: the probe runs as the learner will
    asked, config = config, dataclasses.replace(config, precision=precision)  # the run records what was asked
    rng = seed_everything(config.seed)

    with Run(asked, start, spec, precision=(precision, why)) as run:
        # ---------------------------------------------------------------- the network and the learner (resumed)
        q = build_network(spec).to(device)
        if start_from is not None:
            q.load_state_dict(start_from.model)
        learner = Learner(config, run, q, rng, taught)

        # ---------------------------------------------------------------- games: actor processes, or this process
        # A resumed run deals new games: their seeds follow the step reached.
        seeds = [
            int(np.random.SeedSequence([config.seed, run.step, i]).generate_state(1)[0]) for i in range(max(config.num_actors, 1))
        ]
        actors = make_actors(config, ActorSettings.of(config, spec), q, seeds)
        if config.backend == "ray":
            places = actors.where()
            pids = ", ".join(str(place["pid"]) for place in places)
            run.say(f"{len(seeds)} Ray actor(s) on {len({place['node'] for place in places})} node(s) (process ids {pids})")
        for state, step in learner.pool:
            actors.remember(state, step)

        # ---------------------------------------------------------------- the rounds: collect, learn, log, keep
        steps_at_start, started = run.step, run.start_clock()
        try:
            while run.running():
                steps = learner.collect(actors)  # decisions with their returns -> replay
                learner.learn(actors, steps)  # gradient steps; the weights published to the actors
                speed = (run.step + steps - steps_at_start) / max(time.time() - started, 1e-9)
                run.advance(steps, learner.scalars(), speed)  # the log line and TensorBoard
                learner.keep(actors, report)  # the pool, an evaluation, a checkpoint, as they fall due
        finally:
            actors.close()

        speed = (run.step - steps_at_start) / max(time.time() - started, 1e-9)
        run.finish(q, report, speed, **learner.state())
    return run.folder


def main(argv: list[str] | None = None) -> int:
    return main_of(Config, train, argv, __doc__.splitlines()[0], prog="python -m train.dmc")


if __name__ == "__main__":
    sys.exit(main())
