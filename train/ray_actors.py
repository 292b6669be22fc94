"""DMC's actors on a Ray cluster (``backend: ray``): the same actor code, carried by Ray.

Each Ray actor owns a :class:`train.actors.SelfPlay` (a batched engine and batched inference
on the config's device) and returns :class:`train.actors.Block` s of decisions with their
returns. The learner publishes each new weight version once, with ``ray.put``; an actor
fetches it from the object store only when the version it is handed differs from the one it
holds (so each version crosses to each node once, and is read once per actor). An actor that
dies (its process killed, its node lost) is replaced by a new one and training goes on.
Actors are owned by the learner's process: when it dies, Ray stops them, on every node.

Importing this module imports Ray; nothing on the local path does (``tests/test_ray.py``).
"""

from __future__ import annotations

import os
import socket
from typing import Any

import ray
import torch
from ray.exceptions import RayActorError

from smear_nets import NetworkSpec, build_network
from smear_rl.cluster import connect, disconnect

from .actors import ActorSettings, Block, SelfPlay


@ray.remote(num_cpus=1, max_restarts=0)
class SelfPlayActor:
    """An actor: its own games, its own copy of the network, blocks on request."""

    def __init__(self, settings: ActorSettings, seed: int) -> None:
        torch.set_num_threads(1)
        self.play = SelfPlay(settings, seed)
        self.q = build_network(self.play.spec).to(self.play.device).eval()
        self.version = -1

    def where(self) -> dict[str, Any]:
        """Its process, host and Ray node (for tests and logs)."""
        return {"pid": os.getpid(), "host": socket.gethostname(), "node": ray.get_runtime_context().get_node_id()}

    def block(self, weights: list, version: int) -> Block:
        """A block of decisions played with weight version ``version`` (``weights``: [its object ref])."""
        if version != self.version:
            self.q.load_state_dict(ray.get(weights[0]))  # wrapped in a list: fetched only when new
            self.version = version
        return self.play.block(self.q, version)

    def remember(self, state: dict, step: int) -> None:
        self.play.remember(state, step)


class RayActors:
    """``len(seeds)`` Ray actors fed the learner's weights through the object store (see the module docstring)."""

    def __init__(self, settings: ActorSettings, q: torch.nn.Module, seeds: list[int], address: str | None) -> None:
        connect(address)
        self.settings, self.seeds = settings, list(seeds)
        self.spec = NetworkSpec.from_dict(settings.network)
        self.version = -1
        self.pool: list[tuple[Any, int]] = []  # (object ref of the weights, step), for replacements
        self.replaced = 0
        self.publish(q)
        self.actors = [self._start(i) for i in range(len(seeds))]
        self.pending = {self._ask(i): i for i in range(len(self.actors))}

    def _start(self, i: int, generation: int = 0) -> Any:
        actor = SelfPlayActor.remote(self.settings, self.seeds[i] + 7919 * generation)  # type: ignore[attr-defined]  # ray.remote's class
        for state, step in self.pool:
            actor.remember.remote(state, step)
        return actor

    def _ask(self, i: int) -> Any:
        return self.actors[i].block.remote([self.weights], self.version)

    def publish(self, q: torch.nn.Module) -> None:
        """The learner's newest weights, once into the object store; actors take them at their next block."""
        self.weights = ray.put({k: v.detach().cpu() for k, v in q.state_dict().items()})
        self.version += 1

    def remember(self, state: dict, step: int) -> None:
        ref = ray.put({k: v.cpu() for k, v in state.items()})
        self.pool = [*self.pool, (ref, step)][-self.settings.pool_size :]
        for actor in self.actors:
            actor.remember.remote(ref, step)

    def collect(self, wait: bool) -> list[Block]:
        """The blocks ready (and, with ``wait``, at least one); each actor that delivered is asked for
        its next block, and an actor that died is replaced."""
        ready, _ = ray.wait(list(self.pending), num_returns=1, timeout=None if wait else 0)
        if ready:
            ready, _ = ray.wait(list(self.pending), num_returns=len(self.pending), timeout=0)
        blocks = []
        for ref in ready:
            i = self.pending.pop(ref)
            try:
                blocks.append(ray.get(ref))
            except RayActorError:
                self.replaced += 1
                self.actors[i] = self._start(i, generation=self.replaced)
            self.pending[self._ask(i)] = i
        return blocks

    def where(self) -> list[dict[str, Any]]:
        """Where each actor runs."""
        return ray.get([actor.where.remote() for actor in self.actors])

    def close(self) -> None:
        for actor in self.actors:
            ray.kill(actor)
        disconnect()
