"""``smear-web`` under load: many tables at once on loopback, each a scripted client with a partner
(``heuristic``, then ``neural``: one run each) against two ``heuristic`` opponents, every game played to
its end; prints the response times of the actions, p99 for each partner.

Run: ``python benchmarks/bench_web.py --tables 20`` (it starts ``smear-web`` on a free loopback port
for each partner and stops that process when done). Bounded: each client plays one game, at most
``--max-requests`` requests. ``tests/test_web.py`` plays the same clients (``play_tables``) against a
server of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import numpy as np


def play_table(
    url: str, seed: int, max_requests: int, timings: list[float], errors: list[str], partner: str = "heuristic"
) -> dict:
    """One client: a table with ``partner`` against two heuristic agents, random legal moves to the end of the game."""
    rng = np.random.default_rng(seed)
    with httpx.Client(base_url=url, timeout=60) as client:
        response = client.post("/api/tables", json={"seat": seed % 4, "partner": partner, "opponents": "heuristic", "seed": seed})
        if response.status_code != 201:
            errors.append(f"create: {response.status_code} {response.text[:200]}")
            return {}
        state = response.json()
        table = state["table"]
        for _ in range(max_requests):
            if state["game_over"]:
                break
            started = time.perf_counter()
            if state["summary"]:
                response = client.post(f"/api/tables/{table}/continue")
            else:
                legal = [a["id"] for a in state["view"]["legal_actions"]]
                response = client.post(f"/api/tables/{table}/action", json={"action": int(rng.choice(legal))})
                timings.append(time.perf_counter() - started)
            if response.status_code != 200:
                errors.append(f"{table}: {response.status_code} {response.text[:200]}")
                return state
            state = response.json()
        else:
            errors.append(f"{table}: not over after {max_requests} requests")
        records = client.get(f"/api/tables/{table}/records").text
        client.delete(f"/api/tables/{table}")
    return {"state": state, "records": records}


def play_tables(
    url: str, tables: int, seed: int = 0, max_requests: int = 2000, partner: str = "heuristic"
) -> tuple[list[float], list[str], list[dict]]:
    """``tables`` clients at once, each in its own thread; their action response times, errors and games."""
    timings: list[float] = []
    errors: list[str] = []
    games: list[dict] = [{} for _ in range(tables)]

    def client(i: int) -> None:
        try:
            games[i] = play_table(url, seed + i, max_requests, timings, errors, partner)
        except httpx.HTTPError as e:
            errors.append(f"client {i}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=client, args=(i,)) for i in range(tables)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return timings, errors, games


def start_server(source: Path | None, *flags: str) -> tuple[subprocess.Popen, str]:
    """``smear-web`` in a process of its own on a free loopback port, from this checkout or from ``source`` (another
    checkout of the kit, e.g. the previous commit's, for a baseline in the same run); the process and its URL,
    once it answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = str((source or Path(__file__).parent.parent).resolve())
    code = f"import sys; sys.path.insert(0, {root!r}); from smear_apps.web.app import main; sys.exit(main())"
    command = [sys.executable, "-c", code, "--port", str(port), *flags]
    server = subprocess.Popen(command, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"}, cwd=root)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{url}/api/agents", timeout=2)
            return server, url
        except httpx.HTTPError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise RuntimeError("smear-web did not start") from None
            time.sleep(0.2)


def serve_and_play(tables: int, seed: int, partner: str, source: Path | None = None) -> dict:
    """Start ``smear-web`` (its own process, on a free loopback port), play ``tables`` clients, stop it; the figures."""
    server, url = start_server(source, "--tables-per-client", str(max(32, tables)))
    try:
        started = time.perf_counter()
        timings, errors, games = play_tables(url, tables, seed, partner=partner)
        seconds = time.perf_counter() - started
    finally:
        server.terminate()  # the process this function started, by its handle
        server.wait(10)
    ms = np.array(timings) * 1000
    return {
        "partner": partner,
        "tables": tables,
        "games_over": sum(1 for g in games if g and g["state"].get("game_over")),
        "errors": errors,
        "actions": int(ms.size),
        "seconds": round(seconds, 2),
        "actions_per_second": round(ms.size / seconds, 1),
        "p50_ms": round(float(np.percentile(ms, 50)), 2),
        "p90_ms": round(float(np.percentile(ms, 90)), 2),
        "p99_ms": round(float(np.percentile(ms, 99)), 2),
        "max_ms": round(float(ms.max()), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20, help="tables playing at once (default 20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--partners", default="heuristic,neural", help="the partner specs, one run each (default heuristic,neural)"
    )
    parser.add_argument("--json", help="write the figures here too")
    parser.add_argument(
        "--source", type=Path, help="serve another checkout of the kit (a baseline, e.g. a git worktree of the previous commit)"
    )
    args = parser.parse_args(argv)
    runs = []
    for partner in args.partners.split(","):
        figures = serve_and_play(args.tables, args.seed, partner, args.source)
        runs.append(figures)
        print(
            f"{args.tables} tables at once, partner {partner} + 2 heuristic opponents + a scripted client each: "
            f"{figures['games_over']} games played to the end, {len(figures['errors'])} errors; {figures['actions']:,} actions in "
            f"{figures['seconds']:.1f} s ({figures['actions_per_second']:,} a second); action response time p50 {figures['p50_ms']} ms, "
            f"p90 {figures['p90_ms']} ms, p99 {figures['p99_ms']} ms, max {figures['max_ms']} ms"
        )
        for line in figures["errors"][:10]:
            print("error:", line)
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=2))
    return 1 if any(f["errors"] or f["games_over"] < args.tables for f in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
