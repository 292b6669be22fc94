"""The recipe: one command that makes a strong network from nothing on a wall-clock budget.

    python -m train.recipe --config champion --minutes 60 [--shares selfplay=0.5 exit=0.3 ...] [--resume runs/NAME]

From random weights (or ``init``), using nothing the kit ships, it runs its ``stages`` in order, each
for its share of the budget (``shares``: weights, made to sum to 1; a stage of share 0 is left out), then
plays what it made against ``final_opponents`` in the duplicate format. Each stage is a part of its own
(``train.stages``) with its own settings, flags ``--NAME.FIELD`` (``--exit.teacher``) and a mapping in YAML
(``exit: {teacher: ...}``); the default recipe:

1. **selfplay**: DMC self-play (``train.dmc``) with the config ``selfplay.config`` names (a built-in or a YAML file).
2. **exit**: expert iteration (``train.distill``): the network plays, a search over its own values
   (``exit.teacher``; the deals drawn uniformly: no shipped model of the hidden cards) labels a share of its
   decisions, and the network is fitted to the labels for the round's last ``exit.fit_share``; a stage longer
   than ``exit.round_minutes`` is cut into equal rounds, each searching over the network the round before made.
3. **table**: the chances of winning the game from each score under the network's play (``train.chance_table``).
4. **contracts**: DMC with the table's target (``target: chance``) on the bids, trumps and discards only,
   the network's own card play frozen (the config ``contracts.config`` names); its contracts are joined to the
   network's card play (a ``q_split`` network, ``smear_nets.joined``: ``python -m train.tools.export --contracts``).
5. **suits**: the network taught its own values averaged over ``suits.orders`` orders of the suits
   (``smear_nets.SuitMean``; ``train.distill``'s network teacher).

and one stage the default recipe leaves out: **beliefs**, the model of the hidden cards (``train.beliefs``)
learned on the run's own play, which ``{beliefs}`` in ``exit.teacher`` puts in the teacher's spec.

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
stage's rounds: ``networks/2-exit-roundR.pt``), N the stage's own number (``train.stages``: fixed, never its
place in the recipe, as are its seeds); ``snapshots/``; ``final.pt``, the
network made (``neural:runs/NAME/final.pt``); ``results.json`` (each final match's win rate, and its every figure as
``smear-eval --json`` gives it: margins, bid and made rates, both sides' decisions a second). Nothing of the budget goes to the matches
at the end (``final_games``) or to the snapshots' matches (``snapshot_games``).
"""

from __future__ import annotations

import json
import math
import shlex
import shutil
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar

import yaml
from torch.utils.tensorboard import SummaryWriter

from agents.arena import run_match
from smear_env import __version__
from smear_env.files import atomic_write
from smear_nets import NetworkSpec, build_network, load_checkpoint, save_checkpoint
from smear_nets.device import machine
from smear_rl.provenance import kit_commit

from . import dmc
from .config import Mix, Start, parse, parse_sizes, strings_flag
from .run import folder_for, seed_everything
from .stages import KINDS, Beliefs, Contracts, Exit, SelfPlay, Shared, Stage, Suits, Table

STAGES = ("selfplay", "exit", "table", "contracts", "suits")
"""The default recipe: its stages, in the order they run."""
STATE = "recipe.json"
LOG = "recipe.log"
Minutes = Annotated[
    tuple[float, ...], strings_flag(lambda xs: tuple(float(x) for x in xs), "MIN", tuple, lambda v: [f"{m:g}" for m in v])
]
Specs = Annotated[tuple[str, ...], strings_flag(tuple, "SPEC", tuple, list)]
Names = Annotated[tuple[str, ...], strings_flag(tuple, "STAGE", tuple, list)]
TICK = 5.0  # seconds between looks of the clock's thread (snapshots, the state file, the progress line)


@dataclass
class Config(Shared):
    """What the recipe makes and how (each field a flag: ``python -m train.recipe --help``)."""

    RENAMED: ClassVar[dict[str, str]] = {
        "selfplay": "selfplay.config", "contracts": "contracts.config", "exit_teacher": "exit.teacher",
        "exit_label_rate": "exit.label_rate", "exit_fit_share": "exit.fit_share", "exit_round_minutes": "exit.round_minutes",
        "table_hands": "table.hands", "suits_orders": "suits.orders", "suits_fit_share": "suits.fit_share",
    }  # fmt: skip

    run_name: str = "champion"
    """name of the run: its folder is runs_dir/run_name"""
    minutes: float = 60.0
    """the budget: minutes of the run's own time (wall clock, counted across resumes) for all the stages"""
    stages: Names = STAGES
    """the recipe: its stages in the order they run (each's settings are its own flags, --exit.teacher): selfplay, exit, table, contracts, suits, beliefs"""
    shares: Mix = field(default_factory=lambda: {"selfplay": 0.45, "exit": 0.3, "table": 0.02, "contracts": 0.13, "suits": 0.1})
    """each stage's share of the budget (weights, made to sum to 1; 0 or absent leaves a stage out)"""
    init: str | None = None
    """the network the first stage starts from (a checkpoint path; none: random weights, the recipe from nothing)"""
    selfplay: SelfPlay = field(default_factory=SelfPlay)
    """the self-play stage (DMC)"""
    exit: Exit = field(default_factory=Exit)
    """the expert iteration stage"""
    table: Table = field(default_factory=Table)
    """the stage of the table of win chances"""
    contracts: Contracts = field(default_factory=Contracts)
    """the contracts stage (DMC under the table's target)"""
    suits: Suits = field(default_factory=Suits)
    """the stage of the suits' orders averaged"""
    beliefs: Beliefs = field(default_factory=Beliefs)
    """the stage of the model of the hidden cards (for exit.teacher's {beliefs})"""
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

    def __post_init__(self) -> None:
        if isinstance(self.snapshot_minutes, (list, tuple)):  # YAML's whole minutes are numbers too
            self.snapshot_minutes = tuple(
                float(m) if isinstance(m, int) and not isinstance(m, bool) else m for m in self.snapshot_minutes
            )
        super().__post_init__()

    def validate(self) -> None:
        """Every field checked, with a message naming it and what is allowed."""
        super().validate()
        if not (math.isfinite(self.minutes) and self.minutes > 0):
            raise ValueError(f"config minutes={self.minutes}: a number of minutes above 0")
        unknown = [s for s in self.stages if s not in KINDS]
        if unknown or len(set(self.stages)) < len(self.stages) or not self.stages:
            raise ValueError(f"config stages={list(self.stages)}: each of {', '.join(KINDS)} at most once, in the order they run")
        unknown = sorted(set(self.shares) - set(KINDS))
        if unknown:
            raise ValueError(f"config shares: unknown stage(s) {unknown}; the stages are {', '.join(KINDS)}")
        missing = [s for s in self.shares if s not in self.stages and self.shares[s]]
        if missing:
            raise ValueError(
                f"config shares: {', '.join(missing)} not in stages ({', '.join(self.stages)}): give shares for the stages listed"
            )
        if any(not (math.isfinite(v) and v >= 0) for v in self.shares.values()) or sum(self.shares.values()) <= 0:
            raise ValueError(f"config shares={self.shares}: weights 0 or more, summing above 0")
        running = self.running()
        for name in running:
            for need in self.stage(name).needs():
                if need not in running[: running.index(name)]:
                    raise ValueError(
                        f"config shares: the {name} stage reads what the {need} stage makes: give {need} a share "
                        f"too, before {name} in stages"
                    )
        for name in ("final_games", "snapshot_games"):
            if getattr(self, name) < 0:
                raise ValueError(f"config {name}={getattr(self, name)}: 0 or more")
        if self.eval_workers < 1:
            raise ValueError(f"config eval_workers={self.eval_workers}: at least 1")
        if any(not (math.isfinite(m) and m > 0) for m in self.snapshot_minutes):
            raise ValueError(f"config snapshot_minutes={self.snapshot_minutes}: minutes above 0")

    def stage(self, name: str) -> Stage:
        """The stage ``name`` with its settings."""
        part = getattr(self, name) if name in KINDS else None
        if not isinstance(part, KINDS.get(name, Stage)):
            raise ValueError(f"no stage {name!r}; the stages are {', '.join(KINDS)}")
        return part

    def running(self) -> list[str]:
        """The stages this run has (those with a share), in their order."""
        return [s for s in self.stages if self.share(s)]

    def share(self, stage: str) -> float:
        """The stage's share of the budget (the weights made to sum to 1; 0 for a stage not in ``stages``)."""
        return self.shares.get(stage, 0.0) / sum(self.shares.values()) if stage in self.stages else 0.0

    def deadlines(self) -> dict[str, float]:
        """Each stage's end on the run's clock, in seconds (the stages left out end where the one before does)."""
        ends, total = {}, 0.0
        for stage in self.stages:
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
        """Where ``stage``'s network is written (``part``: one of its rounds', "round2"): ``networks/N-NAME.pt``,
        N the stage's own number."""
        return self.folder / "networks" / f"{self.config.stage(stage).number}-{stage}{'-' + part if part else ''}.pt"

    def stage_folder(self, stage: str) -> Path:
        """``stages/N-NAME``: the stage's own runs (N its own number)."""
        return self.folder / "stages" / f"{self.config.stage(stage).number}-{stage}"

    def begin(self, stage: str) -> float:
        """Where ``stage``'s share of the budget begins on the run's clock."""
        return self.config.deadlines()[stage] - self.config.share(stage) * self.config.minutes * 60

    def made(self, stage: str) -> Path:
        """What the finished ``stage`` made."""
        return self.folder / self.state["done"][stage]

    def hold(self, path: Path) -> None:
        """The snapshots copy ``path`` from now on (once it exists; what they copied until then)."""
        self.sources = [path, *self.sources]

    def current(self) -> Path | None:
        """The network the last finished stage made (None: none yet; ``init`` if given)."""
        config = self.config
        done = [s for s in config.stages if s in self.state["done"] and config.stage(s).makes_network]
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
        run = self.config.running()
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
            + ", ".join(f"{s} {config.share(s) * config.minutes:.1f}" for s in config.running())
            + f" (minutes); tensorboard --logdir {self.folder}"
        )
        self.say(f"machine: {machine().line()}")
        self.sources = self.held()
        watcher = threading.Thread(target=self.watch, daemon=True)
        watcher.start()
        try:
            ends = config.deadlines()
            for stage in config.running():
                if stage in self.state["done"]:
                    continue
                self.stage = stage
                self.say(f"stage {self.numbered(stage)}: {stage} until {ends[stage] / 60:.1f} min")
                self.writer.add_scalar("recipe/stage", config.stage(stage).number, int(self.clock()))
                made = config.stage(stage).run(self, ends[stage])
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
        network = load_checkpoint(self.start_network())
        save_checkpoint(final, network.network, network.rules, network.model, recipe=_plain(config), minutes=self.clock() / 60)
        self.say(f"made {final} in {self.clock() / 60:.1f} minutes of the budget's clock: play it as neural:{final}")
        self.evaluate(final)
        self.writer.close()
        return self.folder

    # ------------------------------------------------------------------ a random start
    def _hidden(self) -> tuple[int, ...]:
        """The hidden sizes of the self-play stage's network (a random start's): its config's, else DMC's default
        (read alone: the config's time fields are the stage's, set when it runs)."""
        values = self.config.selfplay.values()
        return parse_sizes(values["hidden"], f"{self.config.selfplay.config} hidden") if "hidden" in values else dmc.Config.hidden

    def start_network(self) -> Path:
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
        rules=config.rules.to_dict(), stages=list(config.stages), snapshot_minutes=list(config.snapshot_minutes),
        final_opponents=list(config.final_opponents),
    )  # fmt: skip
    return values


def train(config: Config, start: Start | None = None, command: str | None = None) -> Path:
    """Run the recipe as the config says (or continue the run ``start.resume``); returns the run folder.
    ``command``: the command line that asked for it, kept in the run's record of its legs."""
    for stage in config.running():
        config.stage(stage).prepare()  # a ValueError naming what a stage reads (a config file) before anything starts
    recipe = Recipe(config, start or Start(), command)
    return recipe.run()


def main(argv: list[str] | None = None) -> int:
    config, start = parse(Config, argv, __doc__.splitlines()[0], prog="python -m train.recipe")
    command = shlex.join(["python", "-m", "train.recipe", *(sys.argv[1:] if argv is None else argv)])
    try:
        train(config, start, command)
    except ValueError as e:
        print(f"python -m train.recipe: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
