"""Train the model of the hidden cards (``smear_nets`` kind ``beliefs``) on games the kit generates, and measure it.

    python -m train.beliefs --out agents/weights/beliefs.pt --minutes 10

From one seat's observation the network predicts, for every card the seat cannot see, where it
lies: the seat's left, its partner, its right, or out of play (the kitty cards nobody picked up,
another bidder's discards). It learns from positions streamed from the batched engine, at every
decision of the seat to act, in games where each team is played by a network (``--player``, the
shipped ``neural`` by default) or the ``heuristic`` player (a little epsilon-greedy noise keeps
the positions varied).

The measure, on held-out positions of the same kind of games, next to the uniform consistent
sampler (``smear_env.DealSampler``, every deal consistent with the view equally likely; its
probabilities estimated from ``--sampler-draws`` deals per position): the log-loss per hidden
card (nats) and the calibration (predicted probability against observed frequency, by bins).
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812

from agents import load_agent
from agents.neural import NeuralAgent
from smear_env import DealSampler, SmearVectorEnv, seat_view
from smear_env import vector_kernels as K  # noqa: N812 - the batch's state columns
from smear_env.files import atomic_write
from smear_nets import NetworkSpec, build_network, save_checkpoint

from .config import Sizes, cli, refuse
from .run import seed_everything

PROG = "python -m train.beliefs"

UNKNOWN = -1  # label of a card the seat can see (no loss on it)


def labels(venv: SmearVectorEnv, seats: np.ndarray) -> np.ndarray:
    """[B, 32] where each card lies from ``seats[i]``'s side: 0 left, 1 partner, 2 right, 3 out of play,
    -1 for a card that seat can see (its own, played, or its own pick-up and discards as the bidder)."""
    n = venv.num_envs
    games = np.arange(n)
    bit = np.uint32(1) << np.arange(32, dtype=np.uint32)
    hold = venv.m[:, K.HOLD : K.HOLD + 4]
    known = hold[games, seats] | venv.m[:, K.ALL_PLAYED]
    bidder_sees = (venv.bidder == seats) & (venv.phase != 0)
    known = known | np.where(bidder_sees, venv.m[:, K.PICKED] | venv.m[:, K.DISCARDED], 0).astype(np.uint32)
    out = np.full((n, 32), 3, dtype=np.int64)
    for k in (1, 2, 3):
        held = hold[games, (seats + k) % 4]
        out[(held[:, None] & bit[None, :]) != 0] = k - 1
    out[(known[:, None] & bit[None, :]) != 0] = UNKNOWN
    return out


class Positions:
    """Positions of games between a network (``player``) and the heuristic player, batch by batch: each team of
    a game is the network's with chance ``neural_share`` (1: every seat the network's), and a share ``epsilon``
    of the moves is random (it keeps the positions varied)."""

    def __init__(self, games: int, seed: int, player: NeuralAgent, epsilon: float = 0.05, neural_share: float = 0.7) -> None:
        self.venv = SmearVectorEnv(games, seed=seed, reward="margin", copy=False, rules=player.rules)
        self.obs, self.info = self.venv.reset()
        self.rng = np.random.default_rng(seed)
        self.neural, self.heuristic = player, load_agent("heuristic")
        self.neural_share = neural_share
        self.team_plays_neural = self.rng.random((games, 2)) < neural_share
        self.epsilon = epsilon

    def next(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """This step's observations of the seats to act, their labels, and the games (then one step is played)."""
        venv, info = self.venv, self.info
        seat = info["seat"]
        obs, y = self.obs.copy(), labels(venv, seat)
        actions = venv.sample_actions(self.rng)
        neural = self.team_plays_neural[np.arange(venv.num_envs), seat & 1] & (self.rng.random(venv.num_envs) >= self.epsilon)
        idx = np.flatnonzero(neural)
        if idx.size:
            actions[idx] = self.neural.act_batch(obs[idx], info["action_mask"][idx], None)
        for i in np.flatnonzero(~neural & (self.rng.random(venv.num_envs) >= self.epsilon)).tolist():
            actions[i] = self.heuristic.act(obs[i], info["action_mask"][i], seat_view(venv.game(i), int(seat[i])))
        self.obs, _, _, _, self.info = venv.step(actions)
        done = self.info.get("_final")
        if done is not None and done.any():
            self.team_plays_neural[done] = self.rng.random((int(done.sum()), 2)) < self.neural_share
        return obs, y, seat


def held_out(
    positions: int, seed: int, draws: int, player: NeuralAgent, neural_share: float = 0.7, seconds: float = math.inf
) -> dict[str, np.ndarray]:
    """Held-out positions with their labels and the uniform sampler's estimated probabilities (fewer than
    ``positions`` if ``seconds`` run out first; at least one batch's)."""
    stream = Positions(256, seed, player, neural_share=neural_share)
    rng = np.random.default_rng(seed)
    obs: list[np.ndarray] = []
    y: list[np.ndarray] = []
    uniform: list[np.ndarray] = []
    ends = time.time() + seconds
    while sum(len(o) for o in obs) < positions and (not obs or time.time() < ends):
        venv, seats = stream.venv, stream.info["seat"]
        picks = rng.choice(venv.num_envs, size=16, replace=False)
        snapshots = [(venv.game(int(i)), int(seats[i])) for i in picks]  # the positions the next batch shows
        batch_obs, batch_y, _ = stream.next()
        obs.append(batch_obs[picks])
        y.append(batch_y[picks])
        uniform.append(np.stack([_uniform_probabilities(game, seat, draws, rng) for game, seat in snapshots]))
    return {
        "obs": np.concatenate(obs)[:positions],
        "labels": np.concatenate(y)[:positions],
        "uniform": np.concatenate(uniform)[:positions],
    }


def _uniform_probabilities(game, seat: int, draws: int, rng: np.random.Generator) -> np.ndarray:
    """[32, 4]: how often the uniform consistent sampler puts each card at each place (left, partner, right, out)."""
    sampler = DealSampler(seat_view(game, seat))
    counts = np.zeros((32, 4))
    column = [(s - seat) % 4 - 1 for s in sampler.others] + [3, 3]
    for _ in range(draws):
        for place, cards in enumerate(sampler.deal(rng)):
            counts[cards, column[place]] += 1
    return (counts + 0.5) / (counts.sum(axis=1, keepdims=True) + 2.0)  # add-half smoothing of the estimate


def measure(model: torch.nn.Module, data: dict[str, np.ndarray], bins: int = 10) -> dict[str, Any]:
    """Log-loss per hidden card of the model and of the uniform sampler, and the model's calibration."""
    with torch.no_grad():
        probs = torch.softmax(model(torch.from_numpy(data["obs"])), dim=-1).numpy()
    y = data["labels"]
    hidden = y != UNKNOWN
    rows, cards = np.nonzero(hidden)
    truth = y[rows, cards]
    model_p = probs[rows, cards, truth]
    uniform_p = data["uniform"][rows, cards, truth]
    calibration = []
    flat = probs[rows, cards].ravel()
    hit = (np.arange(4)[None, :] == truth[:, None]).ravel()
    edges = np.linspace(0, 1, bins + 1)
    for low, high in zip(edges[:-1], edges[1:], strict=True):
        inside = (flat >= low) & (flat < high if high < 1 else flat <= high)
        if inside.any():
            calibration.append(
                [float(low), float(high), int(inside.sum()), float(flat[inside].mean()), float(hit[inside].mean())]
            )
    ece = sum(c[2] * abs(c[3] - c[4]) for c in calibration) / max(1, sum(c[2] for c in calibration))
    return {
        "positions": int(len(y)),
        "hidden_cards": int(hidden.sum()),
        "log_loss_model": float(-np.log(np.clip(model_p, 1e-9, 1)).mean()),
        "log_loss_uniform_sampler": float(-np.log(uniform_p).mean()),
        "calibration_bins": calibration,  # [low, high, count, mean predicted, observed frequency]
        "expected_calibration_error": float(ece),
    }


def learn(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    stream: Positions,
    seconds: float,
    tick: Callable[[int], None] | None = None,
    every: float = 60.0,
) -> int:
    """``model`` on ``stream``'s positions for ``seconds`` (cross-entropy of where each hidden card lies);
    ``tick(positions)`` every ``every`` seconds (a checkpoint). Returns the positions seen."""
    started, steps, seen, losses = time.time(), 0, 0, []
    next_tick = started + every
    model.train()
    while time.time() - started < seconds:
        obs, y, _ = stream.next()
        logits = model(torch.from_numpy(obs))
        loss = F.cross_entropy(logits.reshape(-1, 4), torch.from_numpy(y).reshape(-1), ignore_index=UNKNOWN)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        steps, seen = steps + 1, seen + len(obs)
        if steps % 200 == 0:
            print(f"{time.time() - started:6.0f} s  {seen:,} positions  loss {np.mean(losses):.4f}", flush=True)
            losses.clear()
        if tick is not None and time.time() >= next_tick:
            tick(seen)
            next_tick = time.time() + every
    model.eval()
    return seen


@dataclass
class Config:
    """What ``python -m train.beliefs`` trains, for how long, and where it writes the model."""

    out: str
    """where to write the model (a smear_nets checkpoint; its measure beside it, .json)"""
    minutes: float = 10.0
    """training time"""
    games: int = 1024
    """games stepped in lockstep for the training positions"""
    hidden: Sizes = (512, 256)
    """hidden layer sizes"""
    learning_rate: float = 1e-3
    """Adam learning rate"""
    held_out: int = 4000
    """held-out positions for the measure"""
    sampler_draws: int = 300
    """deals per held-out position for the uniform sampler"""
    player: str = "neural"
    """the network that plays one team in most games: a neural agent spec"""
    seed: int = 0
    """seed of the games and of the network's weights"""
    force: bool = False
    """overwrite --out if it exists"""

    def __post_init__(self) -> None:
        if not self.minutes > 0 or not self.learning_rate > 0:
            raise ValueError(f"--minutes {self.minutes} and --learning-rate {self.learning_rate}: both above 0")
        for name in ("games", "held_out", "sampler_draws"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} {getattr(self, name)}: at least 1")
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"--hidden {self.hidden}: one or more positive layer sizes, e.g. 512 256")


def main(argv: list[str] | None = None) -> int:
    config = cli(Config, argv, __doc__.splitlines()[0], PROG)
    out = Path(config.out)
    if out.exists() and not config.force:
        refuse(PROG, f"{out} exists: give --force to overwrite it")
    try:
        player = load_agent(config.player)
    except ValueError as e:
        refuse(PROG, f"--player {config.player}: {e}")
    if not isinstance(player, NeuralAgent):
        refuse(PROG, f"--player {config.player}: a network is needed (neural, neural:NAME, neural:PATH)")
    rules = player.rules
    seed_everything(config.seed)
    torch.set_num_threads(2)
    spec = NetworkSpec("beliefs", tuple(config.hidden))
    model = build_network(spec)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    seen = learn(model, optimizer, Positions(config.games, config.seed, player), 60 * config.minutes)
    save_checkpoint(out, spec, rules, model.state_dict(), positions=seen, minutes=config.minutes)
    print(f"wrote {out} ({seen:,} training positions)", flush=True)
    data = held_out(config.held_out, config.seed + 1_000_003, config.sampler_draws, player)
    report = measure(model, data)
    report.update(training_positions=seen, minutes=config.minutes, sampler_draws=config.sampler_draws, player=config.player)
    atomic_write(out.with_suffix(".json"), lambda f: json.dump(report, f, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k != "calibration_bins"}, indent=2))
    print(
        "calibration (predicted -> observed):", ", ".join(f"{c[3]:.2f}->{c[4]:.2f} ({c[2]})" for c in report["calibration_bins"])
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
