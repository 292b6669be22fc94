"""Hyper-parameter sweeps with Ray Tune: trials of a trainer, stopped early by ASHA on the duplicate
win rate against ``eval_opponent`` (``heuristic`` by default) at each evaluation.

Run: ``python -m train.tools.sweep --config sweep_dmc [--address ADDR]`` (needs the
``ray`` extra). The sweep file names the trainer and its base config, the fields to search,
the scheduler and the trials' resources (see ``configs/sweep_dmc.yaml``). It writes
``OUT/results.csv`` and ``OUT/results.md`` (every trial: its values, its last and best win
rate, its evaluations) and ``OUT/best_config.yaml`` (a trainer config: train it with
``python -m train.dmc --config OUT/best_config.yaml``); each trial's run folder is in
``OUT/trials/``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import tyro
import yaml

from smear_env.files import atomic_write
from smear_rl.cluster import need_ray

from .. import dmc, ppo
from ..config import cli, find_config, from_mapping, to_mapping

TRAINERS = {"dmc": dmc, "ppo": ppo}
SPACES = {"grid": "grid_search", "choice": "choice", "uniform": "uniform", "loguniform": "loguniform", "randint": "randint"}
"""The search spaces a sweep file may name, and Tune's function for each (grid and choice take a list, the others bounds)."""


def search_space(kind: str, values: list[Any]) -> Any:
    from ray import tune

    function = getattr(tune, SPACES[kind])
    return function(values) if kind in ("grid", "choice") else function(*values)


def read_sweep(path: Path) -> dict[str, Any]:
    """The sweep file, checked: every searched field exists in the trainer's config, every space is known."""
    sweep = yaml.safe_load(path.read_text())
    if not isinstance(sweep, dict):
        raise ValueError(f"{path}: a mapping (trainer, base, search, ...)")
    known = {"trainer", "base", "overrides", "search", "num_samples", "scheduler", "resources_per_trial", "out", "ray_address"}
    unknown = sorted(set(sweep) - known)
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {unknown}; allowed are {sorted(known)}")
    if sweep.get("trainer", "dmc") not in TRAINERS:
        raise ValueError(f"{path}: trainer {sweep.get('trainer')!r}: one of {list(TRAINERS)}")
    fields = set(TRAINERS[sweep.get("trainer", "dmc")].Config.__dataclass_fields__)
    for name, space in (sweep.get("search") or {}).items():
        if name not in fields:
            raise ValueError(f"{path}: search field {name!r} is not a field of the trainer's config")
        if not (isinstance(space, dict) and len(space) == 1 and next(iter(space)) in SPACES):
            raise ValueError(f"{path}: search {name}: one of {{{', '.join(f'{k}: ...' for k in SPACES)}}}, got {space!r}")
    return sweep


def base_values(sweep: dict[str, Any]) -> dict[str, Any]:
    """The trainer config every trial starts from: the base config's values (a path or a built-in's name) and the overrides."""
    values: dict[str, Any] = {}
    if sweep.get("base"):
        values.update(yaml.safe_load(find_config(str(sweep["base"])).read_text()) or {})
    values.update(sweep.get("overrides") or {})
    return values


def trial(params: dict[str, Any], trainer: str, values: dict[str, Any], trials: str) -> None:
    """One trial: the trainer with the searched values, each evaluation reported to Tune."""
    from ray import tune

    context = tune.get_context()
    config = from_mapping(
        TRAINERS[trainer].Config,
        {**values, **params, "runs_dir": trials, "run_name": context.get_trial_id(), "log_seconds": 60.0},
    )
    TRAINERS[trainer].train(config, report=lambda result: tune.report({"win_rate": result["win_rate"], "step": result["step"]}))


@dataclass
class Config:
    """Which sweep ``python -m train.tools.sweep`` runs, on which cluster, and where its results go."""

    config: Annotated[str, tyro.conf.arg(metavar="NAME|SWEEP.yaml")]
    """the sweep file, or a built-in's name (sweep_dmc)"""
    address: str | None = None
    """the Ray cluster to join (none: the file's ray_address, else a local Ray)"""
    out: str | None = None
    """where results go (none: the file's out)"""


def main(argv: list[str] | None = None) -> int:
    args = cli(Config, argv, __doc__.splitlines()[0], "python -m train.tools.sweep")
    try:
        path = find_config(args.config)
        sweep = read_sweep(path)
        trainer = sweep.get("trainer", "dmc")
        values = base_values(sweep)
        from_mapping(TRAINERS[trainer].Config, values)  # the base config is valid before anything starts
    except (OSError, ValueError) as e:
        print(f"python -m train.tools.sweep: error: {e}", file=sys.stderr)
        return 2
    try:
        need_ray("a sweep")
    except ValueError as e:
        print(f"python -m train.tools.sweep: error: {e}", file=sys.stderr)
        return 2
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler

    from smear_rl.cluster import connect, disconnect

    out = Path(args.out or sweep.get("out", f"runs/sweeps/{path.stem}")).resolve()
    if out.exists():
        print(f"python -m train.tools.sweep: error: {out} already exists: give another --out", file=sys.stderr)
        return 2
    space = {
        name: search_space(kind, bounds) for name, spec in (sweep.get("search") or {}).items() for kind, bounds in spec.items()
    }
    options = dict(sweep.get("scheduler") or {})
    if options.pop("name", "asha") != "asha":
        print("python -m train.tools.sweep: error: scheduler name: asha", file=sys.stderr)
        return 2
    scheduler = ASHAScheduler(time_attr="training_iteration", **options)  # an iteration: one evaluation
    resources = sweep.get("resources_per_trial") or {"cpu": 1}
    connect(args.address or sweep.get("ray_address"))
    try:
        function = tune.with_parameters(trial, trainer=trainer, values=values, trials=str(out / "trials"))
        tuner = tune.Tuner(
            tune.with_resources(function, resources),
            param_space=space,
            tune_config=tune.TuneConfig(
                metric="win_rate", mode="max", scheduler=scheduler, num_samples=int(sweep.get("num_samples", 1))
            ),
            run_config=tune.RunConfig(storage_path=str(out / "ray_results"), name=path.stem, verbose=1),
        )
        results = tuner.fit()
    finally:
        disconnect()
    rows: list[dict[str, Any]] = []
    for result in (results[i] for i in range(len(results))):  # a ResultGrid, indexed (its stubs know no iteration)
        history = result.metrics_dataframe
        evaluations = [] if history is None else history["win_rate"].tolist()
        rows.append(
            {
                "trial": Path(result.path).name,
                **{name: (result.config or {}).get(name) for name in space},
                "evaluations": len(evaluations),
                "last_win_rate": evaluations[-1] if evaluations else None,
                "best_win_rate": max(evaluations) if evaluations else None,
                "error": bool(result.error),
            }
        )
    rows.sort(key=lambda r: -(r["best_win_rate"] or 0))
    columns = list(rows[0]) if rows else []
    atomic_write(
        out / "results.csv",
        lambda f: f.write(
            "\n".join(",".join(str(r[c]) for c in columns) for r in [dict(zip(columns, columns, strict=True)), *rows]) + "\n"
        ),
    )
    table = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    table += ["| " + " | ".join(f"{r[c]:.4g}" if isinstance(r[c], float) else str(r[c]) for c in columns) + " |" for r in rows]
    atomic_write(out / "results.md", lambda f: f.write("\n".join(table) + "\n"))
    best = results.get_best_result(metric="win_rate", mode="max", scope="all")
    best_config = to_mapping(from_mapping(TRAINERS[trainer].Config, {**values, **(best.config or {})}))
    best_config.pop("runs_dir"), best_config.pop("run_name")
    atomic_write(out / "best_config.yaml", lambda f: yaml.safe_dump(best_config, f, sort_keys=False))
    print("\n".join(table))
    print(
        f"best: {best.config} (win rate {(best.metrics or {}).get('win_rate')}); wrote {out / 'results.csv'}, {out / 'results.md'}, {out / 'best_config.yaml'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
