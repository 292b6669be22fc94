"""The recipe: one command that makes a strong network from nothing on a wall-clock budget.

    python -m train.recipe --config champion --minutes 60 [--shares selfplay=0.5 exit=0.3 ...] [--resume runs/NAME]

From random weights (or ``init``), using nothing the kit ships, it runs the stages below in order, each
for its share of the budget (``shares``: weights, made to sum to 1; a stage of share 0 is left out), then
plays what it made against ``final_opponents`` in the duplicate format:

1. **selfplay**: DMC self-play (``train.dmc``) with the config ``selfplay`` names (a built-in or a YAML file).
2. **exit**: expert iteration (``train.distill``): the network plays, a search over its own values
   (``exit_teacher``; the deals drawn uniformly: no shipped model of the hidden cards) labels a share of its
   decisions, and the network is fitted to the labels for the round's last ``exit_fit_share``; a stage longer
   than ``exit_round_minutes`` is cut into equal rounds, each searching over the network the round before made.
3. **table**: the chances of winning the game from each score under the network's play (``train.chance_table``).
4. **contracts**: DMC with the table's target (``target: chance``) on the bids, trumps and discards only,
   the network's own card play frozen (the config ``contracts`` names); its contracts are joined to the
   network's card play (a ``q_split`` network, ``smear_nets.joined``: ``python -m train.tools.export --contracts``).
5. **suits**: the network taught its own values averaged over ``suits_orders`` orders of the suits
   (``smear_nets.SuitMean``; ``train.distill``'s network teacher).

Every stage's deadline is a point of the run's own clock (the budget's time, counted across resumes), so a
stage that overran its share takes it from the next, and ``--resume runs/NAME`` continues a killed run
where it stopped: inside DMC from its last checkpoint, inside a distillation from the positions written
(every minute) and the fit's saved state. At ``snapshot_minutes`` of that clock the network the recipe
holds then (the DMC stage's latest checkpoint, or the last stage's network) is kept in
``snapshots/minute_MMM.pt``: one run gives the curve of strength against minutes.

The run folder (``runs/NAME``): ``config.yaml``; ``recipe.json`` (the clock, the stages done and their
networks); ``recipe.log``; TensorBoard events (the stage against the clock, each stage's figures, the final
matches and the snapshots' curve); ``stages/N-STAGE/`` (each stage's own run: a DMC run folder with its
events, a distillation's positions and fit, each round's in ``roundR/``); ``networks/N-STAGE.pt`` (the exit
stage's rounds: ``networks/2-exit-roundR.pt``); ``snapshots/``; ``final.pt``, the
network made (``neural:runs/NAME/final.pt``); ``results.json`` (each final match's win rate, and its every figure as
``smear-eval --json`` gives it: margins, bid and made rates, both sides' decisions a second). Nothing of the budget goes to the matches
at the end (``final_games``) or to the snapshots' matches (``snapshot_games``).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import shlex
import shutil
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import torch
import yaml
from torch.utils.tensorboard import SummaryWriter

from agents.arena import run_match
from smear_env import Rules, __version__
from smear_env.files import atomic_write
from smear_nets import NetworkSpec, build_network, joined, load_checkpoint, save_checkpoint
from smear_nets.device import machine
from smear_rl.provenance import kit_commit

from . import chance_table, distill, dmc
from .config import Mix, Start, check_types, find_config, from_mapping, parse, parse_sizes, strings_flag
from .run import folder_for, seed_everything

STAGES = ("selfplay", "exit", "table", "contracts", "suits")
"""The stages, in the order they run."""
STATE = "recipe.json"
LOG = "recipe.log"
Minutes = Annotated[
    tuple[float, ...], strings_flag(lambda xs: tuple(float(x) for x in xs), "MIN", tuple, lambda v: [f"{m:g}" for m in v])
]
Specs = Annotated[tuple[str, ...], strings_flag(tuple, "SPEC", tuple, list)]
TICK = 5.0  # seconds between looks of the clock's thread (snapshots, the state file, the progress line)


@dataclass
class Config:
    """What the recipe makes and how (each field a flag: ``python -m train.recipe --help``)."""

    run_name: str = "champion"
    """name of the run: its folder is runs_dir/run_name"""
    runs_dir: str = "runs"
    """where runs live"""
    seed: int = 1
    """seed of every stage (each its own stream from it) and of the final matches' deal sets"""
    minutes: float = 60.0
    """the budget: minutes of the run's own time (wall clock, counted across resumes) for all the stages"""
    shares: Mix = field(default_factory=lambda: {"selfplay": 0.45, "exit": 0.3, "table": 0.02, "contracts": 0.13, "suits": 0.1})
    """each stage's share of the budget (weights, made to sum to 1; 0 or absent leaves a stage out): selfplay, exit, table, contracts, suits"""
    init: str | None = None
    """the network the first stage starts from (a checkpoint path; none: random weights, the recipe from nothing)"""
    selfplay: str = "dmc_recipe"
    """the DMC config of the self-play stage: a built-in name or a YAML file (its run_name, seed, rules and time are the recipe's)"""
    contracts: str = "dmc_contracts"
    """the DMC config of the contracts stage (target chance on the bids, trumps and discards, the card play frozen)"""
    exit_teacher: str = "search:net={net},beliefs=uniform,samples=40,seconds=0.2"
    """the teacher of expert iteration, an agent spec with scores(); {net} is the network the round starts from"""
    exit_label_rate: float = 0.5
    """share of the decisions with a choice the exit teacher labels"""
    exit_fit_share: float = 0.35
    """share of each round of the exit stage spent fitting (the rest labels positions)"""
    exit_round_minutes: float = 60.0
    """most minutes of one round of expert iteration: a longer exit stage is cut into equal rounds, each teacher a search over the network the round before made (a stage this long or shorter: one round)"""
    table_hands: int = 100_000
    """hands of the network's self-play the table of win chances is solved from"""
    suits_orders: int = 24
    """orders of the suits the suits stage's teacher averages over (1 to 24)"""
    suits_fit_share: float = 0.6
    """share of the suits stage spent fitting (the rest labels positions)"""
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
    snapshot_minutes: Minutes = (10.0, 20.0, 30.0, 45.0, 60.0)
    """minutes of the run's clock at which the network held then is kept in snapshots/ (the curve)"""
    final_opponents: Specs = ("neural:v0.3.0", "heuristic")
    """agents the network made plays at the end (duplicate format); outside the budget"""
    final_games: int = 1000
    """games of each final match (0: none)"""
    snapshot_games: int = 0
    """games of each snapshot against each final opponent at the end (0: none; experiments/recipe_curve.py plays them later)"""
    eval_workers: int = 2
    """processes the final matches are played in"""
    rules: Rules = field(default_factory=Rules)
    """the rule settings every stage plays under"""

    def __post_init__(self) -> None:
        if isinstance(self.snapshot_minutes, (list, tuple)):  # YAML's whole minutes are numbers too
            self.snapshot_minutes = tuple(
                float(m) if isinstance(m, int) and not isinstance(m, bool) else m for m in self.snapshot_minutes
            )
        self.validate()

    def validate(self) -> None:
        """Every field checked, with a message naming it and what is allowed."""
        check_types(self)
        if not self.run_name or "/" in self.run_name or self.run_name in (".", ".."):
            raise ValueError(f"config run_name={self.run_name!r}: a folder name (no '/')")
        if not (math.isfinite(self.minutes) and self.minutes > 0):
            raise ValueError(f"config minutes={self.minutes}: a number of minutes above 0")
        unknown = sorted(set(self.shares) - set(STAGES))
        if unknown:
            raise ValueError(f"config shares: unknown stage(s) {unknown}; the stages are {', '.join(STAGES)}")
        if any(not (math.isfinite(v) and v >= 0) for v in self.shares.values()) or sum(self.shares.values()) <= 0:
            raise ValueError(f"config shares={self.shares}: weights 0 or more, summing above 0")
        share = self.share
        if share("contracts") and not share("table"):
            raise ValueError("config shares: the contracts stage learns from the table's win chances: give table a share too")
        for name in ("exit_label_rate",):
            if not 0 < getattr(self, name) <= 1:
                raise ValueError(f"config {name}={getattr(self, name)}: in (0, 1]")
        for name in ("exit_fit_share", "suits_fit_share"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(f"config {name}={getattr(self, name)}: in (0, 1), the rest of the stage labels positions")
        if not 1 <= self.suits_orders <= 24:
            raise ValueError(f"config suits_orders={self.suits_orders}: 1 to 24")
        for name in ("table_hands", "max_positions", "workers", "eval_workers"):
            if getattr(self, name) < 1:
                raise ValueError(f"config {name}={getattr(self, name)}: at least 1")
        if self.table_hands < 1000:
            raise ValueError(f"config table_hands={self.table_hands}: at least 1,000 (each dealer's outcomes need many hands)")
        for name in ("final_games", "snapshot_games"):
            if getattr(self, name) < 0:
                raise ValueError(f"config {name}={getattr(self, name)}: 0 or more")
        if not (math.isfinite(self.exit_round_minutes) and self.exit_round_minutes > 0):
            raise ValueError(f"config exit_round_minutes={self.exit_round_minutes}: minutes above 0")
        if not self.distill_learning_rate > 0:
            raise ValueError(f"config distill_learning_rate={self.distill_learning_rate}: above 0")
        if any(not (math.isfinite(m) and m > 0) for m in self.snapshot_minutes):
            raise ValueError(f"config snapshot_minutes={self.snapshot_minutes}: minutes above 0")
        if "{net}" not in self.exit_teacher:
            raise ValueError(
                f"config exit_teacher={self.exit_teacher!r}: must search over the stage's network: put {{net}} where it goes"
            )
        if self.num_actors is not None and self.num_actors < 0:
            raise ValueError(f"config num_actors={self.num_actors}: 0 or more")

    def share(self, stage: str) -> float:
        """The stage's share of the budget (the weights made to sum to 1)."""
        return self.shares.get(stage, 0.0) / sum(self.shares.values())

    def deadlines(self) -> dict[str, float]:
        """Each stage's end on the run's clock, in seconds (the stages left out end where the one before does)."""
        ends, total = {}, 0.0
        for stage in STAGES:
            total += self.share(stage) * self.minutes * 60
            ends[stage] = total
        return ends


class Clock:
    """The run's own time: seconds counted before this process (from ``recipe.json``) plus this process's."""

    def __init__(self, before: float) -> None:
        self.before, self.started = before, time.time()

    def __call__(self) -> float:
        return self.before + time.time() - self.started


class Recipe:
    """A run of the recipe in its folder: the clock, the stages, the snapshots (see the module docstring)."""

    def __init__(self, config: Config, start: Start, command: str | None = None) -> None:
        self.config = config
        self.folder = folder_for(config, start, marker=STATE)
        self.resumed = start.resume is not None
        saved = json.loads((self.folder / STATE).read_text()) if self.resumed else {}
        self.state: dict[str, Any] = {
            "version": __version__,
            "elapsed": 0.0,
            "done": {},  # stage -> its network's path (relative to the folder)
            "snapshots": {},  # minute -> {path, stage, elapsed}
            "resumes": 0,
            "legs": [],  # each start and resume: the kit's commit, the date, the run's clock then, the command
            **saved,
        }
        if self.resumed:
            self.state["resumes"] += 1
        leg = {
            "commit": kit_commit(),
            "version": __version__,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": machine().to_dict(),  # a leg's speed is its machine's: the CPU's model and vector units
        }
        self.state["legs"].append({**leg, "at": self.state["elapsed"], "command": command})
        self.clock = Clock(self.state["elapsed"])
        self.sources: list[Path] = []  # what the snapshots copy now: the first of these that exists
        self.stage = ""
        self.lock = threading.Lock()
        self.stop = threading.Event()

    # ------------------------------------------------------------------ the run's record
    def say(self, line: str) -> None:
        """A line on the console and in the run's log, stamped with the run's clock."""
        text = f"[recipe {self.clock() / 60:6.1f} min] {line}"
        print(text, flush=True)
        with open(self.folder / LOG, "a") as log:
            log.write(text + "\n")

    def save(self) -> None:
        with self.lock:
            self.state["elapsed"] = self.clock()
            atomic_write(self.folder / STATE, lambda f: json.dump(self.state, f, indent=2))

    def network(self, stage: str, part: str = "") -> Path:
        """Where ``stage``'s network is written (``part``: one of its rounds', "round2")."""
        return self.folder / "networks" / f"{STAGES.index(stage) + 1}-{stage}{'-' + part if part else ''}.pt"

    def stage_folder(self, stage: str) -> Path:
        return self.folder / "stages" / f"{STAGES.index(stage) + 1}-{stage}"

    def current(self) -> Path | None:
        """The network the last finished stage made (None: none yet; ``init`` if given)."""
        done = [s for s in STAGES if s in self.state["done"] and s != "table"]  # the table is not a network
        if done:
            return self.folder / self.state["done"][done[-1]]
        return Path(self.config.init) if self.config.init else None

    def held(self) -> list[Path]:
        """What the snapshots copy between stages: the network the last finished stage made (none before any)."""
        return [p for p in [self.current()] if p is not None]

    # ------------------------------------------------------------------ the clock's thread: snapshots, progress
    def watch(self) -> None:
        """Until the run ends: keep the snapshots due, save the clock, and say where the run stands every minute."""
        last_line = 0.0
        while not self.stop.wait(TICK):
            self.keep_snapshots()
            self.save()
            if time.time() - last_line >= 60:
                last_line = time.time()
                self.progress()

    def numbered(self, stage: str) -> str:
        """``stage``'s place among the stages this run has (those with a share): "2/5", or "1/1" for DMC alone."""
        run = [s for s in STAGES if self.config.share(s)]
        return f"{run.index(stage) + 1}/{len(run)}"

    def progress(self) -> None:
        ends = self.config.deadlines()
        now = self.clock()
        left = max(0.0, self.config.minutes * 60 - now)
        if self.stage:
            self.say(
                f"stage {self.numbered(self.stage)} {self.stage} until {ends[self.stage] / 60:.1f} min; {left / 60:.1f} min of the budget left"
            )

    def keep_snapshots(self, final: bool = False) -> None:
        """The network held now, as ``snapshots/minute_MMM.pt``, for each snapshot minute the clock has passed
        (``final``: the run is over, so every minute within the budget gets the network made)."""
        now = self.clock()
        for minute in self.config.snapshot_minutes:
            key = f"{minute:g}"
            # a minute at or past the budget's end is the network made (taken once the last stage is done)
            due = (now >= minute * 60 and minute < self.config.minutes) or (final and minute <= self.config.minutes)
            if not due or key in self.state["snapshots"]:
                continue
            source = next((p for p in self.sources if p.is_file()), None)
            path = (
                self.folder / "snapshots" / (f"minute_{int(minute):03d}.pt" if minute == int(minute) else f"minute_{minute:g}.pt")
            )
            if source is None:
                spec = NetworkSpec("q", self._hidden())
                seed_everything(self.config.seed)
                save_checkpoint(path, spec, self.config.rules, build_network(spec).state_dict(), minute=minute, stage="random")
            else:
                try:
                    made = load_checkpoint(source)
                except (OSError, RuntimeError, ValueError):
                    continue  # being written: the next look takes it
                save_checkpoint(path, made.network, made.rules, made.model, minute=minute, stage=self.stage, elapsed=now)
            with self.lock:
                self.state["snapshots"][key] = {"path": str(path.relative_to(self.folder)), "stage": self.stage, "elapsed": now}
            self.say(f"snapshot at {minute:g} min: {path.relative_to(self.folder)} ({self.stage or 'the start'})")

    # ------------------------------------------------------------------ the run
    def run(self) -> Path:
        config = self.config
        if not self.resumed:
            if self.folder.exists():
                shutil.rmtree(self.folder)  # --force: checked by _folder
            self.folder.mkdir(parents=True)
        atomic_write(self.folder / "config.yaml", lambda f: yaml.safe_dump(_plain(config), f, sort_keys=False))
        self.save()
        self.writer = SummaryWriter(str(self.folder))
        self.say(
            ("resumed" if self.resumed else "run")
            + f" {self.folder}: {config.minutes:g} minutes, "
            + ", ".join(f"{s} {config.share(s) * config.minutes:.1f}" for s in STAGES if config.share(s))
            + f" (minutes); tensorboard --logdir {self.folder}"
        )
        self.say(f"machine: {machine().line()}")
        self.sources = self.held()
        watcher = threading.Thread(target=self.watch, daemon=True)
        watcher.start()
        try:
            ends = config.deadlines()
            for stage in STAGES:
                if stage in self.state["done"] or not config.share(stage):
                    continue
                self.stage = stage
                self.say(f"stage {self.numbered(stage)}: {stage} until {ends[stage] / 60:.1f} min")
                self.writer.add_scalar("recipe/stage", STAGES.index(stage) + 1, int(self.clock()))
                made = getattr(self, f"run_{stage}")(ends[stage])
                with self.lock:
                    self.state["done"][stage] = str(made.relative_to(self.folder))
                self.sources = self.held()  # the table's stage makes no network: the one before it is still held
                self.save()
                self.say(f"stage {stage} done: {made.relative_to(self.folder)}")
            self.stage = "done"
            self.keep_snapshots(final=True)
        finally:
            self.stop.set()
            watcher.join()
            self.save()
        final = self.folder / "final.pt"
        made = load_checkpoint(self._start_network())
        save_checkpoint(final, made.network, made.rules, made.model, recipe=_plain(config), minutes=self.clock() / 60)
        self.say(f"made {final} in {self.clock() / 60:.1f} minutes of the budget's clock: play it as neural:{final}")
        self.evaluate(final)
        self.writer.close()
        return self.folder

    # ------------------------------------------------------------------ the stages
    def _dmc_values(self, stage: str) -> dict[str, Any]:
        """The values of the DMC config a stage names (``selfplay`` or ``contracts``)."""
        name = self.config.selfplay if stage == "selfplay" else self.config.contracts
        values = yaml.safe_load(find_config(name).read_text()) or {}
        if not isinstance(values, dict):
            raise ValueError(f"config {stage}={name!r}: not a mapping of DMC config fields")
        return values

    def _stage_begin(self, stage: str) -> float:
        """Where ``stage``'s share of the budget begins on the run's clock."""
        return self.config.deadlines()[stage] - self.config.share(stage) * self.config.minutes * 60

    def _hidden(self) -> tuple[int, ...]:
        """The hidden sizes of the self-play stage's network (a random start's): its config's, else DMC's default
        (read alone: the config's time fields are the stage's, set when it runs)."""
        values = self._dmc_values("selfplay")
        return parse_sizes(values["hidden"], f"{self.config.selfplay} hidden") if "hidden" in values else dmc.Config.hidden

    def _dmc(self, stage: str, deadline: float, **settings: Any) -> Path:
        """A DMC stage until ``deadline`` on the run's clock (resumed from its checkpoint if it has one)."""
        folder = self.stage_folder(stage)
        knobs = {k: getattr(self.config, k) for k in ("device", "actor_device", "num_actors", "backend", "ray_address")}
        values = {
            **self._dmc_values(stage), **{k: v for k, v in knobs.items() if v is not None}, **settings,
            "rules": self.config.rules.to_dict(), "run_name": folder.name, "runs_dir": str(folder.parent),
            "seed": self.config.seed * 100 + STAGES.index(stage), "max_seconds": max(1.0, deadline - self.clock()),
            "total_steps": 10**15,
        }  # fmt: skip
        if values.get("learning_rate_end") is not None and not values.get("decay_seconds"):
            values["decay_seconds"] = max(1.0, deadline - self._stage_begin(stage))  # the stage's whole time, resumes and all
        config = from_mapping(dmc.Config, values)
        resume = (folder / "checkpoint.pt").is_file()
        if stage == "selfplay":  # the network being trained is the one held: the snapshots take its checkpoints
            self.sources = [folder / "checkpoint.pt", *self.sources]
        dmc.train(config, Start(resume=folder if resume else None, force=not resume))
        made = self.network(stage)
        trained = load_checkpoint(folder / "checkpoint.pt")
        save_checkpoint(made, trained.network, trained.rules, trained.model, stage=stage)
        return made

    def run_selfplay(self, deadline: float) -> Path:
        start = self.current()
        settings: dict[str, Any] = {}
        if start is not None:
            settings["init"] = str(start)
            settings["hidden"] = load_checkpoint(start).network.hidden
        return self._dmc("selfplay", deadline, **settings)

    def run_contracts(self, deadline: float) -> Path:
        play = self.current()
        if play is None:
            raise ValueError("the contracts stage needs a network to start from: give selfplay a share, or init")
        table = self.folder / self.state["done"]["table"]
        start = load_checkpoint(play)
        contracts = self._dmc("contracts", deadline, init=str(play), hidden=start.network.hidden, chances=str(table))
        trained = load_checkpoint(contracts)
        both = joined(start, trained, str(play), str(contracts))
        made = self.network("contracts")
        save_checkpoint(made, both.network, both.rules, both.model, stage="contracts")
        return made

    def run_table(self, deadline: float) -> Path:
        from agents.neural import NeuralAgent

        net = self._start_network()
        agent = NeuralAgent(str(net), device="cpu")
        torch.set_num_threads(1)
        outcomes = chance_table.hand_outcomes(agent.act_batch, agent.rules, self.config.table_hands, self.config.seed * 100 + 3)
        table = chance_table.solve(outcomes, agent.rules)
        made = self.stage_folder("table") / "chances.npz"
        made.parent.mkdir(parents=True, exist_ok=True)
        table.save(made)
        self.writer.add_scalar("table/scale", table.scale, int(self.clock()))
        return made

    def exit_rounds(self) -> int:
        """How many rounds of expert iteration the exit stage is cut into (``exit_round_minutes`` the longest)."""
        minutes = self.config.share("exit") * self.config.minutes
        return max(1, math.ceil(minutes / self.config.exit_round_minutes - 1e-9))

    def run_exit(self, deadline: float) -> Path:
        """Expert iteration in rounds of equal shares of the stage: each round's teacher searches over the network
        the round starts from, and the network fitted to its labels starts the next (a round done is kept)."""
        rounds, begin = self.exit_rounds(), self._stage_begin("exit")
        net = self._start_network()
        for r in range(1, rounds + 1):
            part = f"round{r}" if rounds > 1 else ""
            made = self.network("exit", part)
            if not made.is_file():
                end = deadline - (rounds - r) * (deadline - begin) / rounds
                teacher = self.config.exit_teacher.replace("{net}", str(net))
                folder = self.stage_folder("exit") / part
                self._distill("exit", end, net, teacher, self.config.exit_label_rate, self.config.exit_fit_share, folder, made, r)
                if rounds > 1:
                    self.say(f"exit: round {r}/{rounds} done: {made.relative_to(self.folder)}")
            net = made
            self.sources = [made]  # the snapshots take the latest round's network
        return net

    def run_suits(self, deadline: float) -> Path:
        net = self._start_network()
        teacher = f"neural:{net},suits={self.config.suits_orders}"
        return self._distill("suits", deadline, net, teacher, 1.0, self.config.suits_fit_share)

    def _start_network(self) -> Path:
        """The network a stage starts from: the last stage's, ``init``, or random weights (written once)."""
        current = self.current()
        if current is not None:
            return current
        path = self.folder / "networks" / "0-random.pt"
        if not path.is_file():
            spec = NetworkSpec("q", self._hidden())
            seed_everything(self.config.seed)
            save_checkpoint(path, spec, self.config.rules, build_network(spec).state_dict(), stage="random")
        return path

    def _distill(
        self, stage: str, deadline: float, net: Path, teacher: str, label_rate: float, fit_share: float,
        folder: Path | None = None, made: Path | None = None, round_: int = 1,
    ) -> Path:  # fmt: skip
        """A distillation stage (or one round of one, in ``folder``, making ``made``): label until its share of the
        time is spent (parts written every minute), then fit (its state saved at every check) until ``deadline``;
        each part resumes where a kill left it."""
        folder = folder or self.stage_folder(stage)
        made = made or self.network(stage)
        seed = self.config.seed + 7919 * (round_ - 1)  # a round's own streams (the first round's are the stage's)
        name = stage if folder == self.stage_folder(stage) else f"{stage} {folder.name}"  # "exit round2"
        shards = folder / "positions"
        shards.mkdir(parents=True, exist_ok=True)
        progress_file = folder / "stage.json"
        progress = json.loads(progress_file.read_text()) if progress_file.is_file() else {}
        if "begin" not in progress:
            progress = {"begin": self.clock(), "attempts": 0}
        progress["attempts"] += 1
        atomic_write(progress_file, lambda f: json.dump(progress, f))
        fit_from = progress["begin"] + (1 - fit_share) * (deadline - progress["begin"])
        config = self.config
        seconds = fit_from - self.clock()
        written = sum(len(np.load(p)["phase"]) for p in shards.glob("*.npz"))
        if seconds > 1 and written < config.max_positions:
            per_worker = -(-(config.max_positions - written) // config.workers)
            self.say(f"{name}: labelling for {seconds / 60:.1f} min on {config.workers} workers, teacher {teacher}")
            with ProcessPoolExecutor(config.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
                futures = [
                    pool.submit(distill.generate, shards / f"a{progress['attempts']}w{w}.npz", teacher, net, seconds,
                                seed * 1000 + 100 * progress["attempts"] + w + 10 * STAGES.index(stage),
                                64, label_rate, None, per_worker, 60.0)
                    for w in range(config.workers)
                ]  # fmt: skip
                labelled = sum(f.result() for f in futures)
            self.say(f"{name}: {labelled:,} positions labelled")
        start = load_checkpoint(net)
        if not any(len(np.load(p)["phase"]) for p in shards.glob("*.npz")):
            # A machine too slow (or too busy) for the stage's share: nothing to fit, the stage passes its network on.
            self.say(f"{name}: no positions labelled in its time; the stage keeps the network it started from")
            save_checkpoint(made, start.network, start.rules, start.model, stage=stage, unchanged=True)
            return made
        data = distill.load_positions([shards])
        student = start.build("cpu")
        torch.set_num_threads(2)
        state_path = folder / "fit_state.pt"
        spent = float(torch.load(state_path, weights_only=False)["seconds"]) if state_path.is_file() else 0.0
        fit_seconds = max(1.0, spent + deadline - self.clock())  # to the deadline, also when the labels ran out early
        self.say(f"{name}: fitting on {len(data['obs']):,} positions until {deadline / 60:.1f} min")
        student, report = distill.fit(
            data, student, fit_seconds, 0.05, config.distill_learning_rate, 1024, seed * 100 + STAGES.index(stage),
            state_path=state_path,
        )  # fmt: skip
        save_checkpoint(made, start.network, start.rules, student.state_dict(), stage=stage, distill=report)
        atomic_write(folder / "distill.json", lambda f: json.dump({**report, "teacher": teacher}, f, indent=2))
        for key in ("positions", "start_regret", "student_regret", "start_regret_play", "student_regret_play"):
            if isinstance(report.get(key), (int, float)) and math.isfinite(report[key]):
                self.writer.add_scalar(f"{stage}/{key}", report[key], int(self.clock()))
        return made

    # ------------------------------------------------------------------ the matches at the end
    def evaluate(self, final: Path) -> None:
        """The network made against each final opponent, and (``snapshot_games``) each snapshot: results.json and
        TensorBoard (``final/``, ``curve/`` by minute); none of it counts in the budget."""
        config = self.config
        results: dict[str, Any] = {"minutes": self.clock() / 60, "final": {}, "curve": {}}
        seed = config.seed * 7919 + 1_000_003  # deal sets of their own, declared by the run's seed
        for opponent in config.final_opponents if config.final_games else ():
            summary = run_match(
                f"neural:{final}", opponent, games=config.final_games, seed=seed, workers=config.eval_workers
            ).summary()
            low, high = summary["win_rate_ci95"]
            results["final"][opponent] = {
                "win_rate": summary["win_rate"],
                "ci95": [low, high],
                "games": summary["games"],
                "seed": seed,
                "match": summary,  # the match's every figure: margins, bid and made rates, decisions a second
            }
            tag = opponent.replace(":", "_").replace("/", "_")
            self.writer.add_scalar(f"final/win_rate_vs_{tag}", summary["win_rate"], int(self.clock()))
            speeds = list(summary["decisions_per_second"].values())  # the made network's first (one entry if named alike)
            made, theirs = speeds[0], speeds[-1]
            self.say(
                f"final: {summary['win_rate']:.3f} [{low:.3f}, {high:.3f}] against {opponent} ({summary['games']} games, seed {seed}); "
                f"it decides at {made / theirs:.2f}x {opponent}'s speed ({made:,.0f} against {theirs:,.0f} decisions a second)"
            )
        for minute, snap in sorted(self.state["snapshots"].items(), key=lambda kv: float(kv[0])):
            for opponent in config.final_opponents if config.snapshot_games else ():
                path = self.folder / snap["path"]
                summary = run_match(
                    f"neural:{path}", opponent, games=config.snapshot_games, seed=seed + 1, workers=config.eval_workers
                ).summary()
                results["curve"].setdefault(minute, {})[opponent] = {
                    "win_rate": summary["win_rate"],
                    "ci95": list(summary["win_rate_ci95"]),
                }
                tag = opponent.replace(":", "_").replace("/", "_")
                self.writer.add_scalar(f"curve/win_rate_vs_{tag}", summary["win_rate"], int(float(minute)))
        atomic_write(self.folder / "results.json", lambda f: json.dump(results, f, indent=2))


def _plain(config: Config) -> dict[str, Any]:
    """The config as plain values (for config.yaml and the network made), with the kit's version that ran it."""
    values = {"smear_rl_version": __version__, **asdict(config)}
    values.update(
        rules=config.rules.to_dict(), snapshot_minutes=list(config.snapshot_minutes), final_opponents=list(config.final_opponents)
    )
    return values


def train(config: Config, start: Start | None = None, command: str | None = None) -> Path:
    """Run the recipe as the config says (or continue the run ``start.resume``); returns the run folder.
    ``command``: the command line that asked for it, kept in the run's record of its legs."""
    for name in (config.selfplay, config.contracts):
        find_config(name)  # a ValueError naming the built-ins before anything starts
    recipe = Recipe(config, start or Start(), command)
    return recipe.run()


def main(argv: list[str] | None = None) -> int:
    config, start = parse(Config, argv, __doc__.splitlines()[0], prog="python -m train.recipe")  # type: ignore[type-var]
    command = shlex.join(["python", "-m", "train.recipe", *(sys.argv[1:] if argv is None else argv)])
    try:
        train(config, start, command)
    except ValueError as e:
        print(f"python -m train.recipe: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
