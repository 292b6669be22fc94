"""PPO self-play with action masking and a centralized critic, for the whole game of Smear.

One policy network plays every learner seat from that seat's own observation; a
critic scores the full-information state together with the seat's observation
(the policy never sees the state). Partners share the team reward (the hand's
score difference, ``reward: margin``). Each seat's decisions form their own
sequence: the reward of a decision is what the seat receives until its next
decision, and generalized advantage estimation runs over that sequence, not over
the interleaved steps of the four seats. Opponents are drawn per game from the
current policy, a pool of past checkpoints and built-in agents.

Run: ``python -m train.ppo --config configs/ppo_quick.yaml [--FIELD VALUE ...]``;
``--resume runs/NAME`` continues a run from its last checkpoint.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter

from smear_env import NUM_ACTIONS, OBS_DIM, STATE_DIM, SmearVectorEnv
from train import evaluation, runs
from train.networks import build_network
from train.opponents import Opponents, check_mix


@dataclass
class Config:
    run_name: str = "ppo"
    """name of the run: its folder is runs_dir/run_name"""
    runs_dir: str = "runs"
    """where runs live"""
    seed: int = 1
    """seed of python, numpy and torch, and of the games"""
    algo: str = "ppo"
    """the trainer (fixed: ppo)"""
    total_steps: int = 2_000_000
    """agent-steps (decisions, all seats) to train for"""
    max_seconds: float = 0.0
    """stop after this many seconds of training as well (0: no limit)"""
    num_envs: int = 256
    """games stepped in lockstep"""
    num_steps: int = 64
    """batched env steps per rollout"""
    hidden: str = "256,256"
    """hidden layer sizes of the policy and of the critic"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
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
    opponents: dict[str, float] = field(default_factory=lambda: {"self": 0.7, "pool": 0.2, "heuristic": 0.1})
    """mix of opponent kinds per game: self, pool (past checkpoints), heuristic, random"""
    pool_size: int = 4
    """past checkpoints kept as opponents"""
    pool_every: int = 200_000
    """agent-steps between additions to the pool"""
    kitty_size: int = 3
    """rule setting R5 (the other rules are the defaults)"""
    eval_every: int = 250_000
    """agent-steps between evaluations against the fixed opponents"""
    eval_games: int = 100
    """games per evaluation (duplicate format, against heuristic)"""
    checkpoint_seconds: float = 60.0
    """seconds between checkpoints"""
    torch_threads: int = 2
    """threads torch may use"""

    def __post_init__(self) -> None:
        if self.algo != "ppo":
            raise ValueError(f"config algo={self.algo!r}: train.ppo trains 'ppo'")
        check_mix(self.opponents)
        for name in (
            "total_steps",
            "num_envs",
            "num_steps",
            "update_epochs",
            "num_minibatches",
            "pool_size",
            "pool_every",
            "eval_every",
            "eval_games",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"config {name}={getattr(self, name)}: must be at least 1")
        try:
            sizes = [int(h) for h in self.hidden.split(",")]
        except ValueError:
            sizes = []
        if not sizes or min(sizes) < 1:
            raise ValueError(f"config hidden={self.hidden!r}: comma-separated layer sizes, e.g. 256,256")


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


def main(argv: list[str] | None = None) -> int:
    config, resume = runs.parse_config(Config, argv, __doc__.splitlines()[0])
    torch.set_num_threads(config.torch_threads)
    folder = runs.run_dir(config) if not resume else runs.Path(resume)
    rng = runs.seed_everything(config.seed)

    # ---------------------------------------------------------------- network, optimizer, resume
    def build():
        return build_network(dataclasses.asdict(config))

    agent = build()
    optimizer = torch.optim.Adam(agent.parameters(), lr=config.learning_rate, eps=1e-5)
    global_step, elapsed, pool, pool_steps = 0, 0.0, [], []
    if resume:
        payload = runs.load_checkpoint(folder)
        agent.load_state_dict(payload["model"])
        optimizer.load_state_dict(payload["optimizer"])
        global_step, pool, pool_steps = payload["global_step"], payload["pool"], payload["pool_steps"]
        elapsed = payload.get("elapsed", 0.0)
        runs.restore_rng_state(rng, payload["rng"])
        print(f"resumed {folder} at step {global_step:,}")
    runs.write_config(config, folder)
    writer = SummaryWriter(str(folder))
    started = time.time()

    def seconds() -> float:
        """Training time of the run, resumed parts added up."""
        return elapsed + time.time() - started

    def evaluate() -> dict:
        runs.save_snapshot(folder, agent, config, global_step, seconds())
        return evaluation.log(writer, agent, config, global_step)

    def checkpoint() -> None:
        runs.save_checkpoint(
            folder / runs.CHECKPOINT,
            {
                "model": agent.state_dict(),
                "optimizer": optimizer.state_dict(),
                "config": dataclasses.asdict(config),
                "global_step": global_step,
                "elapsed": seconds(),
                "pool": opponents.pool_states,
                "pool_steps": opponents.pool_steps,
                "rng": runs.rng_state(rng),
            },
        )

    # ---------------------------------------------------------------- games
    n, steps = config.num_envs, config.num_steps
    venv = SmearVectorEnv(
        n, seed=config.seed * 1_000_003 + global_step, reward="margin", kitty_size=config.kitty_size, copy=False
    )
    obs, info = venv.reset()
    opponents = Opponents(n, config.opponents, rng, config.seed)
    for state, step in zip(pool, pool_steps, strict=True):
        opponents.remember(state, step, build, config.pool_size)
    b_obs = np.zeros((steps, n, OBS_DIM), dtype=np.float32)
    b_state = np.zeros((steps, n, STATE_DIM), dtype=np.float32)
    b_mask = np.zeros((steps, n, NUM_ACTIONS), dtype=np.int8)
    b_action = np.zeros((steps, n), dtype=np.int64)
    b_logprob = np.zeros((steps, n), dtype=np.float32)
    b_value = np.zeros((steps, n), dtype=np.float32)
    b_seat = np.zeros((steps, n), dtype=np.int64)
    b_learner = np.zeros((steps, n), dtype=bool)
    b_reward = np.zeros((steps, n, 4), dtype=np.float32)
    b_done = np.zeros((steps, n), dtype=bool)
    last_checkpoint, last_eval, last_pool = time.time(), global_step, global_step
    step_start = time.time()
    steps_at_start = global_step

    while global_step < config.total_steps and not (config.max_seconds and time.time() - started > config.max_seconds):
        # ---------------------------------------------------------------- rollout
        for t in range(steps):
            mask, seat = info["action_mask"], info["seat"]
            state = venv.state()
            learner = opponents.learner_acts(seat)
            actions = np.zeros(n, dtype=np.int64)
            with torch.no_grad():
                o, m = torch.from_numpy(obs), torch.from_numpy(mask)
                dist = masked_distribution(agent(o), m)
                sampled = dist.sample()
                actions[:] = sampled.numpy()
                b_logprob[t] = dist.log_prob(sampled).numpy()
                b_value[t] = agent.value(torch.from_numpy(state), o).numpy()
            opponents.act(venv, obs, mask, seat, actions, learner)
            b_obs[t], b_state[t], b_mask[t], b_action[t], b_seat[t], b_learner[t] = obs, state, mask, actions, seat, learner
            obs, rewards, terminated, truncated, info = venv.step(actions)
            done = terminated | truncated
            b_reward[t] = rewards * config.reward_scale
            b_done[t] = done
            global_step += n
            if done.any():
                finished = info["final_return"][done][:, 0]
                writer.add_scalar("charts/episode_return_team0", float(finished.mean()), global_step)
                writer.add_scalar("charts/episode_length_steps", float(info["final_length"][done].mean()), global_step)
                opponents.draw(np.flatnonzero(done))

        # ---------------------------------------------------------------- advantages per seat
        with torch.no_grad():
            state = torch.from_numpy(venv.state())
            last_values = np.stack(
                [agent.value(state, torch.from_numpy(venv.observe(np.full(n, s)))).numpy() for s in range(4)], axis=1
            )
        advantages = seat_advantages(config, b_value, b_seat, b_learner, b_reward, b_done, last_values)
        returns = advantages + b_value

        # ---------------------------------------------------------------- learn
        keep = b_learner.reshape(-1)
        flat = {
            "obs": torch.from_numpy(b_obs.reshape(-1, OBS_DIM)[keep]),
            "state": torch.from_numpy(b_state.reshape(-1, STATE_DIM)[keep]),
            "mask": torch.from_numpy(b_mask.reshape(-1, NUM_ACTIONS)[keep]),
            "action": torch.from_numpy(b_action.reshape(-1)[keep]),
            "logprob": torch.from_numpy(b_logprob.reshape(-1)[keep]),
            "advantage": torch.from_numpy(advantages.reshape(-1)[keep]),
            "return": torch.from_numpy(returns.reshape(-1)[keep]),
            "value": torch.from_numpy(b_value.reshape(-1)[keep]),
        }
        size = len(flat["action"])
        minibatch = max(1, size // config.num_minibatches)
        clipfracs, approx_kl = [], 0.0
        for _ in range(config.update_epochs):
            order = torch.from_numpy(rng.permutation(size))
            for start in range(0, size - minibatch + 1, minibatch):  # whole minibatches only
                idx = order[start : start + minibatch]
                dist = masked_distribution(agent(flat["obs"][idx]), flat["mask"][idx])
                logratio = dist.log_prob(flat["action"][idx]) - flat["logprob"][idx]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = float(((ratio - 1) - logratio).mean())
                    clipfracs.append(float(((ratio - 1.0).abs() > config.clip_coef).float().mean()))
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
        y_pred, y_true = flat["value"].numpy(), flat["return"].numpy()
        explained = float("nan") if np.var(y_true) == 0 else 1 - np.var(y_true - y_pred) / np.var(y_true)
        pg_loss, v_loss, entropy = pg_loss.item(), v_loss.item(), entropy.item()
        writer.add_scalar("losses/policy_loss", pg_loss, global_step)
        writer.add_scalar("losses/value_loss", v_loss, global_step)
        writer.add_scalar("losses/entropy", entropy, global_step)
        writer.add_scalar("losses/approx_kl", approx_kl, global_step)
        writer.add_scalar("losses/clipfrac", float(np.mean(clipfracs)), global_step)
        writer.add_scalar("losses/explained_variance", explained, global_step)
        sps = (global_step - steps_at_start) / max(time.time() - step_start, 1e-9)
        writer.add_scalar("charts/agent_steps_per_second", sps, global_step)
        print(
            f"step {global_step:>10,}  {sps:8,.0f} agent-steps/s  policy {pg_loss:+.4f}  value {v_loss:.4f}  entropy {entropy:.3f}",
            flush=True,
        )

        # ---------------------------------------------------------------- pool, eval, checkpoint
        if global_step - last_pool >= config.pool_every:
            opponents.remember(agent.state_dict(), global_step, build, config.pool_size)
            last_pool = global_step
        if global_step - last_eval >= config.eval_every:
            evaluate()
            last_eval = global_step
        if time.time() - last_checkpoint >= config.checkpoint_seconds:
            checkpoint()
            last_checkpoint = time.time()

    checkpoint()
    summary = evaluate()
    writer.close()
    sps = (global_step - steps_at_start) / max(time.time() - step_start, 1e-9)
    print(f"trained {global_step:,} agent-steps ({sps:,.0f}/s); checkpoint {folder / runs.CHECKPOINT}")
    print(evaluation.describe(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
