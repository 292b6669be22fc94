"""The recipe's stages (``python -m train.recipe``): each a part that holds its own typed settings (a field of the
recipe's config: ``--exit.teacher``, ``exit: {teacher: ...}`` in YAML) and runs, given the run it is part of
(:class:`Context`) and its deadline on the run's clock.

A stage's **number** is its own, fixed when the stage is written, never its place in a recipe: its folder is
``stages/N-NAME/``, its network ``networks/N-NAME.pt``, and its random streams are drawn with ``N - 1``. A
stage added to a recipe, or left out of one, moves no other stage's folder, network or seed, and a run
started before resumes. A new stage is a class here with the next free number, listed in :data:`KINDS`,
and a field of ``train.recipe.Config`` of its name.
"""

from __future__ import annotations

import dataclasses
import json
import math
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

import numpy as np
import torch
import yaml
from torch.utils.tensorboard import SummaryWriter

from agents.chances import Chances
from smear_env import Rules
from smear_env.files import atomic_write
from smear_nets import NetworkSpec, build_network, joined, load_checkpoint, save_checkpoint
from smear_rl.cmdline import Flat

from . import beliefs, chance_table, distill, dmc
from .config import RunFields, Sizes, Start, check_types, checked, find_config, from_mapping, unchecked


@dataclass
class Shared(RunFields):
    """The recipe's settings that its stages read: the run's seed and rules, the machine's workers and devices."""

    seed: int = 1
    """seed of every stage (each its own stream from it) and of the final matches' deal sets"""
    max_positions: int = 1_500_000
    """most positions a distillation stage labels (about 2.3 kB each in memory)"""
    distill_learning_rate: float = 1e-4
    """the distillation stages' learning rate"""
    workers: int = 2
    """processes that label positions in the distillation stages"""
    device: str | None = None
    """where the DMC stages' learners run: auto, cpu, cuda, cuda:N (none: their configs')"""
    actor_device: str | None = None
    """where the DMC stages' actors run their network (none: their configs')"""
    num_actors: int | None = None
    """DMC actors (none: the stage configs'); on a bigger machine, more"""
    backend: Literal["local", "ray"] | None = None
    """where DMC's actors run: local or ray (none: the stage configs')"""
    ray_address: str | None = None
    """with backend ray: the cluster to join"""
    rules: Flat[Rules] = dataclasses.field(default_factory=Rules)
    """the rule settings every stage plays under"""

    def validate(self) -> None:
        super().validate()
        for name in ("max_positions", "workers"):
            if getattr(self, name) < 1:
                raise ValueError(f"config {name}={getattr(self, name)}: at least 1")
        if not self.distill_learning_rate > 0:
            raise ValueError(f"config distill_learning_rate={self.distill_learning_rate}: above 0")
        if self.num_actors is not None and self.num_actors < 0:
            raise ValueError(f"config num_actors={self.num_actors}: 0 or more")


class Context(Protocol):
    """What a stage is given of the run it is part of (``train.recipe.Recipe``)."""

    @property
    def config(self) -> Shared: ...
    @property
    def folder(self) -> Path: ...
    @property
    def writer(self) -> SummaryWriter: ...
    def clock(self) -> float:
        """The run's own time in seconds (counted across resumes)."""

    def say(self, line: str) -> None:
        """A line on the console and in the run's log."""

    def current(self) -> Path | None:
        """The network the last finished stage made (``init`` before any; None: neither)."""

    def start_network(self) -> Path:
        """The network a stage starts from: :meth:`current`, or random weights (written once)."""

    def network(self, stage: str, part: str = "") -> Path:
        """Where ``stage``'s network (or one of its rounds', ``part``) is written."""

    def stage_folder(self, stage: str) -> Path:
        """``stage``'s own folder of the run."""

    def begin(self, stage: str) -> float:
        """Where ``stage``'s share of the budget begins on the run's clock."""

    def made(self, stage: str) -> Path:
        """What a finished stage made."""

    def hold(self, path: Path) -> None:
        """What the snapshots copy from now on (once it exists; else what they copied)."""


@dataclass
class Stage:
    """A stage: its settings are the dataclass's fields; :meth:`run` does it."""

    name: ClassVar[str]
    number: ClassVar[int]
    """the stage's own number (its folders' prefix, its seeds' stream): fixed, never its place in a recipe"""
    makes_network: ClassVar[bool] = True
    """whether what it makes is a network (the table is a table of win chances: the network held stays)"""

    def __post_init__(self) -> None:
        if checked():
            self.validate()

    def validate(self) -> None:
        """Every field checked, with a message naming it (``exit.fit_share``) and what is allowed."""
        check_types(self, f"{self.name}.")

    def refuse(self, field: str, message: str) -> None:
        raise ValueError(f"config {self.name}.{field}={getattr(self, field)!r}: {message}")

    def needs(self) -> tuple[str, ...]:
        """The stages whose output it reads: each must run before it."""
        return ()

    def prepare(self) -> None:
        """The checks that read files (a config the stage names), made before the run starts."""

    @property
    def stream(self) -> int:
        """The offset of the stage's random streams: ``number - 1``."""
        return self.number - 1

    def run(self, run: Context, deadline: float) -> Path:
        """Do the stage until ``deadline`` on the run's clock (resuming what a kill left); returns what it made."""
        raise NotImplementedError


@dataclass
class DMCStage(Stage):
    """A stage that trains by DMC (``train.dmc``) with the config it names, its time, seed and rules the run's."""

    config: str = ""
    """the DMC config: a built-in name or a YAML file (its run_name, seed, rules and time are the recipe's)"""

    def prepare(self) -> None:
        self.values()

    def values(self) -> dict[str, Any]:
        """The values of the DMC config the stage names."""
        values = yaml.safe_load(find_config(self.config).read_text()) or {}
        if not isinstance(values, dict):
            raise ValueError(f"config {self.name}.config={self.config!r}: not a mapping of DMC config fields")
        return values

    def dmc_config(
        self, run: Context, deadline: float, init: str | None = None, hidden: tuple[int, ...] | None = None,
        chances: str | None = None, folder: Path | None = None, seed_offset: int = 0, since: float | None = None,
    ) -> dmc.Config:  # fmt: skip
        """The stage's DMC config: the file's, then the recipe's machine settings, the stage's own folder (or
        ``folder``, a round's) and seed (``seed * 100 + stream``, plus ``seed_offset``), its time to ``deadline`` (a
        learning rate that decays does so over the stage's whole time, or from ``since``, a round's start), and
        ``init``, ``hidden``, ``chances`` if given."""
        with unchecked():  # checked once, with the recipe's values in
            base = from_mapping(dmc.Config, self.values())
        shared, folder = run.config, folder or run.stage_folder(self.name)
        decay = base.decay_seconds
        if base.learning_rate_end is not None and not decay:
            decay = max(1.0, deadline - (run.begin(self.name) if since is None else since))  # resumes and all
        return dataclasses.replace(
            base, rules=shared.rules, run_name=folder.name, runs_dir=str(folder.parent),
            seed=shared.seed * 100 + self.stream + seed_offset, max_seconds=max(1.0, deadline - run.clock()), total_steps=10**15,
            decay_seconds=decay, device=shared.device or base.device, actor_device=shared.actor_device or base.actor_device,
            num_actors=base.num_actors if shared.num_actors is None else shared.num_actors,
            backend=shared.backend or base.backend, ray_address=shared.ray_address or base.ray_address,
            init=base.init if init is None else init, hidden=base.hidden if hidden is None else hidden,
            chances=base.chances if chances is None else chances,
        )  # fmt: skip

    def train(self, run: Context, config: dmc.Config, made: Path | None = None) -> Path:
        """DMC as ``config`` says (resumed from the checkpoint of its folder if it has one); the network it made
        (at ``made``, else the stage's network)."""
        folder = Path(config.runs_dir) / config.run_name
        resume = (folder / "checkpoint.pt").is_file()
        dmc.train(config, Start(resume=folder if resume else None, force=not resume))
        made = made or run.network(self.name)
        trained = load_checkpoint(folder / "checkpoint.pt")
        save_checkpoint(made, trained.network, trained.rules, trained.model, stage=self.name)
        return made


@dataclass
class SelfPlay(DMCStage):
    """**selfplay**: DMC self-play from the network held (random weights at first)."""

    name: ClassVar[str] = "selfplay"
    number: ClassVar[int] = 1
    config: str = "dmc_recipe"
    """the DMC config of the self-play stage: a built-in name or a YAML file (its run_name, seed, rules and time are the recipe's)"""

    def run(self, run: Context, deadline: float) -> Path:
        start = run.current()  # none: random weights of the DMC config's sizes
        init, hidden = (str(start), load_checkpoint(start).network.hidden) if start is not None else (None, None)
        run.hold(run.stage_folder(self.name) / "checkpoint.pt")  # the snapshots take the network being trained
        return self.train(run, self.dmc_config(run, deadline, init=init, hidden=hidden))


@dataclass
class Contracts(DMCStage):
    """**contracts**: DMC on the bids, trumps and discards with the table's target (the card play frozen); its
    contracts joined to the network's card play (a ``q_split`` network, ``smear_nets.joined``)."""

    name: ClassVar[str] = "contracts"
    number: ClassVar[int] = 4
    config: str = "dmc_contracts"
    """the DMC config of the contracts stage (target chance on the bids, trumps and discards, the card play frozen)"""
    rounds: int = 1
    """rounds of table and contracts in the stage's time, equal shares: each round after the first re-solves the table of win chances under the round before's play (its hands as the table stage's), then DMC on the contracts against it, from the round before's"""
    round_hands: int = 100_000
    """hands of self-play each later round's table is solved from (the first round's is the table stage's)"""
    round_games: int = 200
    """games of each round's network against the network it started from, in the log (0: none; with one round: none)"""

    def validate(self) -> None:
        super().validate()
        if not 1 <= self.rounds <= 20:
            self.refuse("rounds", "1 to 20")
        if self.round_hands < 1000:
            self.refuse("round_hands", "at least 1,000 (each dealer's outcomes need many hands)")
        if self.round_games < 0 or self.round_games == 1:
            self.refuse("round_games", "0 (none) or 2 or more (a duplicate match plays deal sets of 2)")

    def needs(self) -> tuple[str, ...]:
        return ("table",)

    def run(self, run: Context, deadline: float) -> Path:
        play = run.current()
        if play is None:
            raise ValueError("the contracts stage needs a network to start from: give selfplay a share, or init")
        start = load_checkpoint(play)
        begin = run.begin(self.name)
        table, init, before = run.made("table"), play, play  # the first round's: the table stage's table
        for r in range(1, self.rounds + 1):
            part = f"round{r}" if self.rounds > 1 else ""
            folder = run.stage_folder(self.name) / part
            made = run.network(self.name, part)
            end = begin + r * (deadline - begin) / self.rounds
            if r > 1:
                table = folder / "chances.npz"
                if not table.is_file():
                    solved = solve_table(before, self.round_hands, run.config.seed * 100 + self.stream + 1000 * r)
                    table.parent.mkdir(parents=True, exist_ok=True)
                    solved.save(table)
            if not made.is_file():
                config = self.dmc_config(run, end, init=str(init), hidden=start.network.hidden, chances=str(table),
                                         folder=folder / "dmc" if part else None, seed_offset=1000 * (r - 1),
                                         since=end - (deadline - begin) / self.rounds)  # fmt: skip
                contracts = self.train(run, config, folder / "contracts.pt" if part else None)
                both = joined(start, load_checkpoint(contracts), str(play), str(contracts))
                save_checkpoint(made, both.network, both.rules, both.model, stage=self.name)
            if part:
                self.report(run, r, made, before, folder)
                init = folder / "contracts.pt"  # the next round's DMC goes on from this one's contracts
            before = made
            run.hold(made)
        return before

    def report(self, run: Context, round_: int, made: Path, before: Path, folder: Path) -> None:
        """A round's figures, once (``round.json``): its network's bid and made rates and its win rate against the
        network the round started from, in the log and TensorBoard."""
        from agents.arena import run_match

        out = folder / "round.json"
        if out.is_file() or not self.round_games:
            return
        result = run_match(f"neural:{made}", f"neural:{before}", self.round_games, seed=run.config.seed * 100 + round_,
                           rules=run.config.rules, workers=run.config.workers).summary()  # fmt: skip
        mine = result["agents"][0]
        figures = {
            "round": round_, "games": result["games"], "win_rate": result["win_rate"],
            "win_rate_ci95": result["win_rate_ci95"], "bid_rate": result["bid_rate"][mine],
            "made_bid_rate": result["made_bid_rate"][mine],
        }  # fmt: skip
        atomic_write(out, lambda f: json.dump(figures, f, indent=2))
        rates = ", ".join(f"{level}: {rate:.3f}" for level, rate in figures["bid_rate"].items())
        made_rates = ", ".join(
            f"{level}: {'-' if r is None else format(r, '.3f')}" for level, r in figures["made_bid_rate"].items()
        )
        run.say(f"contracts: round {round_}/{self.rounds}: win rate {figures['win_rate']:.3f} [{figures['win_rate_ci95'][0]:.3f}, "
                f"{figures['win_rate_ci95'][1]:.3f}] over the round before's network ({figures['games']} games); "
                f"bids of its turns {rates}; made {made_rates}")  # fmt: skip
        run.writer.add_scalar("contracts/round_win_rate", figures["win_rate"], int(run.clock()))
        for level, rate in figures["bid_rate"].items():
            run.writer.add_scalar(f"contracts/round_bid_{level}", rate, int(run.clock()))


@dataclass
class Table(Stage):
    """**table**: the chances of winning the game from each score under the network's play (``train.chance_table``)."""

    name: ClassVar[str] = "table"
    number: ClassVar[int] = 3
    makes_network: ClassVar[bool] = False
    hands: int = 100_000
    """hands of the network's self-play the table of win chances is solved from"""

    def validate(self) -> None:
        super().validate()
        if self.hands < 1000:
            self.refuse("hands", "at least 1,000 (each dealer's outcomes need many hands)")

    def run(self, run: Context, deadline: float) -> Path:
        seed = run.config.seed * 100 + 3  # the stream this stage has always drawn (3, where its own would be 2)
        table = solve_table(run.start_network(), self.hands, seed)
        made = run.stage_folder(self.name) / "chances.npz"
        made.parent.mkdir(parents=True, exist_ok=True)
        table.save(made)
        run.writer.add_scalar("table/scale", table.scale, int(run.clock()))
        return made


def solve_table(network: Path, hands: int, seed: int) -> Chances:
    """The table of win chances under ``network``'s play at every seat, from ``hands`` of its self-play."""
    from agents.neural import NeuralAgent

    agent = NeuralAgent(str(network), device="cpu")
    torch.set_num_threads(1)
    return chance_table.solve(chance_table.hand_outcomes(agent.act_batch, agent.rules, hands, seed), agent.rules)


@dataclass
class Distillation(Stage):
    """A stage that labels positions with a teacher and fits the network to them (``train.distill``)."""

    @staticmethod
    def round_seed(seed: int, round_: int) -> int:
        """The run's ``seed`` for round ``round_`` (the first round's is the run's)."""
        return seed + 7919 * (round_ - 1)

    def label_seed(self, seed: int, round_: int, attempt: int, worker: int) -> int:
        """The seed of one labelling worker (each attempt, a resume, draws anew)."""
        return self.round_seed(seed, round_) * 1000 + 100 * attempt + worker + 10 * self.stream

    def fit_seed(self, seed: int, round_: int) -> int:
        return self.round_seed(seed, round_) * 100 + self.stream

    def distill(
        self, run: Context, deadline: float, net: Path, teacher: str, label_rate: float, fit_share: float,
        folder: Path | None = None, made: Path | None = None, round_: int = 1,
        earlier: Sequence[Path] = (), keep: int = 0, search_weight: float = 1.0,
    ) -> Path:  # fmt: skip
        """The stage (or one round of it, in ``folder``, making ``made``): label until its share of the time is
        spent (parts written every minute), then fit (its state saved at every check) until ``deadline``; each
        part resumes where a kill left it. The fit also trains on up to ``keep`` positions of the ``earlier``
        folders of positions (the latest first; the held-out ones are this round's own), on the
        :func:`train.distill.completed_values` where ``search_weight`` is below 1."""
        shared = run.config
        folder = folder or run.stage_folder(self.name)
        made = made or run.network(self.name)
        name = self.name if folder == run.stage_folder(self.name) else f"{self.name} {folder.name}"  # "exit round2"
        shards = folder / "positions"
        shards.mkdir(parents=True, exist_ok=True)
        progress_file = folder / "stage.json"
        progress = json.loads(progress_file.read_text()) if progress_file.is_file() else {}
        if "begin" not in progress:
            progress = {"begin": run.clock(), "attempts": 0}
        progress["attempts"] += 1
        atomic_write(progress_file, lambda f: json.dump(progress, f))
        fit_from = progress["begin"] + (1 - fit_share) * (deadline - progress["begin"])
        seconds = fit_from - run.clock()
        written = sum(len(np.load(p)["phase"]) for p in shards.glob("*.npz"))
        if seconds > 1 and written < shared.max_positions:
            per_worker = -(-(shared.max_positions - written) // shared.workers)
            labelling = distill.Labelling(label_rate=label_rate, limit=per_worker, chunk_seconds=60.0)
            run.say(f"{name}: labelling for {seconds / 60:.1f} min on {shared.workers} workers, teacher {teacher}")
            with ProcessPoolExecutor(shared.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
                futures = [
                    pool.submit(distill.generate, shards / f"a{progress['attempts']}w{w}.npz", teacher, net, seconds,
                                self.label_seed(shared.seed, round_, progress["attempts"], w), labelling)
                    for w in range(shared.workers)
                ]  # fmt: skip
                labelled = sum(f.result() for f in futures)
            run.say(f"{name}: {labelled:,} positions labelled")
        start = load_checkpoint(net)
        if not any(len(np.load(p)["phase"]) for p in shards.glob("*.npz")):
            # A machine too slow (or too busy) for the stage's share: nothing to fit, the stage passes its network on.
            run.say(f"{name}: no positions labelled in its time; the stage keeps the network it started from")
            save_checkpoint(made, start.network, start.rules, start.model, stage=self.name, unchanged=True)
            return made
        data = distill.load_positions([shards])
        own = len(data["obs"])
        data = self.with_earlier(data, earlier, keep)
        student = start.build("cpu")
        torch.set_num_threads(2)
        targets = distill.completed_values(start.build("cpu"), data, search_weight) if search_weight < 1 else None
        state_path = folder / "fit_state.pt"
        spent = float(torch.load(state_path, weights_only=False)["seconds"]) if state_path.is_file() else 0.0
        fit_seconds = max(1.0, spent + deadline - run.clock())  # to the deadline, also when the labels ran out early
        kept = f" ({len(data['obs']) - own:,} of earlier rounds)" if len(data["obs"]) > own else ""
        run.say(f"{name}: fitting on {len(data['obs']):,} positions{kept} until {deadline / 60:.1f} min")
        fitting = distill.Fitting(learning_rate=shared.distill_learning_rate)
        student, report = distill.fit(
            data, student, fit_seconds, self.fit_seed(shared.seed, round_), fitting, own_positions=own,
            state_path=state_path, targets=targets,
        )  # fmt: skip
        report = {**report, "own_positions": own, "earlier_positions": len(data["obs"]) - own, "search_weight": search_weight}
        save_checkpoint(made, start.network, start.rules, student.state_dict(), stage=self.name, distill=report)
        atomic_write(folder / "distill.json", lambda f: json.dump({**report, "teacher": teacher}, f, indent=2))
        for key in (
            "positions",
            "earlier_positions",
            "start_regret",
            "student_regret",
            "start_regret_play",
            "student_regret_play",
        ):
            if isinstance(report.get(key), (int, float)) and math.isfinite(report[key]):
                run.writer.add_scalar(f"{self.name}/{key}", report[key], int(run.clock()))
        return made

    @staticmethod
    def with_earlier(data: dict[str, np.ndarray], earlier: Sequence[Path], keep: int) -> dict[str, np.ndarray]:
        """``data`` followed by at most ``keep`` positions of the ``earlier`` folders, the latest kept (the folders
        in the order they were made; read from the last back, so that no more than about ``keep`` are loaded)."""
        parts: list[dict[str, np.ndarray]] = []
        held = 0
        for folder in reversed(earlier):
            for shard in sorted(folder.glob("*.npz"), reverse=True):
                if held >= keep:
                    break
                part = dict(np.load(shard))
                if part and len(part["phase"]):
                    take = min(keep - held, len(part["phase"]))
                    parts.append({k: part[k][-take:] for k in ("obs", "mask", "target", "phase")})
                    held += take
        if not parts:
            return data
        return {k: np.concatenate([data[k], *(p[k] for p in reversed(parts))]) for k in data}


@dataclass
class Exit(Distillation):
    """**exit**: expert iteration: the network plays, a search over its own values (``teacher``; the deals drawn
    uniformly: no shipped model of the hidden cards) labels a share of its decisions, and the network is fitted
    to the labels for the round's last ``fit_share``; a stage longer than ``round_minutes`` is cut into equal
    rounds, each searching over the network the round before made."""

    name: ClassVar[str] = "exit"
    number: ClassVar[int] = 2
    teacher: str = "search:net={net},beliefs=uniform,samples=40,seconds=0.2"
    """the teacher of expert iteration, an agent spec with scores(); {net} is the network the round starts from, {beliefs} the model of the hidden cards the beliefs stage made (beliefs={beliefs}: its deals drawn from it)"""
    label_rate: float = 0.5
    """share of the decisions with a choice the exit teacher labels"""
    fit_share: float = 0.35
    """share of each round of the exit stage spent fitting (the rest labels positions)"""
    round_minutes: float = 60.0
    """most minutes of one round of expert iteration: a longer exit stage is cut into equal rounds, each teacher a search over the network the round before made (a stage this long or shorter: one round)"""
    keep_positions: int = 0
    """labelled positions of the earlier rounds that each round's fit also trains on, the latest first (0: each round fits on its own labels); in memory about 2.3 kB each (1,000,000: about 2.3 GB); the held-out ones are the round's own"""
    search_weight: float = 1.0
    """weight of the search's values in the fit's target, the rest the round's start network's own values (1: the search's alone; below 1: completed values, the network's prior reweighted by the search, the network frozen for the round)"""

    def validate(self) -> None:
        super().validate()
        if not 0 < self.label_rate <= 1:
            self.refuse("label_rate", "in (0, 1]")
        if not 0 < self.fit_share < 1:
            self.refuse("fit_share", "in (0, 1), the rest of the stage labels positions")
        if not (math.isfinite(self.round_minutes) and self.round_minutes > 0):
            self.refuse("round_minutes", "minutes above 0")
        if not 0 <= self.keep_positions <= 100_000_000:
            self.refuse("keep_positions", "0 (each round on its own labels) to 100,000,000")
        if not 0 < self.search_weight <= 1:
            self.refuse("search_weight", "in (0, 1]: 1 fits the search's values alone")
        if "{net}" not in self.teacher:
            self.refuse("teacher", "must search over the stage's network: put {net} where it goes")

    def needs(self) -> tuple[str, ...]:
        return ("beliefs",) if "{beliefs}" in self.teacher else ()

    def teacher_of(self, run: Context, net: Path) -> str:
        """The teacher's spec for a round that starts from ``net``: {net} and {beliefs} put in."""
        teacher = self.teacher.replace("{net}", str(net))
        return teacher.replace("{beliefs}", str(run.made("beliefs"))) if "{beliefs}" in teacher else teacher

    def rounds(self, minutes: float) -> int:
        """How many rounds a stage of ``minutes`` is cut into (``round_minutes`` the longest)."""
        return max(1, math.ceil(minutes / self.round_minutes - 1e-9))

    def run(self, run: Context, deadline: float) -> Path:
        """Rounds of equal shares of the stage: each round's teacher searches over the network the round starts
        from, and the network fitted to its labels starts the next (a round done is kept)."""
        begin = run.begin(self.name)
        rounds = self.rounds((deadline - begin) / 60)
        net = run.start_network()
        for r in range(1, rounds + 1):
            part = f"round{r}" if rounds > 1 else ""
            made = run.network(self.name, part)
            if not made.is_file():
                end = deadline - (rounds - r) * (deadline - begin) / rounds
                folder = run.stage_folder(self.name) / part
                earlier = [run.stage_folder(self.name) / f"round{q}" / "positions" for q in range(1, r)]
                self.distill(run, end, net, self.teacher_of(run, net), self.label_rate, self.fit_share, folder, made, r,
                             earlier, self.keep_positions, self.search_weight)  # fmt: skip
                if rounds > 1:
                    run.say(f"exit: round {r}/{rounds} done: {made.relative_to(run.folder)}")
            net = made
            run.hold(made)  # the snapshots take the latest round's network
        return net


@dataclass
class Suits(Distillation):
    """**suits**: the network taught its own values averaged over ``orders`` orders of the suits
    (``smear_nets.SuitMean``; ``train.distill``'s network teacher)."""

    name: ClassVar[str] = "suits"
    number: ClassVar[int] = 5
    orders: int = 24
    """orders of the suits the suits stage's teacher averages over (1 to 24)"""
    fit_share: float = 0.6
    """share of the suits stage spent fitting (the rest labels positions)"""

    def validate(self) -> None:
        super().validate()
        if not 1 <= self.orders <= 24:
            self.refuse("orders", "1 to 24")
        if not 0 < self.fit_share < 1:
            self.refuse("fit_share", "in (0, 1), the rest of the stage labels positions")

    def run(self, run: Context, deadline: float) -> Path:
        net = run.start_network()
        return self.distill(run, deadline, net, f"neural:{net},suits={self.orders}", 1.0, self.fit_share)


@dataclass
class Beliefs(Stage):
    """**beliefs**: the model of the hidden cards (``train.beliefs``: for each card a seat cannot see, where it
    lies) learned on the run's own play, every seat the network the stage starts from, for the search teachers
    of later stages (``{beliefs}`` in ``exit.teacher``). Its measure beside the uniform consistent sampler, on
    held-out positions of the same play: the log-loss per hidden card and the calibration, in the run's log,
    TensorBoard (``beliefs/``) and ``stages/6-beliefs/beliefs.json``."""

    name: ClassVar[str] = "beliefs"
    number: ClassVar[int] = 6
    makes_network: ClassVar[bool] = False
    hidden: Sizes = (512, 256)
    """hidden layer sizes of the model"""
    learning_rate: float = 1e-3
    """Adam's learning rate"""
    games: int = 1024
    """games in lockstep that stream the training positions"""
    held_out: int = 2000
    """held-out positions of the measure"""
    sampler_draws: int = 200
    """deals per held-out position that estimate the uniform sampler's probabilities"""
    measure_share: float = 0.2
    """most of the stage's time spent making the held-out positions (fewer than held_out if it runs out)"""

    def validate(self) -> None:
        super().validate()
        if not self.hidden or min(self.hidden) < 1:
            self.refuse("hidden", "one or more positive layer sizes, e.g. [512, 256]")
        if not self.learning_rate > 0:
            self.refuse("learning_rate", "above 0")
        for name in ("games", "held_out", "sampler_draws"):
            if getattr(self, name) < 1:
                self.refuse(name, "at least 1")
        if not 0 < self.measure_share < 1:
            self.refuse("measure_share", "in (0, 1), the rest of the stage trains")

    def run(self, run: Context, deadline: float) -> Path:
        """Held-out positions first (kept in the stage's folder), then training until ``deadline``, its state
        saved every minute (a kill resumes from it), then the measure."""
        from agents.neural import NeuralAgent

        folder, seed = run.stage_folder(self.name), run.config.seed * 100 + self.stream
        folder.mkdir(parents=True, exist_ok=True)
        player = NeuralAgent(str(run.start_network()), device="cpu")
        torch.set_num_threads(2)
        held_file = folder / "held_out.npz"
        if not held_file.is_file():
            seconds = self.measure_share * (deadline - run.begin(self.name))
            arrays: dict[str, Any] = beliefs.held_out(self.held_out, seed + 1_000_003, self.sampler_draws, player, 1.0, seconds)
            atomic_write(held_file, lambda f: np.savez_compressed(f, **arrays), binary=True)
        data = dict(np.load(held_file))
        spec = NetworkSpec("beliefs", tuple(self.hidden))
        torch.manual_seed(seed)
        model = build_network(spec)
        optimizer = torch.optim.Adam(model.parameters(), lr=self.learning_rate)
        state_file = folder / "state.pt"
        state: dict[str, Any] = {"positions": 0, "attempts": 0}
        if state_file.is_file():
            state = torch.load(state_file, weights_only=False)
            model.load_state_dict(state.pop("model"))
            optimizer.load_state_dict(state.pop("optimizer"))
        state["attempts"] += 1
        before = state["positions"]

        def keep(seen: int) -> None:
            whole = {**state, "positions": before + seen, "model": model.state_dict(), "optimizer": optimizer.state_dict()}
            atomic_write(state_file, lambda f: torch.save(whole, f), binary=True)

        seconds = max(1.0, deadline - run.clock())
        run.say(f"beliefs: learning for {seconds / 60:.1f} min on the play of {run.start_network().name}")
        stream = beliefs.Positions(self.games, seed * 1000 + state["attempts"], player, neural_share=1.0)
        seen = beliefs.learn(model, optimizer, stream, seconds, tick=keep)
        keep(seen)
        state["positions"] = before + seen
        made = folder / "beliefs.pt"
        save_checkpoint(made, spec, player.rules, model.state_dict(), positions=state["positions"], stage=self.name)
        report = {**beliefs.measure(model, data), "training_positions": state["positions"], "sampler_draws": self.sampler_draws}
        atomic_write(folder / "beliefs.json", lambda f: json.dump(report, f, indent=2))
        for key in ("log_loss_model", "log_loss_uniform_sampler", "expected_calibration_error"):
            run.writer.add_scalar(f"beliefs/{key}", report[key], int(run.clock()))
        run.say(
            f"beliefs: log-loss per hidden card {report['log_loss_model']:.4f} against the uniform sampler's "
            f"{report['log_loss_uniform_sampler']:.4f} on {report['positions']:,} held-out positions; calibration "
            f"error {report['expected_calibration_error']:.4f} ({state['positions']:,} positions learned)"
        )
        return made


KINDS: dict[str, type[Stage]] = {kind.name: kind for kind in (SelfPlay, Exit, Table, Contracts, Suits, Beliefs)}
"""Every stage a recipe may list, by name."""
