"""What the trainers share about a run, written once: its folder, logs, progress, schedule, checkpoints.

A run lives in ``runs/{run_name}/``: ``config.yaml`` (the resolved config), TensorBoard
events (``charts/``, ``losses/``, ``eval/``), ``train.log`` (every logged line),
``checkpoint.pt`` (``smear_nets`` format plus the trainer's state, written atomically) and
``snapshots/step_N.pt`` (the network at each evaluation, playable as ``neural:PATH``).

A new run refuses a folder that exists (``--resume`` continues it; ``--force`` deletes it
first; ``--suffix`` starts in ``NAME-2``, ...). A run that fails to start leaves no folder
behind. ``--resume`` purges TensorBoard events after the checkpoint's step, so curves
never go backwards, and keeps the evaluation and pool schedule.
"""

from __future__ import annotations

import ast
import random
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from agents import load_agent
from agents.arena import MatchResult, format_summary, play_deal_set
from agents.neural import NeuralAgent
from smear_env.files import atomic_write
from smear_nets import NetworkSpec, load_checkpoint, save_checkpoint
from smear_nets.checkpoint import CHECKPOINT
from smear_nets.device import machine

from .config import RunConfig, Start, to_mapping

CONFIG = "config.yaml"
LOG = "train.log"
SNAPSHOTS = "snapshots"


def seed_everything(seed: int) -> np.random.Generator:
    """Seed python, numpy's legacy global state (for libraries) and torch; return the run's generator."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    return np.random.default_rng(seed)


def rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """Every random state of the run as plain values (loadable with weights_only=True)."""
    return {"numpy": rng.bit_generator.state, "python": repr(random.getstate()), "torch": torch.get_rng_state()}


def restore_rng_state(rng: np.random.Generator, state: dict[str, Any]) -> None:
    rng.bit_generator.state = state["numpy"]
    random.setstate(ast.literal_eval(state["python"]))
    torch.set_rng_state(state["torch"])


def folder_for(config: Any, start: Start, marker: str = CHECKPOINT) -> Path:
    """The run's folder: the one resumed (it must hold ``marker``), or ``runs_dir/run_name`` (refused if it exists,
    unless forced or suffixed). ``config`` is any config with those two fields (a trainer's, the recipe's)."""
    if start.resume is not None:
        if not (start.resume / marker).is_file():
            raise ValueError(f"--resume {start.resume}: no {marker} there to continue from")
        return start.resume
    folder = Path(config.runs_dir) / config.run_name
    if not folder.exists() or start.force:
        return folder
    if start.suffix:
        n = 2
        while folder.with_name(f"{folder.name}-{n}").exists():
            n += 1
        return folder.with_name(f"{folder.name}-{n}")
    raise ValueError(
        f"run folder {folder} already exists: continue that run with --resume {folder}, start anew in it with "
        f"--force (deletes it first), start in a new folder with --suffix, or give another --run-name"
    )


class Run:
    """A run in progress: a context manager around the training loop (see the module docstring).

    ``resumed`` holds the checkpoint being continued (None for a new run); ``state`` the
    schedule and counters that checkpoints keep.
    """

    def __init__(self, config: RunConfig, start: Start, network: NetworkSpec, precision: tuple[str, str] | None = None) -> None:
        self.config, self.start, self.network = config, start, network
        self.precision = precision  # the arithmetic the trainer chose for its precision setting, and why
        self.folder = folder_for(config, start)
        self.resumed = load_checkpoint(self.folder) if start.resume else None
        extra = self.resumed.extra if self.resumed else {}
        self.step = int(extra.get("global_step", 0))
        self.elapsed = float(extra.get("elapsed", 0.0))
        self.schedule: dict[str, int] = dict(extra.get("schedule", {"eval": self.step, "pool": self.step}))
        self.last_eval: dict[str, Any] | None = extra.get("last_eval")
        self._created = False
        self._checkpointed = False

    # ------------------------------------------------------------------ lifetime
    def __enter__(self) -> Run:
        if self.start.force and not self.start.resume and self.folder.exists():
            shutil.rmtree(self.folder)
        self._created = not self.folder.exists()
        self.folder.mkdir(parents=True, exist_ok=True)
        here = machine()
        recorded: dict[str, Any] = {**to_mapping(self.config), "machine": here.to_dict()}
        if self.precision is not None:
            recorded["chosen"] = {"precision": self.precision[0], "why": self.precision[1]}  # this leg's choice
        atomic_write(self.folder / CONFIG, lambda f: yaml.safe_dump(recorded, f, sort_keys=False))
        self.log_file = open(self.folder / LOG, "a", buffering=1)  # noqa: SIM115 - closed in __exit__
        # purge_step: events after the checkpoint's step (written before a kill) are dropped.
        self.writer = SummaryWriter(str(self.folder), purge_step=self.step if self.resumed else None)
        self.started = time.time()
        self._last_line = self.started
        self._last_logged = self.step
        self._scalars: dict[str, list[float]] = {}
        self._last_checkpoint = self.started
        self.bar = tqdm(
            total=self.config.total_steps, initial=self.step, unit=" agent-steps", unit_scale=True, file=sys.stderr,
            dynamic_ncols=True, mininterval=1.0, desc=self.folder.name, disable=None,  # None: no bar unless a terminal
        )  # fmt: skip
        what = f"resumed {self.folder} at step {self.step:,}" if self.resumed else f"run {self.folder}"
        self.say(f"{what}; config in {self.folder / CONFIG}; tensorboard --logdir {self.folder.parent}")
        self.say(f"machine: {here.line()}")
        if self.precision is not None:
            self.say(f"precision {self.precision[0]}: {self.precision[1]}")
        return self

    def __exit__(self, kind, error, traceback) -> None:
        self.bar.close()
        self.writer.close()
        self.log_file.close()
        if error is not None and self._created and not self._checkpointed:
            shutil.rmtree(self.folder, ignore_errors=True)  # a run that never started leaves nothing

    # ------------------------------------------------------------------ time and schedule
    def start_clock(self) -> float:
        """Training starts now: ``max_seconds`` and the run's time count from here, so set-up (actors
        starting on a busy cluster, say) takes nothing from the budget. Returns the time."""
        self.started = self._last_line = self._last_checkpoint = time.time()
        return self.started

    def seconds(self) -> float:
        """Training time of the run, resumed parts added up."""
        return self.elapsed + time.time() - self.started

    def running(self) -> bool:
        """Whether the run goes on: steps left, and time left if ``max_seconds`` is set."""
        limit = self.config.max_seconds
        return self.step < self.config.total_steps and not (limit and time.time() - self.started > limit)

    def due(self, name: str, every: int) -> bool:
        """Whether ``every`` agent-steps have passed since ``name`` was last done (then it counts as done)."""
        if self.step - self.schedule.get(name, 0) < every:
            return False
        self.schedule[name] = self.step
        return True

    # ------------------------------------------------------------------ logging
    def say(self, line: str) -> None:
        """A line on the console (stdout, above the progress bar on stderr) and in ``train.log``."""
        self.bar.write(line, file=sys.stdout)
        self.log_file.write(line + "\n")

    def advance(self, steps: int, scalars: dict[str, float], speed: float) -> None:
        """Count ``steps`` agent-steps and keep ``scalars`` (TensorBoard tag -> value); every
        ``50 * num_envs`` agent-steps log their means to TensorBoard with a raw line in ``train.log``,
        and every ``log_seconds`` a console line with the loss and the latest evaluation."""
        self.step += steps
        self.bar.update(steps)
        for tag, value in scalars.items():
            self._scalars.setdefault(tag, []).append(value)
        if self.step - self._last_logged < 50 * self.config.num_envs:
            return
        self._last_logged = self.step
        means = {tag: float(np.mean(values)) for tag, values in self._scalars.items()}
        self._scalars.clear()
        for tag, value in means.items():
            self.writer.add_scalar(tag, value, self.step)
        self.writer.add_scalar("charts/agent_steps_per_second", speed, self.step)
        fields = "  ".join(f"{tag.split('/')[-1]} {value:.4g}" for tag, value in means.items())
        line = f"step {self.step:>11,}  {speed:8,.0f} agent-steps/s  {fields}"
        self.log_file.write(line + "\n")
        if time.time() - self._last_line >= self.config.log_seconds:
            self._last_line = time.time()
            evaluation = ""
            if self.last_eval is not None:
                low, high = self.last_eval["win_rate_ci95"]
                evaluation = (
                    f"  last eval vs {self.config.eval_opponent} {self.last_eval['win_rate']:.3f} [{low:.3f}, {high:.3f}]"
                )
            self.say(line + evaluation)

    # ------------------------------------------------------------------ evaluation, checkpoints
    def evaluate(self, network: torch.nn.Module, report: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
        """Keep a snapshot of the network and play it against ``eval_opponent`` in the duplicate format
        (fixed deal sets); log the result and hand it to ``report`` (a sweep's metric)."""
        self.snapshot(network)
        summary = evaluate(network, self.config, self.config.eval_opponent, self.config.eval_games)
        self.last_eval = summary
        low, high = summary["win_rate_ci95"]
        opponent = self.config.eval_opponent
        tag = opponent.replace(":", "_").replace("/", "_")
        self.writer.add_scalar(f"charts/win_rate_vs_{tag}", summary["win_rate"], self.step)
        self.writer.add_scalar(f"eval/win_rate_vs_{tag}_ci_low", low, self.step)
        self.writer.add_scalar(f"eval/win_rate_vs_{tag}_ci_high", high, self.step)
        self.writer.add_scalar(f"charts/score_margin_per_hand_vs_{tag}", summary["score_margin_per_hand"], self.step)
        points = summary["points_by_category"]["learner"]
        self.writer.add_scalar(f"charts/points_per_hand_vs_{tag}", sum(points.values()), self.step)
        self.writer.add_scalar("charts/episode_length_hands", summary["hands"] / max(summary["games"], 1), self.step)
        self.writer.add_scalar("charts/bid_rate", sum(summary["bid_rate"]["learner"].values()), self.step)
        contracts, made = summary["contracts"]["learner"], summary["made_bid_rate"]["learner"]
        if sum(contracts.values()):
            rate = sum((made[k] or 0) * contracts[k] for k in contracts) / sum(contracts.values())
            self.writer.add_scalar("charts/made_bid_rate", rate, self.step)
        self.say(f"eval at {self.step:,}: win rate vs {opponent} {summary['win_rate']:.3f} [{low:.3f}, {high:.3f}]")
        if report is not None:
            report({"step": self.step, "win_rate": summary["win_rate"], "seconds": self.seconds()})
        return summary

    def snapshot(self, network: torch.nn.Module) -> Path:
        """The network as it is now, in ``snapshots/step_N.pt`` (plays as ``neural:PATH``)."""
        path = self.folder / SNAPSHOTS / f"step_{self.step:012d}.pt"
        save_checkpoint(
            path, self.network, self.config.rules, _cpu(network.state_dict()), global_step=self.step, elapsed=self.seconds()
        )
        return path

    def checkpoint_due(self) -> bool:
        return time.time() - self._last_checkpoint >= self.config.checkpoint_seconds

    def checkpoint(self, network: torch.nn.Module, **trainer_state: Any) -> None:
        """Write ``checkpoint.pt``: the network (``smear_nets`` format), the config, the step, the training time, the
        schedule, the latest evaluation and whatever else the trainer keeps (optimizer, pool, RNG states)."""
        save_checkpoint(
            self.folder / CHECKPOINT, self.network, self.config.rules, _cpu(network.state_dict()),
            config=to_mapping(self.config), global_step=self.step, elapsed=self.seconds(), schedule=dict(self.schedule),
            last_eval=self.last_eval, **trainer_state,
        )  # fmt: skip
        self._checkpointed = True
        self._last_checkpoint = time.time()

    def finish(
        self, network: torch.nn.Module, report: Callable[[dict[str, Any]], None] | None, speed: float, **trainer_state: Any
    ) -> None:
        """The end of a run: an evaluation unless one was made at this step, the last checkpoint, a summary."""
        done = self.schedule.get("eval") == self.step and self.last_eval
        summary = self.last_eval if done and self.last_eval else self.evaluate(network, report)
        self.checkpoint(network, **trainer_state)
        self.say(f"trained {self.step:,} agent-steps ({speed:,.0f}/s); checkpoint {self.folder / CHECKPOINT}")
        self.say(describe(summary))


def _cpu(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {k: v.detach().cpu() for k, v in state.items()}


def evaluate(network: torch.nn.Module, config: RunConfig, opponent: str, games: int, seed: int = 12345) -> dict[str, Any]:
    """The arena summary of the network against ``opponent`` (duplicate format, fixed deal sets)."""
    was_training = network.training
    network.eval()
    learner = NeuralAgent.of(network, config.rules, name="learner")
    other = load_agent(opponent)
    sets = [play_deal_set((learner, other), config.rules, seed, d, False) for d in range((games + 1) // 2)]
    network.train(was_training)
    return MatchResult(("learner", opponent), config.rules, seed, sets).summary()


def describe(summary: dict[str, Any]) -> str:
    return format_summary(summary)
