"""Distil the ``search`` agent into a network: the search's card play at network speed.

    python -m train.distill --out runs/distill --generate-minutes 20 --fit-minutes 7 [--workers 2] [--seed 1]

1. **Generate** (``--workers`` processes for ``--generate-minutes``): games in lockstep on the
   batched engine, every seat played by the start network (``--init``, by default the shipped
   ``neural``). At a share ``--label-rate`` of the decisions with a choice, the teacher
   (``--teacher``, by default ``search``) judges every legal action (``SearchAgent.scores``: in
   the card play its blend of search and network values, elsewhere the network's Q) and its best
   action is played, so the games drift towards the teacher's. The positions are the ones the
   student meets, labelled by the teacher (as in DAgger). Shards go to ``OUT/positions/``.
2. **Fit** (``--fit-minutes``): the Q-network, starting from the start network's weights, learns
   the teacher's values of the legal actions: cross-entropy to them as a soft policy at
   ``--temperature`` points (their ranking, which is what play uses; the values of a card-play
   decision often differ by hundredths of a point) plus ``--value-weight`` times their squared
   error (which keeps the values in points). On held-out positions (``--held-out``) it measures
   the **regret**: the teacher's value of its best action less its value of the action the
   network plays, per decision, for the start network and the student; the student with the
   lowest regret over all held-out decisions seen is kept.

``OUT/checkpoint.pt`` is an ordinary ``q`` checkpoint: play it as ``neural:OUT/checkpoint.pt``,
or continue with self-play (``python -m train.dmc --init OUT/checkpoint.pt ...``).
``--fit-only`` fits again on the positions already in ``OUT`` (e.g. with other settings);
``--positions DIR`` adds another run's positions (an earlier DAgger round's: the next round plays
with ``--init`` the last student); the held-out positions are drawn from the first folder only
(``OUT``'s own), since an earlier round's may have trained the start network. ``--hidden 512,512``
fits a wider student than the start network, started from the start's own function
(``smear_nets.widen``, Net2Net's wider operator). Expert iteration: ``--teacher
search:net=STUDENT,samples=40,seconds=0.2`` with ``--init STUDENT`` searches over the last
student's own values, so that each round's teacher is stronger (docs/search_and_distillation.md).
Contracts: ``--teacher search:net=STUDENT,rollouts=64,net_tricks=6 --label-rate 1`` values each
trump and discard by playing the hand out with the student at every seat over 64 deals
(``agents.rollouts``) and leaves the bids and the card play to the student's own values, which anchor them.
The game: ``--init chance --teacher search:net=chance,play_rollouts=64,mix=1,chances=win_chances --endgame 0.1
--label-rate 1`` teaches the card play valued by the win chance where the score makes it differ from the
hand's margin, in the hands that can end the game (a team within 4 points of the target, R13 and R15);
a share 0.1 of the other decisions is labelled with the student's own values, which hold its play there.
A ``q_split`` start (``chance``) keeps its two bodies: card-play labels move the card play's only.
The suits: ``--init chance --teacher "neural:chance,suits=24" --label-rate 1 --max-positions 1500000``
teaches a network its own values averaged over every order of the suits (``smear_nets.SuitMean``), the
ensemble's play at one network's speed: the shipped ``neural``. A network teacher labels about 5,000
positions a second a worker, so ``--max-positions`` keeps them within memory.
The oracle: ``--teacher oracle`` (``train.teacher.OracleTeacher``, training only) values every legal action by
playing the hand out on the true cards with the start network at every seat; the student's own choices are
played, and the fit is the squared error (``--policy-weight 0``; ``--mean-weight`` below 1 weighs a position's
level less than its ranking).
"""

from __future__ import annotations

import copy
import functools
import json
import multiprocessing
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tyro.conf import UseAppendAction

from agents import Agent, load_agent
from agents.neural import NeuralAgent
from smear_env import NUM_ACTIONS, Phase, Rules, SeatView, SmearVectorEnv, seat_view
from smear_env.files import atomic_write
from smear_nets import load_checkpoint, masked_argmax, save_checkpoint, widen
from smear_nets.shipped import weights_path

from .config import Sizes, cli, refuse
from .run import seed_everything
from .teacher import TEMPERATURE, VALUE_WEIGHT, OracleTeacher, as_tensors, load_oracle, load_positions, teacher_loss

PROG = "python -m train.distill"
UNJUDGED = np.float32(np.nan)  # an illegal action's target
HAND_POINTS = 4  # R13: High, Low, Jack and Game, the most a team can score in a hand


def is_oracle(spec: str) -> bool:
    """Whether ``--teacher`` names the teacher that sees every card (``train.teacher.OracleTeacher``)."""
    return spec == "oracle" or spec.startswith("oracle:")


def load_teacher(spec: str, rules: Rules) -> Agent:
    """The teacher of a spec, checked: it gives a value for each legal action and plays these rules."""
    teacher = load_agent(spec)
    if not hasattr(teacher, "scores"):
        raise ValueError(f"--teacher {spec}: the agent has no scores() (a value for each legal action)")
    teacher.check_rules(rules)
    return teacher


def endgame(view: SeatView, rules: Rules) -> bool:
    """Whether this hand can end the game: a team is within 4 points (R13's most in a hand) of the target (R15)."""
    return max(view.scores) >= rules.target_score - HAND_POINTS


class Positions:
    """Labelled positions held in memory until written (about 2.3 kB each): all at the end to ``out``, or in parts
    beside it, ``STEM-K.npz``, as they come (:meth:`write_part`; a kill loses at most the last part)."""

    KEYS = ("obs", "mask", "target", "phase")

    def __init__(self, out: Path) -> None:
        self.out, self.written, self.parts = out, 0, 0
        self.kept: dict[str, list[Any]] = {k: [] for k in self.KEYS}

    def __len__(self) -> int:
        """Positions labelled: written and held."""
        return self.written + len(self.kept["obs"])

    def add(self, obs: np.ndarray, mask: np.ndarray, target: np.ndarray, phase: np.ndarray) -> None:
        """Rows of positions (each argument's first axis)."""
        for key, rows in zip(self.KEYS, (obs.copy(), mask.astype(bool), target, phase.astype(np.int8)), strict=True):
            self.kept[key] += list(rows)

    def arrays(self) -> dict[str, Any]:
        return {k: np.stack(v) for k, v in self.kept.items()} if self.kept["obs"] else {}

    def write_part(self) -> None:
        if self.kept["obs"]:
            arrays = self.arrays()
            atomic_write(
                self.out.with_name(f"{self.out.stem}-{self.parts:04d}.npz"),
                lambda f: np.savez_compressed(f, **arrays),
                binary=True,
            )
            self.written += len(self.kept["obs"])
            self.parts += 1
            for v in self.kept.values():
                v.clear()

    def write_all(self) -> None:
        arrays = self.arrays()
        atomic_write(self.out, lambda f: np.savez_compressed(f, **arrays), binary=True)


@dataclass(frozen=True)
class Labelling:
    """How a worker of :func:`generate` plays and labels (``python -m train.distill``'s flags, or a recipe stage's)."""

    games: int = 64
    """games in lockstep"""
    label_rate: float = 0.5
    """share of the decisions with a choice the teacher labels, in (0, 1]"""
    own_rate: float | None = None
    """the teacher labels only the decisions of :func:`endgame` hands, the student's own values this share of the
    others (none: the teacher labels every hand)"""
    limit: int | None = None
    """stop at this many positions (none: at the time's end); they are held in memory until written, about 2.3 kB each"""
    chunk_seconds: float | None = None
    """write the positions every so many seconds, each part beside the output as ``STEM-K.npz`` (a kill loses at
    most the last part; none: once, at the end)"""


@dataclass(frozen=True)
class Fitting:
    """How :func:`fit` fits a network to the teacher's values."""

    held_out: float = 0.05
    """share of the positions kept out of the fit to measure it, in (0, 1)"""
    learning_rate: float = 1e-4
    """Adam's learning rate"""
    batch_size: int = 1024
    """positions per gradient step"""
    temperature: float = TEMPERATURE
    """temperature (points) of the teacher's soft policy"""
    value_weight: float = VALUE_WEIGHT
    """weight of the squared error to the teacher's values"""
    policy_weight: float = 1.0
    """weight of the cross-entropy to the teacher's soft policy (0: the squared error alone)"""
    mean_weight: float = 1.0
    """weight of the error of a position's mean value beside that of its ranking in the squared error"""
    check_every: int = 1000
    """gradient steps between measures on the held-out positions (the weights of least regret are kept)"""


def generate(out: Path, teacher_spec: str, init: Path, seconds: float, seed: int, labelling: Labelling = Labelling()) -> int:
    """One worker: play and label for ``seconds``; writes ``out`` (npz: obs, mask, target, phase); returns positions.

    As ``labelling`` says: with ``own_rate`` the teacher labels only the decisions of :func:`endgame` hands (at
    ``label_rate``) and the student's own values label a share ``own_rate`` of the others (free, and they hold
    its play there); it stops early at ``limit`` positions; with ``chunk_seconds`` the positions are written
    every so often (``train.recipe`` resumes from the parts written)."""
    games, label_rate, own_rate, limit, chunk_seconds = (
        labelling.games, labelling.label_rate, labelling.own_rate, labelling.limit, labelling.chunk_seconds
    )  # fmt: skip
    torch.set_num_threads(1)
    seed_everything(seed)
    rng = np.random.default_rng(seed)
    student = NeuralAgent(init, device="cpu")
    teacher: Agent | OracleTeacher = (
        load_oracle(teacher_spec, student) if is_oracle(teacher_spec) else load_teacher(teacher_spec, student.rules)
    )
    if not isinstance(teacher, OracleTeacher):  # the oracle draws nothing
        teacher.seed(seed)
    venv = SmearVectorEnv(games, seed=seed, reward="margin", copy=False, rules=student.rules)
    obs, info = venv.reset()
    positions = Positions(out)
    deadline = time.time() + seconds
    limit = limit or sys.maxsize
    next_part = time.time() + (chunk_seconds or seconds)
    while time.time() < deadline and len(positions) < limit:
        if chunk_seconds and time.time() >= next_part:
            positions.write_part()
            next_part = time.time() + chunk_seconds
        mask = info["action_mask"]
        actions = student.act_batch(obs, mask, None)
        choice = mask.sum(axis=1) > 1
        draws = rng.random(len(mask))
        if isinstance(teacher, OracleTeacher):  # it knows the cards: it labels, the student's own play goes on
            labelled = np.flatnonzero(choice & (draws < label_rate))[: limit - len(positions)]
            if len(labelled):
                positions.add(obs[labelled], mask[labelled], teacher.values(venv, labelled.tolist()), venv.phase[labelled])
            obs, _, _, _, info = venv.step(actions)
            continue
        for i in np.flatnonzero(choice & (draws < max(label_rate, own_rate or 0.0))).tolist():
            view = seat_view(venv.game(i), int(info["seat"][i]))
            taught = own_rate is None or endgame(view, student.rules)
            if draws[i] >= (label_rate if taught else own_rate):
                continue
            scores = (teacher if taught else student).scores(obs[i], mask[i], view)  # type: ignore[attr-defined]
            target = np.full(NUM_ACTIONS, UNJUDGED, dtype=np.float32)
            target[list(scores)] = list(scores.values())
            actions[i] = max(scores, key=scores.__getitem__)
            positions.add(obs[i : i + 1], mask[i : i + 1], target[None], np.array([view.phase]))
            if time.time() >= deadline or len(positions) >= limit:
                break
        obs, _, _, _, info = venv.step(actions)
    if chunk_seconds:
        positions.write_part()
        return positions.written
    positions.write_all()
    return len(positions)


class HeldOut:
    """The measure of a fit on its held-out positions (``rows`` of the data): the **regret**, the teacher's value
    of its best action less its value of the action the network plays, per decision (card play, and the rest),
    and how often the two choose alike."""

    def __init__(self, data: dict[str, np.ndarray], rows: np.ndarray) -> None:
        self.rows, self.mask = rows, data["mask"][rows]
        self.judged = np.where(self.mask, data["target"][rows], -np.inf)
        self.best = self.judged.argmax(axis=1)
        self.play = data["phase"][rows] == int(Phase.PLAY)

    def __call__(self, network: torch.nn.Module, obs: torch.Tensor) -> dict[str, float]:
        with torch.no_grad():
            chosen = masked_argmax(network(obs[self.rows]), self.mask)
        regret = self.judged.max(axis=1) - self.judged[np.arange(len(self.rows)), chosen]
        same = chosen == self.best

        def mean(x: np.ndarray) -> float:  # NaN where a small held-out set has no decision of the kind
            return float(x.mean()) if len(x) else float("nan")

        return {
            "regret": mean(regret),
            "regret_play": mean(regret[self.play]),
            "regret_other": mean(regret[~self.play]),
            "agreement_play": mean(same[self.play]),
            "agreement_other": mean(same[~self.play]),
        }


def fit(
    data: dict[str, np.ndarray],
    network: torch.nn.Module,
    seconds: float,
    seed: int,
    fitting: Fitting = Fitting(),
    own_positions: int | None = None,
    state_path: Path | None = None,
    targets: np.ndarray | None = None,
) -> tuple[torch.nn.Module, dict[str, float]]:
    """``network`` (the start, trained in place) on the teacher's values of the legal actions, as ``fitting`` says:
    cross-entropy to them as a soft policy at ``temperature`` (points; the teacher's ranking, which is what play
    uses) plus ``value_weight`` times their squared error (which keeps the values in points, for further DMC);
    ``policy_weight`` 0 fits the squared error alone (the oracle's values: their mean is wanted, not their vote),
    ``mean_weight`` weighs the error of a position's mean value against that of its ranking (``teacher_loss``).

    The held-out positions are drawn from the first ``own_positions`` rows only (this run's own:
    an earlier round's positions may have trained the start network, so they measure nothing), and
    measured by :class:`HeldOut`. Every ``fitting.check_every`` steps it is measured and the weights with the lowest
    regret over all held-out decisions so far are kept (the start's included): a teacher's knowledge
    may be in the card play (PIMC) or in the contracts (rollouts).

    With ``state_path`` the fit saves its state there at every check (the network, the optimizer, the weights
    kept, its generators and the seconds spent) and, if the file is there when it starts, goes on from it for
    the seconds left: a killed fit resumes where it was (``train.recipe``).

    ``targets``, where given, are the values fitted to in place of the teacher's ``data["target"]``
    (:func:`completed_values`); the held-out measure stays on the teacher's own."""
    held_out, batch, check_every = fitting.held_out, fitting.batch_size, fitting.check_every
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    n = len(data["obs"])
    own = n if own_positions is None else own_positions
    order = rng.permutation(own)
    cut = int(own * held_out)
    test, train = order[:cut], np.concatenate([order[cut:], np.arange(own, n)])
    obs, target, legal = as_tensors(data)
    if targets is not None:
        target = torch.from_numpy(np.nan_to_num(targets, nan=0.0))
    measure = HeldOut(data, test)
    network.train()
    before = measure(network, obs)
    optimizer = torch.optim.Adam(network.parameters(), lr=fitting.learning_rate)
    # what the fit carries from check to check (and across a kill, in ``state_path``)
    state: dict[str, Any] = dict(kept=copy.deepcopy(network.state_dict()), kept_regret=before["regret"], kept_step=0,
                                 steps=0, before=before, seconds=0.0)  # fmt: skip
    if state_path is not None and state_path.is_file():
        saved = torch.load(state_path, weights_only=False)
        network.load_state_dict(saved.pop("network"))
        optimizer.load_state_dict(saved.pop("optimizer"))
        rng.bit_generator.state = saved.pop("rng")
        torch.set_rng_state(saved.pop("torch_rng"))
        state.update(saved)
    started = time.time() - state["seconds"]
    while time.time() - started < seconds:
        rows = torch.from_numpy(rng.choice(train, size=min(batch, len(train)), replace=False))
        loss = teacher_loss(network(obs[rows]), target[rows], legal[rows], fitting.temperature, fitting.value_weight,
                            fitting.policy_weight, fitting.mean_weight)  # fmt: skip
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        state["steps"] += 1
        if state["steps"] % check_every == 0 or time.time() - started >= seconds:
            now = measure(network, obs)
            if now["regret"] < state["kept_regret"]:
                state.update(kept=copy.deepcopy(network.state_dict()), kept_regret=now["regret"], kept_step=state["steps"])
            state["seconds"] = time.time() - started
            if state_path is not None:
                whole = dict(state, network=network.state_dict(), optimizer=optimizer.state_dict(),
                             rng=rng.bit_generator.state, torch_rng=torch.get_rng_state())  # fmt: skip
                atomic_write(state_path, functools.partial(torch.save, whole), binary=True)
            print(f"{state['seconds']:6.0f} s  {state['steps']:,} steps  loss {loss.item():.3f}  held-out regret "
                  f"{now['regret']:.4f} ({now['regret_play']:.4f} play, {now['regret_other']:.4f} other)", flush=True)  # fmt: skip
    network.load_state_dict(state["kept"])
    network.eval()
    after = measure(network, obs)
    return network, {
        "positions": n,
        "held_out": int(cut),
        "steps": state["steps"],
        "kept_step": state["kept_step"],
        **{f"start_{k}": v for k, v in state["before"].items()},
        **{f"student_{k}": v for k, v in after.items()},
    }


def completed_values(network: torch.nn.Module, data: dict[str, np.ndarray], search_weight: float) -> np.ndarray:
    """The teacher's values of each position's judged actions mixed with ``network``'s own: ``search_weight``
    times the search's plus the rest times the network's (the network's prior reweighted by the search, with the
    network frozen for the round); unjudged actions stay unjudged (NaN)."""
    mixed = np.array(data["target"], dtype=np.float32, copy=True)
    network.eval()
    with torch.no_grad():
        for start in range(0, len(mixed), 8192):
            rows = slice(start, start + 8192)
            own = network(torch.from_numpy(data["obs"][rows].astype(np.float32, copy=False))).numpy()
            mixed[rows] = search_weight * mixed[rows] + (1 - search_weight) * own  # NaN stays NaN
    return mixed


@dataclass
class Config:
    """What ``python -m train.distill`` labels, with which teacher, and how it fits the student."""

    out: str
    """output folder: positions/, checkpoint.pt, distill.json"""
    teacher: str = "search"
    """the agent to imitate: any agent with scores() (with another --init, search:net=PATH to match)"""
    init: str = "neural"
    """the network that plays the games and that the student starts from (a path, or a shipped network's name)"""
    hidden: Sizes | None = None
    """the student's hidden layer sizes, e.g. 512 512 (none: the --init network's); wider than the init's, the student starts from the init's function (Net2Net: units copied)"""
    generate_minutes: float = 20.0
    """time the workers play and label"""
    fit_minutes: float = 7.0
    """time of the fit"""
    workers: int = 2
    """processes generating positions"""
    games: int = 64
    """games in lockstep in each worker"""
    label_rate: float = 0.5
    """share of the decisions with a choice the teacher labels, in (0, 1]"""
    max_positions: int | None = None
    """stop generating at this many positions (a fast teacher, a network, labels millions: about 2.3 kB each in memory)"""
    endgame: float | None = None
    """the teacher labels only the hands that can end the game (a team within 4 points of the target), the student's own values this share of the other decisions (they hold its play there)"""
    learning_rate: float = 1e-4
    """Adam learning rate of the fit"""
    batch_size: int = 1024
    """positions per gradient step"""
    temperature: float = TEMPERATURE
    """temperature (points) of the teacher's soft policy"""
    value_weight: float = VALUE_WEIGHT
    """weight of the squared error to the teacher's values"""
    policy_weight: float | None = None
    """weight of the cross-entropy to the teacher's soft policy (none: 1, or 0 with --teacher oracle: its values on each deal are averaged by the squared error, not voted on)"""
    mean_weight: float = 1.0
    """weight of the error of a position's mean value beside that of its ranking in the squared error (1: the plain squared error; lower fits the ranking of labels whose level is noisy, as the oracle's)"""
    held_out: float = 0.05
    """share of the positions kept out of the fit to measure it, in (0, 1)"""
    seed: int = 0
    """seed of the games and of the fit"""
    fit_only: bool = False
    """fit on the positions already in --out (no generation)"""
    positions: UseAppendAction[tuple[Path, ...]] = ()
    """another run's positions folder to fit on as well (e.g. an earlier DAgger round's)"""

    def __post_init__(self) -> None:
        """The checks that need nothing but the values; main makes those that read files."""
        if self.endgame is not None and is_oracle(self.teacher):
            raise ValueError(f"--endgame with --teacher {self.teacher}: the oracle labels every hand alike (leave --endgame out)")
        if self.endgame is not None and not 0 <= self.endgame <= 1:
            raise ValueError(f"--endgame {self.endgame}: the share of the other decisions the student labels, in [0, 1]")
        if not 0 < self.label_rate <= 1 or not 0 < self.held_out < 1:
            raise ValueError(f"--label-rate {self.label_rate} must be in (0, 1] and --held-out {self.held_out} in (0, 1)")
        if not self.temperature > 0 or self.value_weight < 0 or (self.policy_weight or 0) < 0:
            raise ValueError(
                f"--temperature {self.temperature} must be above 0, --value-weight {self.value_weight} and "
                f"--policy-weight {self.policy_weight} 0 or more"
            )
        if self.policy_weight is None:
            self.policy_weight = 0.0 if is_oracle(self.teacher) else 1.0
        if self.mean_weight < 0:
            raise ValueError(f"--mean-weight {self.mean_weight}: 0 or more")
        if self.policy_weight == 0 and self.value_weight == 0:
            raise ValueError("--policy-weight 0 and --value-weight 0: the fit would learn nothing")
        if self.max_positions is not None and self.max_positions < self.workers:
            raise ValueError(f"--max-positions {self.max_positions}: at least one a worker ({self.workers})")
        if min(self.workers, self.games, self.batch_size) < 1 or min(self.generate_minutes, self.fit_minutes) <= 0:
            raise ValueError("--workers, --games, --batch-size must be at least 1 and the minutes above 0")

    def labelling(self) -> Labelling:
        """How each worker labels: ``max_positions`` shared among the workers."""
        limit = None if self.max_positions is None else -(-self.max_positions // self.workers)
        return Labelling(games=self.games, label_rate=self.label_rate, own_rate=self.endgame, limit=limit)

    def fitting(self) -> Fitting:
        return Fitting(
            held_out=self.held_out, learning_rate=self.learning_rate, batch_size=self.batch_size, temperature=self.temperature,
            value_weight=self.value_weight, policy_weight=self.policy_weight or 0.0, mean_weight=self.mean_weight,
        )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    config = cli(Config, argv, __doc__.splitlines()[0], PROG)
    out = Path(config.out)
    try:
        start = load_checkpoint(weights_path(config.init))
        if start.network.kind not in ("q", "q_split"):
            raise ValueError(f"--init {config.init}: a q or q_split network (DMC) is needed, not {start.network.kind!r}")
        if start.network.kind == "q_split" and config.hidden is not None:
            raise ValueError(f"--hidden {config.hidden}: widens a q network only, and --init {config.init} is a q_split")
        student, student_spec = start.build("cpu"), start.network
        if config.hidden is not None:
            student, student_spec = widen(student, student_spec, config.hidden, seed=config.seed)
        for folder in config.positions:
            if not folder.is_dir():
                raise ValueError(f"--positions {folder}: no such folder (a distill run's positions/)")
        if config.fit_only and not (out / "positions").is_dir() and not config.positions:
            raise ValueError(f"--fit-only: {out / 'positions'} does not exist and no --positions given; generate first")
        if not config.fit_only:
            if out.exists():
                raise ValueError(f"{out} exists: give another --out (or --fit-only to fit again on its positions)")
            if is_oracle(config.teacher):
                load_oracle(config.teacher, NeuralAgent(weights_path(config.init), device="cpu"))
            else:
                load_teacher(config.teacher, start.rules)
    except ValueError as e:
        refuse(PROG, str(e))
    if (out / "checkpoint.pt").exists():
        refuse(PROG, f"{out / 'checkpoint.pt'} exists: move it away to fit again")

    if not config.fit_only:
        shards = out / "positions"
        shards.mkdir(parents=True)
        print(f"generating: {config.workers} workers x {config.generate_minutes} minutes, teacher {config.teacher}", flush=True)
        try:
            # Spawned, not forked: a fork after torch or numba started their threads can deadlock the children.
            with ProcessPoolExecutor(config.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
                futures = [
                    pool.submit(generate, shards / f"shard{w}.npz", config.teacher, weights_path(config.init),
                                60 * config.generate_minutes, config.seed * 1000 + w, config.labelling())
                    for w in range(config.workers)
                ]  # fmt: skip
                made = sum(f.result() for f in futures)
        except BaseException:
            shutil.rmtree(out)  # the folder is this run's own: nothing half-made stays behind
            raise
        settings = {"teacher": config.teacher, "init": str(config.init), "generate_minutes": config.generate_minutes,
                    "workers": config.workers, "games": config.games, "label_rate": config.label_rate, "endgame": config.endgame, "max_positions": config.max_positions, "seed": config.seed}  # fmt: skip
        atomic_write(shards / "generated.json", lambda f: json.dump({**settings, "positions": made}, f, indent=2))
        print(f"positions: {made:,}", flush=True)
    folders = ([out / "positions"] if (out / "positions").is_dir() else []) + list(config.positions)
    data = load_positions(folders)
    own = sum(len(np.load(p).get("phase", ())) for p in folders[0].glob("*.npz"))  # held out from these only
    print(f"fitting on {len(data['obs']):,} positions for {config.fit_minutes} minutes", flush=True)
    seed_everything(config.seed)
    torch.set_num_threads(2)
    network, report = fit(data, student, 60 * config.fit_minutes, config.seed, config.fitting(), own_positions=own)
    made_by = [{"folder": str(f), **json.loads((f / "generated.json").read_text())}
               for f in folders if (f / "generated.json").exists()]  # fmt: skip
    summary: dict[str, Any] = dict(report)
    summary.update(generated=made_by,
                  fit_minutes=config.fit_minutes, learning_rate=config.learning_rate, value_weight=config.value_weight,
                  policy_weight=config.policy_weight or 0.0, mean_weight=config.mean_weight,
                  temperature=config.temperature, hidden=list(student_spec.hidden))  # fmt: skip
    save_checkpoint(out / "checkpoint.pt", student_spec, start.rules, network.state_dict(), distill=summary)
    atomic_write(out / "distill.json", lambda f: json.dump(summary, f, indent=2))
    print(json.dumps(summary, indent=2))
    print(f"wrote {out / 'checkpoint.pt'}: play it with neural:{out / 'checkpoint.pt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
