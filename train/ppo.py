"""PPO self-play with action masking and a centralized critic, for the whole game of Smear.

One policy network plays every learner seat from that seat's own observation; a
critic scores the full-information state together with the seat's observation
(the policy never sees the state). Partners share the team reward (the hand's
score difference, ``reward: margin``). Each seat's decisions form their own
sequence: the reward of a decision is what the seat receives until its next
decision, and generalized advantage estimation runs over that sequence, not over
the interleaved steps of the four seats. Opponents are drawn per game from the
current policy, a pool of past networks and any agents. PPO steps its games in the
learner's process: its rollouts are on-policy, so an actor would have to wait for each
update anyway (see docs/training.md).

Run: ``python -m train.ppo --config ppo_quick [--FIELD VALUE ...]``;
``--resume runs/NAME`` continues a run from its last checkpoint. From Python:
``train.ppo.train(Config(...))`` returns the run folder.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from smear_env import NUM_ACTIONS, OBS_DIM, STATE_DIM, SmearVectorEnv
from smear_nets import NetworkSpec, build_network, resolve_device
from smear_nets.networks import ActorCritic

from .config import RunConfig, Start, main_of
from .opponents import Opponents, load_opponents
from .run import Run, restore_rng_state, rng_state, seed_everything


@dataclass
class Config(RunConfig):
    run_name: str = "ppo"
    """name of the run: its folder is runs_dir/run_name"""
    num_envs: int = 256
    """games stepped in lockstep"""
    num_steps: int = 64
    """batched env steps per rollout"""
    gamma: float = 1.0
    """discount per decision of a seat"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    update_epochs: int = 4
    """passes over each rollout"""
    num_minibatches: int = 8
    """minibatches per pass"""
    clip_coef: float = 0.2
    """PPO clipping of the probability ratio"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    reward_scale: float = 0.25
    """rewards (score differences) are multiplied by this"""
    torch_threads: int = 2
    """threads torch may use"""

    def validate(self) -> None:
        """Every field checked (the shared ones, then PPO's), with a message naming it and what is allowed."""
        super().validate()
        for name in ("num_steps", "update_epochs", "num_minibatches"):
            if getattr(self, name) < 1:
                raise ValueError(f"config {name}={getattr(self, name)}: must be at least 1")
        for name in ("gamma", "gae_lambda"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"config {name}={getattr(self, name)}: must be in [0, 1]")
        for name in ("clip_coef", "ent_coef", "vf_coef", "max_grad_norm", "reward_scale"):
            if getattr(self, name) < 0:
                raise ValueError(f"config {name}={getattr(self, name)}: must be 0 or more")


def masked_distribution(logits: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
    return torch.distributions.Categorical(logits=logits.masked_fill(mask == 0, -1e9))


def seat_advantages(config: Config, values, seats, learner, rewards, dones, last_values):
    """GAE over each seat's own decisions (see the module docstring). Shapes: [T, B] and [T, B, 4];
    ``last_values`` [B, 4] is each seat's value after the rollout."""
    steps, n = seats.shape
    advantages = np.zeros((steps, n), dtype=np.float32)
    next_value = last_values.astype(np.float32).copy()
    next_advantage = np.zeros((n, 4), dtype=np.float32)
    pending = np.zeros((n, 4), dtype=np.float32)  # rewards since each seat's next decision
    for t in reversed(range(steps)):
        ended = dones[t]
        next_value[ended] = 0.0
        next_advantage[ended] = 0.0
        pending[ended] = 0.0
        pending += rewards[t]
        acting = np.flatnonzero(learner[t])
        s = seats[t, acting]
        delta = pending[acting, s] + config.gamma * next_value[acting, s] - values[t, acting]
        advantages[t, acting] = delta + config.gamma * config.gae_lambda * next_advantage[acting, s]
        next_advantage[acting, s] = advantages[t, acting]
        next_value[acting, s] = values[t, acting]
        pending[acting, s] = 0.0
    return advantages


def update(
    agent: ActorCritic,
    optimizer: torch.optim.Optimizer,
    flat: dict[str, torch.Tensor],
    config: Config,
    rng: np.random.Generator,
) -> dict[str, float]:
    """PPO's update: ``update_epochs`` passes over the rollout's learner decisions (``flat``, on the device) in
    whole minibatches, the clipped policy loss, the value loss and the entropy bonus; the last minibatch's
    losses and KL, and the fraction of clipped ratios, read once at the end (no wait for the device per step)."""
    size = len(flat["action"])
    minibatch = max(1, size // config.num_minibatches)
    device = flat["action"].device
    clipped, minibatches = torch.zeros((), device=device), 0
    for _ in range(config.update_epochs):
        order = torch.from_numpy(rng.permutation(size)).to(device)
        for begin in range(0, size - minibatch + 1, minibatch):  # whole minibatches only
            idx = order[begin : begin + minibatch]
            dist = masked_distribution(agent(flat["obs"][idx]), flat["mask"][idx])
            logratio = dist.log_prob(flat["action"][idx]) - flat["logprob"][idx]
            ratio = logratio.exp()
            with torch.no_grad():  # summed on the device, read once after the update: no wait per step
                approx_kl = ((ratio - 1) - logratio).mean()  # the last minibatch's, as CleanRL logs it
                clipped += ((ratio - 1.0).abs() > config.clip_coef).float().mean()
                minibatches += 1
            adv = flat["advantage"][idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef)).mean()
            value = agent.value(flat["state"][idx], flat["obs"][idx])
            v_loss = 0.5 * ((value - flat["return"][idx]) ** 2).mean()
            entropy = dist.entropy().mean()
            loss = pg_loss - config.ent_coef * entropy + config.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(agent.parameters(), config.max_grad_norm)
            optimizer.step()
    return {
        "policy_loss": pg_loss.item(),
        "value_loss": v_loss.item(),
        "entropy": entropy.item(),
        "approx_kl": approx_kl.item(),
        "clipfrac": clipped.item() / max(minibatches, 1),
    }


def train(config: Config, start: Start | None = None, report: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """Train a policy and critic as the config says; returns the run folder. ``report`` gets each evaluation's result."""
    start = start or Start()
    # ---------------------------------------------------------------- everything checked before anything starts
    device = resolve_device(config.device)
    load_opponents(config.opponents, config.rules)
    spec = NetworkSpec("actor_critic", config.hidden)
    torch.set_num_threads(config.torch_threads)
    rng = seed_everything(config.seed)

    with Run(config, start, spec) as run:
        # ---------------------------------------------------------------- network, optimizer, resume
        agent = build_network(spec).to(device)
        assert isinstance(agent, ActorCritic)
        optimizer = torch.optim.Adam(agent.parameters(), lr=config.learning_rate, eps=1e-5)
        pool, pool_steps = [], []
        if run.resumed:
            extra = run.resumed.extra
            agent.load_state_dict(run.resumed.model)
            optimizer.load_state_dict(extra["optimizer"])
            pool, pool_steps = extra["pool"], extra["pool_steps"]
            restore_rng_state(rng, extra["rng"])

        # ---------------------------------------------------------------- games (a resumed run deals new ones)
        n, steps = config.num_envs, config.num_steps
        venv = SmearVectorEnv(n, seed=config.seed * 1_000_003 + run.step, reward="margin", copy=False, rules=config.rules)
        obs, info = venv.reset()
        opponents = Opponents(n, config.opponents, rng, config.seed, config.rules, device)
        for state, step in zip(pool, pool_steps, strict=True):
            opponents.remember(state, step, spec, config.pool_size)
        # What the network saw and said stays on its device (the learning reads it there); the rest is the host's.
        b_obs = torch.zeros((steps, n, OBS_DIM), dtype=torch.float32, device=device)
        b_state = torch.zeros((steps, n, STATE_DIM), dtype=torch.float32, device=device)
        b_mask = torch.zeros((steps, n, NUM_ACTIONS), dtype=torch.int8, device=device)
        b_action = torch.zeros((steps, n), dtype=torch.int64, device=device)
        b_logprob = torch.zeros((steps, n), dtype=torch.float32, device=device)
        d_value = torch.zeros((steps, n), dtype=torch.float32, device=device)
        b_seat = np.zeros((steps, n), dtype=np.int64)
        b_learner = np.zeros((steps, n), dtype=bool)
        b_reward = np.zeros((steps, n, 4), dtype=np.float32)
        b_done = np.zeros((steps, n), dtype=bool)
        steps_at_start, started = run.step, run.start_clock()

        while run.running():
            # ---------------------------------------------------------------- rollout
            finished, lengths = [], []
            for t in range(steps):
                mask, seat = info["action_mask"], info["seat"]
                state = venv.state()
                learner = opponents.learner_acts(seat)
                actions = np.zeros(n, dtype=np.int64)
                with torch.no_grad():
                    o, m = torch.from_numpy(obs).to(device), torch.from_numpy(mask).to(device)
                    full = torch.from_numpy(state).to(device)
                    dist = masked_distribution(agent(o), m)
                    sampled = dist.sample()
                    b_logprob[t] = dist.log_prob(sampled)
                    d_value[t] = agent.value(full, o)
                    actions[:] = sampled.cpu().numpy()  # the step's one wait for the device: the games need the actions
                opponents.act(venv, obs, mask, seat, actions, learner)
                b_obs[t], b_state[t], b_mask[t] = o, full, m
                b_action[t] = torch.from_numpy(actions).to(device)
                b_seat[t], b_learner[t] = seat, learner
                obs, rewards, terminated, truncated, info = venv.step(actions)
                done = terminated | truncated
                b_reward[t] = rewards * config.reward_scale
                b_done[t] = done
                if done.any():
                    finished.extend(info["final_return"][done][:, 0].tolist())
                    lengths.extend(info["final_length"][done].tolist())
                    opponents.draw(np.flatnonzero(done))

            # ---------------------------------------------------------------- advantages per seat
            with torch.no_grad():
                state = torch.from_numpy(venv.state()).to(device)
                last_values = np.stack(
                    [
                        agent.value(state, torch.from_numpy(venv.observe(np.full(n, s))).to(device)).cpu().numpy()
                        for s in range(4)
                    ],
                    axis=1,
                )
            b_value = d_value.cpu().numpy()  # the advantages are the host's: the rollout's one wait for the values
            advantages = seat_advantages(config, b_value, b_seat, b_learner, b_reward, b_done, last_values)
            returns = advantages + b_value

            # ---------------------------------------------------------------- learn
            keep = torch.from_numpy(b_learner.reshape(-1)).to(device)
            flat = {
                "obs": b_obs.reshape(-1, OBS_DIM)[keep],
                "state": b_state.reshape(-1, STATE_DIM)[keep],
                "mask": b_mask.reshape(-1, NUM_ACTIONS)[keep],
                "action": b_action.reshape(-1)[keep],
                "logprob": b_logprob.reshape(-1)[keep],
                "advantage": torch.from_numpy(advantages.reshape(-1)).to(device)[keep],
                "return": torch.from_numpy(returns.reshape(-1)).to(device)[keep],
                "value": d_value.reshape(-1)[keep],
            }
            stats = update(agent, optimizer, flat, config, rng)
            y_pred, y_true = flat["value"].cpu().numpy(), flat["return"].cpu().numpy()
            explained = float("nan") if np.var(y_true) == 0 else 1 - np.var(y_true - y_pred) / np.var(y_true)

            # ---------------------------------------------------------------- logs, pool, eval, checkpoint
            scalars = {f"losses/{name}": value for name, value in stats.items()} | {"losses/explained_variance": explained}
            if finished:
                scalars["charts/episode_return_team0"] = float(np.mean(finished))
                scalars["charts/episode_length_steps"] = float(np.mean(lengths))
            speed = (run.step + steps * n - steps_at_start) / max(time.time() - started, 1e-9)
            run.advance(steps * n, scalars, speed)
            if run.due("pool", config.pool_every):
                opponents.remember(agent.state_dict(), run.step, spec, config.pool_size)
            if run.due("eval", config.eval_every):
                run.evaluate(agent, report)
            if run.checkpoint_due():
                run.checkpoint(agent, optimizer=optimizer.state_dict(), rng=rng_state(rng), pool=opponents.pool_states,
                               pool_steps=opponents.pool_steps)  # fmt: skip

        speed = (run.step - steps_at_start) / max(time.time() - started, 1e-9)
        run.finish(agent, report, speed, optimizer=optimizer.state_dict(), rng=rng_state(rng),
                   pool=opponents.pool_states, pool_steps=opponents.pool_steps)  # fmt: skip
    return run.folder


def main(argv: list[str] | None = None) -> int:
    return main_of(Config, train, argv, __doc__.splitlines()[0], prog="python -m train.ppo")


if __name__ == "__main__":
    sys.exit(main())
