"""Check a finished recipe run against the bar a network must pass to ship, and write it with its provenance.

Run: ``python -m train.tools.ship runs/NAME [--out smear_nets/weights/neural.pt] [--against neural:v0.3.0]
[--games 2000] --seed N [--bar 0.55] [--slowdown 2]``.

It plays the run's ``final.pt`` against ``--against`` in the duplicate format on fresh deal sets of the declared
``--seed`` and says whether both bars are met: the **whole** 95% interval of the win rate above ``--bar``, and the
network's decisions a second (in that match) no worse than ``1/--slowdown`` of its opponent's. Only then, and
only given ``--out``, it writes the network (slim, as ``train.tools.export`` does) and beside it its ``.json``,
the network's provenance: the one command that made it, its whole config, each leg of the run (the start and
every ``--resume``: the kit's commit, the date, the run's clock then), the compute, and the match's figures with
the command that plays it again (its bid and made rates among them). A run that falls short writes nothing and
exits 1; ``--report FILE.json`` keeps the figures either way. It refuses to overwrite a file that exists.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from tyro.conf import Positional, arg

from agents.arena import run_match
from smear_env.files import atomic_write
from smear_nets import Checkpoint, load_checkpoint, save_checkpoint

from ..config import cli


@dataclass
class Config:
    """Which run is checked, against what, and where the network goes if it passes."""

    run: Positional[Annotated[str, arg(metavar="RUN")]]
    """a finished recipe run's folder (runs/NAME: its final.pt and recipe.json)"""
    seed: int
    """the seed of the match's deal sets (declare a fresh one: deals no figure was chosen on)"""
    against: str = "neural:v0.3.0"
    """the agent to beat"""
    games: int = 2000
    """games of the match (twice its deal sets)"""
    bar: float = 0.55
    """the whole 95% interval of the win rate must lie above this"""
    slowdown: float = 2.0
    """the network's decisions a second must be at least its opponent's over this"""
    workers: int = 2
    """processes the match is played in"""
    out: str | None = None
    """where to write the network if it passes (its provenance beside it, .pt made .json); none: only check"""
    report: str | None = None
    """a JSON file for the match's figures and the verdict, written whether it passes or not"""


def check(config: Config) -> dict[str, Any]:
    """The match and the verdict (a ValueError names what is wrong with the run or the flags)."""
    folder = Path(config.run)
    state_file, final = folder / "recipe.json", folder / "final.pt"
    if not state_file.is_file():
        raise ValueError(f"{folder}: not a recipe run (no recipe.json)")
    if not final.is_file():
        raise ValueError(
            f"{folder}: the run has not finished (no final.pt): resume it with python -m train.recipe --resume {folder}"
        )
    if not 0 < config.bar < 1 or config.slowdown < 1 or config.games < 2:
        raise ValueError("--bar is a win rate between 0 and 1, --slowdown 1 or more, --games 2 or more")
    for path in (config.out, config.out and Path(config.out).with_suffix(".json"), config.report):
        if path and Path(path).exists():
            raise ValueError(f"{path} exists: ship to a new name (nothing is overwritten)")
    state = json.loads(state_file.read_text())
    made = f"neural:{final}"
    summary = run_match(made, config.against, games=config.games, seed=config.seed, workers=config.workers).summary()
    low, high = summary["win_rate_ci95"]
    speeds = list(summary["decisions_per_second"].values())  # the network's first
    speed = speeds[0] / speeds[-1]
    passes = low > config.bar and speed >= 1 / config.slowdown
    replay = [
        "smear-eval",
        made,
        config.against,
        "--games",
        str(config.games),
        "--seed",
        str(config.seed),
        "--workers",
        str(config.workers),
    ]
    return {
        "passes": passes,
        "bar": {"above": config.bar, "slowdown_at_most": config.slowdown},
        "against": config.against,
        "win_rate": summary["win_rate"],
        "ci95": [low, high],
        "games": summary["games"],
        "seed": config.seed,
        "speed_ratio": speed,
        "command": shlex.join(replay),
        "date": time.strftime("%Y-%m-%d"),
        "run": {
            "command": state["legs"][0].get("command") if state.get("legs") else None,
            "legs": state.get("legs", []),
            "resumes": state.get("resumes", 0),
            "minutes": state.get("elapsed", 0.0) / 60,
        },
        "match": summary,
    }


def provenance(verdict: dict[str, Any], network: Checkpoint) -> dict[str, Any]:
    """What ships beside the network: one command, its config, the legs, the compute, the figures."""
    run = verdict["run"]
    match = verdict["match"]
    return {
        "what": f"neural: a {network.network.kind} network made from random weights by one run of the recipe",
        "command": run["command"],
        "config": network.extra.get("recipe"),
        "legs": run["legs"],
        "compute": f"{run['minutes']:.0f} minutes of the run's clock (wall clock, all stages), {run['resumes']} resumes",
        "date": verdict["date"],
        "figures": {
            f"vs {verdict['against']}, {verdict['games']:,} games, seed {verdict['seed']} (declared, fresh deal sets)": (
                f"{verdict['win_rate']:.3f} [{verdict['ci95'][0]:.3f}, {verdict['ci95'][1]:.3f}]"
            ),
            "decisions per second in that match, against its opponent's": f"{verdict['speed_ratio']:.2f}x",
            "the command": verdict["command"],
        },
        "bidding": {key: match[key] for key in ("bid_rate", "made_bid_rate", "contracts")},
    }


def main(argv: list[str] | None = None) -> int:
    config = cli(Config, argv, __doc__.splitlines()[0], "python -m train.tools.ship")
    try:
        verdict = check(config)
    except ValueError as e:
        print(f"python -m train.tools.ship: error: {e}", file=sys.stderr)
        return 2
    low, high = verdict["ci95"]
    print(
        f"{verdict['win_rate']:.3f} [{low:.3f}, {high:.3f}] against {verdict['against']} ({verdict['games']} games, seed "
        f"{verdict['seed']}), {verdict['speed_ratio']:.2f}x its speed: "
        + (
            "passes"
            if verdict["passes"]
            else f"does not pass (the interval must lie above {config.bar}, the speed at least 1/{config.slowdown:g}x)"
        )
    )
    if config.report:
        atomic_write(Path(config.report), lambda f: json.dump(verdict, f, indent=2))
    if not verdict["passes"]:
        return 1
    if config.out:
        final, out = Path(config.run) / "final.pt", Path(config.out)
        network = load_checkpoint(final)
        extra = {k: v for k, v in network.extra.items() if k in ("recipe", "minutes", "suits")}
        save_checkpoint(out, network.network, network.rules, network.model, **extra)
        atomic_write(out.with_suffix(".json"), lambda f: json.dump(provenance(verdict, network), f, indent=2))
        print(f"wrote {out} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
