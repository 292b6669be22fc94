"""DMC throughput and where its time goes: local against Ray actors, and the parts of a step.

Run: ``python benchmarks/bench_dmc.py [--seconds 40] [--rounds 2]`` (the Ray rows need the
``ray`` extra). Three parts, all on this machine:

1. **Throughput**: ``configs/dmc_quick.yaml`` trained for ``--seconds`` with the local backend
   (actor processes) and the Ray backend (a local Ray), 1 and 2 actors, taking turns in rounds
   so that both see the same machine; agent-steps per second as the trainer counts them.
2. **One actor's production**: a ``SelfPlay`` (the actor code) making blocks with the network,
   its time split into the engine (``SmearVectorEnv.step``), inference (the network and the
   masked argmax) and the rest (opponents, bookkeeping).
3. **The learner's consumption**: synthetic blocks into the replay and gradient steps as DMC
   takes them (``updates_per_step`` per batched env step), its time split into sampling, the
   gradient step, and publishing the weights (shared memory for local actors, ``ray.put`` for
   Ray); the most agent-steps per second one learner can take in.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812

from nets import NetworkSpec, build_network
from train import dmc
from train.actors import ActorSettings, LocalActors, SelfPlay
from train.config import from_mapping

CONFIG = Path(__file__).parent.parent / "configs" / "dmc_quick.yaml"


def quick(**changes) -> dmc.Config:
    import yaml

    values = yaml.safe_load(CONFIG.read_text())
    values.update(changes)
    return from_mapping(dmc.Config, values)


def throughput(seconds: float, rounds: int, ray_ok: bool) -> None:
    cases = [("local", 1), ("local", 2)] + ([("ray", 1), ("ray", 2)] if ray_ok else [])
    speeds: dict[tuple[str, int], list[float]] = {case: [] for case in cases}
    for _ in range(rounds):
        for backend, actors in cases:
            with tempfile.TemporaryDirectory() as runs:
                config = quick(runs_dir=runs, run_name="bench", backend=backend, num_actors=actors, max_seconds=seconds,
                               total_steps=10**10, eval_every=10**10, eval_games=2, checkpoint_seconds=10**6, log_seconds=10**6)  # fmt: skip
                folder = dmc.train(config)
                log = (folder / "train.log").read_text().splitlines()
                speed = float(
                    next(line for line in reversed(log) if line.startswith("trained "))
                    .split("(")[1]
                    .split("/s")[0]
                    .replace(",", "")
                )
                speeds[(backend, actors)].append(speed)
                print(f"  {backend:<5} {actors} actor(s): {speed:,.0f} agent-steps/s", flush=True)
    print("\nThroughput (agent-steps/s, all seats, learner included; rounds alternate the cases):")
    for (backend, actors), values in speeds.items():
        print(f"  {backend:<5} {actors} actor(s): {np.median(values):>9,.0f}  (rounds: {', '.join(f'{v:,.0f}' for v in values)})")
    if ray_ok:
        for actors in (1, 2):
            ratio = np.median(speeds[("ray", actors)]) / np.median(speeds[("local", actors)])
            print(f"  ray / local with {actors} actor(s): {ratio:.2f}")


def production(seconds: float) -> float:
    """One actor's agent-steps per second, and where they go."""
    config = quick()
    spec = NetworkSpec("q", config.hidden)
    torch.set_num_threads(1)
    play = SelfPlay(ActorSettings.of(config, spec), seed=0)
    q = build_network(spec).eval()
    spent = {"engine": 0.0, "inference": 0.0}

    def timed(part, function):
        def call(*args):
            start = time.perf_counter()
            result = function(*args)
            spent[part] += time.perf_counter() - start
            return result

        return call

    play.venv.step = timed("engine", play.venv.step)
    q.forward = timed("inference", q.forward)
    play.block(q)  # warm up (compiles)
    spent.update(engine=0.0, inference=0.0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += play.block(q).steps
    total = time.perf_counter() - start
    rate = steps / total
    print(f"\nOne actor (the actor code, {config.num_envs} games, 1 thread): {rate:,.0f} agent-steps/s")
    engine, inference = spent["engine"], spent["inference"]
    print(f"  engine (SmearVectorEnv.step) {100 * engine / total:.0f}%, inference (network forward) {100 * inference / total:.0f}%,"
          f" the rest (argmax, opponents, returns, blocks) {100 * (total - engine - inference) / total:.0f}%")  # fmt: skip
    return rate


def consumption(seconds: float, ray_ok: bool) -> float:
    """The most agent-steps per second one learner can take in, and where its time goes."""
    config = quick()
    spec = NetworkSpec("q", config.hidden)
    torch.set_num_threads(1)
    q = build_network(spec)
    optimizer = torch.optim.Adam(q.parameters(), lr=config.learning_rate)
    replay = dmc.Replay(config.buffer_size)
    rng = np.random.default_rng(0)
    block = 16 * config.num_envs  # a block: 16 lockstep steps of num_envs games
    obs = (rng.random((block, 427)) < 0.1).astype(np.float32)
    actions = rng.integers(72, size=block)
    returns = rng.normal(size=block).astype(np.float32)
    device = torch.device("cpu")
    parts = {"replay": 0.0, "sample": 0.0, "gradient": 0.0, "publish": 0.0}
    shared = LocalActors.__new__(LocalActors)  # only its publish (the shared-memory copy) is timed
    shared.shared = build_network(spec)
    shared.shared.share_memory()
    import multiprocessing

    shared.lock, shared.version = multiprocessing.Lock(), multiprocessing.Value("l", 0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        t = time.perf_counter()
        replay.add(obs, actions, returns)
        parts["replay"] += time.perf_counter() - t
        steps += block  # decisions of a block; the agent-steps it stands for (all seats) are counted below
        for _ in range(int(16 * config.updates_per_step)):
            t = time.perf_counter()
            b_obs, b_act, b_ret = replay.sample(rng, config.batch_size, device)
            parts["sample"] += time.perf_counter() - t
            t = time.perf_counter()
            loss = F.mse_loss(q(b_obs).gather(1, b_act[:, None]).squeeze(1), b_ret)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(q.parameters(), 40.0)
            optimizer.step()
            parts["gradient"] += time.perf_counter() - t
        t = time.perf_counter()
        shared.publish(q)
        parts["publish"] += time.perf_counter() - t
    total = time.perf_counter() - start
    rate = steps / total
    print(f"\nOne learner ({config.hidden} network, batch {config.batch_size}, {config.updates_per_step} updates per batched step, 1 thread):"
          f" takes in {rate:,.0f} agent-steps/s at most")  # fmt: skip
    print("  " + ", ".join(f"{name} {100 * seconds_ / total:.0f}%" for name, seconds_ in parts.items()))
    if ray_ok:
        import ray

        ray.init(include_dashboard=False, log_to_driver=False)
        state = {k: v.detach().cpu() for k, v in q.state_dict().items()}
        ray.put(state)
        n, t = 0, time.perf_counter()
        while time.perf_counter() - t < 2:
            ray.put(state)
            n += 1
        print(f"  publishing to Ray (ray.put of the weights): {1e3 * (time.perf_counter() - t) / n:.2f} ms a version"
              f" (shared memory: {1e3 * parts['publish'] / max(1, steps // block):.2f} ms)")  # fmt: skip
        ray.shutdown()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=40.0, help="seconds per throughput run (default 40)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the throughput cases (default 2)")
    parser.add_argument("--parts-seconds", type=float, default=15.0, help="seconds of each part measurement (default 15)")
    args = parser.parse_args()
    try:
        import ray  # noqa: F401

        ray_ok = True
    except ImportError:
        ray_ok = False
        print("(Ray not installed: local rows only)")
    throughput(args.seconds, args.rounds, ray_ok)
    actor = production(args.parts_seconds)
    learner = consumption(args.parts_seconds, ray_ok)
    print(f"\nOne learner can feed on {learner / actor:.1f} actors like this one before it saturates (on this CPU).")


if __name__ == "__main__":
    main()
