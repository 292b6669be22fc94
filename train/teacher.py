"""A teacher's values as a network's targets, shared by ``train.distill`` (which fits them) and ``train.dmc``
(which keeps a distilled network's card play with them beside its Monte-Carlo loss): the positions a
teacher judged, read from their shards, and the loss that measures a network against them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from agents.chances import Chances
from agents.neural import NeuralAgent
from agents.rollouts import play_out
from smear_env import NUM_ACTIONS, SmearVectorEnv

TEMPERATURE = 0.05  # points: the teacher's values of a card-play decision often differ by hundredths
VALUE_WEIGHT = 0.1


def load_positions(folders: list[Path]) -> dict[str, np.ndarray]:
    """The positions of every shard in ``folders``, concatenated."""
    shards = [p for folder in folders for p in sorted(folder.glob("*.npz"))]
    if not shards:
        raise ValueError(f"{', '.join(map(str, folders))}: no positions (shards *.npz) to fit on")
    parts = [dict(np.load(p)) for p in shards]
    parts = [p for p in parts if p]
    return {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "target", "phase")}


def as_tensors(data: dict[str, np.ndarray]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Positions as the fit and ``teacher_loss`` take them: observations (float32), the teacher's values
    (0 where unjudged), legal actions."""
    obs = torch.from_numpy(data["obs"].astype(np.float32, copy=False))
    return obs, torch.from_numpy(np.nan_to_num(data["target"], nan=0.0)), torch.from_numpy(data["mask"])


def teacher_loss(
    values: torch.Tensor,
    goal: torch.Tensor,
    legal: torch.Tensor,
    temperature: float,
    value_weight: float,
    policy_weight: float = 1.0,
    mean_weight: float = 1.0,
) -> torch.Tensor:
    """How far a network's ``values`` [batch, 72] are from the teacher's ``goal`` over the ``legal`` actions:
    ``policy_weight`` times the cross-entropy to the teacher's values as a soft policy at ``temperature``
    (points) plus ``value_weight`` times their mean squared error (illegal actions count in neither).

    The squared error is split in two: the error of each action's value less the position's mean over
    its legal actions (the ranking) and the error of that mean (the level of the position), the latter
    weighed ``mean_weight`` (1: the plain squared error). Labels whose level is noisy and whose ranking
    is not (the oracle's: a deal's luck moves every action's value alike) fit the ranking with less noise
    at a lower ``mean_weight``."""
    count = legal.sum(dim=-1, keepdim=True).clamp(min=1)
    error = (values - goal) * legal
    mean = error.sum(dim=-1, keepdim=True) / count
    ranking = (((error - mean) * legal) ** 2).sum()
    squared = value_weight * (ranking + mean_weight * (mean**2 * count).sum()) / legal.sum()
    if not policy_weight:
        return squared
    student = torch.log_softmax((values / temperature).masked_fill(~legal, -1e9), dim=-1)
    teacher = torch.softmax((goal / temperature).masked_fill(~legal, -1e9), dim=-1)
    return -policy_weight * (teacher * student).sum(dim=-1).mean() + squared


class OracleTeacher:
    """A teacher that sees every card, for training only: each legal action of a position valued by
    playing the hand out from the position as it truly is (``SmearVectorEnv.copy_positions``: the other
    hands, the kitty, another bidder's discards and pick-up as they are), ``policy`` at every seat, each
    deciding from its own observation as in a real game. The network's play is greedy, so one rollout
    an action is that action's exact value under its play on this deal: the hand's margin for the
    acting team, or with ``chances`` the change of the team's win chance times the table's scale.

    No agent can play by these values (they know the cards); a network fits them. Their mean over
    the positions a seat cannot tell apart, met in the policy's own games, is each action's value
    under the policy at the true odds of the hidden cards given everything seen so far (the critic
    of perfect-training-imperfect-execution, as in PerfectDou): a squared error finds that mean,
    while a cross-entropy to each deal's best action finds the vote of the deals (the strategy fusion
    of determinized search), so it is fitted with ``--policy-weight 0``. The games must be the
    student's own (``train.distill`` plays the student's choices, not the teacher's, at its labels):
    the odds of the hidden cards are those of the play that reached them."""

    ROWS = 256  # the batch of copies grows in steps of this many games (one engine kept per size)

    def __init__(self, policy: NeuralAgent, chances: Chances | None) -> None:
        self.policy, self.chances = policy, chances
        self._envs: dict[int, SmearVectorEnv] = {}

    def values(self, venv: SmearVectorEnv, games: list[int]) -> np.ndarray:
        """Each legal action's value at the decision now in each of ``games`` of ``venv``: [len(games),
        NUM_ACTIONS], NaN for an illegal action. All positions are played out at once."""
        legal = [np.flatnonzero(venv.action_mask[i]) for i in games]
        rows = np.repeat(np.array(games, dtype=np.int64), [len(a) for a in legal])
        first = np.concatenate(legal)
        size = -(-len(rows) // self.ROWS) * self.ROWS
        env = self._envs.get(size)
        if env is None:
            env = self._envs[size] = SmearVectorEnv(size, seed=0, reward="margin", copy=False, rules=venv.rules)
            env.reset()
        pad = size - len(rows)  # the spare games copy the first position and are not read
        spread = np.concatenate([rows, np.full(pad, rows[0])])
        env.copy_positions(venv, spread)
        playing = np.arange(size) < len(rows)
        value = play_out(env, np.concatenate([first, np.full(pad, first[0])]), self.policy, venv.to_act[spread].astype(np.int64),
                         venv.scores[spread].copy(), venv.dealer[spread].astype(np.int64), self.chances, playing)[: len(rows)]  # fmt: skip
        out = np.full((len(games), NUM_ACTIONS), np.nan, dtype=np.float32)
        out[np.repeat(np.arange(len(games)), [len(a) for a in legal]), first] = value
        return out


def load_oracle(spec: str, policy: NeuralAgent) -> OracleTeacher:
    """``oracle`` (hands valued by the shipped win-chance table), ``oracle:chances=FILE`` or ``oracle:margin``,
    with ``policy`` (the student's start) at every seat."""
    _, _, option = spec.partition(":")
    if option == "margin":
        return OracleTeacher(policy, None)
    if option and not option.startswith("chances="):
        raise ValueError(f"--teacher {spec}: the oracle takes chances=FILE or margin, not {option!r}")
    return OracleTeacher(policy, Chances.load(option.removeprefix("chances=") or "win_chances"))
