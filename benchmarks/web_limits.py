"""``smear-web`` against abuse, measured: the server's peak memory while a hostile upload is checked, and a table's
move latency while many explanations run.

    python benchmarks/web_limits.py [--source DIR] [--explains 24]

Each figure on a fresh server (its own process on a loopback port; ``--source`` serves another checkout of the
kit, e.g. a git worktree of the previous commit, for the before-and-after in one run):

* **upload**: the peak resident memory (``VmHWM``) of the server while it answers a 31 MiB upload of ``{}`` lines,
  then three such uploads at once, against its memory before;
* **explanations**: ``--explains`` clients ask ``/api/explain`` of ``search:preset=rollouts`` on one recorded hand
  at once; meanwhile a table with ``heuristic`` agents plays moves, each move's response time kept.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

import httpx
import numpy as np
from bench_web import start_server

UPLOAD_MIB = 31


def memory(pid: int) -> dict[str, float]:
    """The process's resident memory now and at its peak, in MiB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return {k: int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM")}


def uploads(source: Path | None, at_once: int) -> dict:
    server, url = start_server(source)
    try:
        before = memory(server.pid)["VmRSS"]
        body = b"{}\n" * (UPLOAD_MIB * 2**20 // 3)
        answers: list[tuple[int, float]] = []

        def send() -> None:
            started = time.perf_counter()
            with httpx.Client(base_url=url, timeout=600) as client:
                status = client.post("/api/records/upload", content=body).status_code
            answers.append((status, time.perf_counter() - started))

        threads = [threading.Thread(target=send) for _ in range(at_once)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        peak = memory(server.pid)["VmHWM"]
    finally:
        server.kill()  # the process this function started
        server.wait(10)
    return {"uploads": at_once, "rss_before_mib": round(before), "peak_mib": round(peak), "grew_mib": round(peak - before),
            "answers": [s for s, _ in answers], "seconds": [round(t, 2) for _, t in answers]}  # fmt: skip


def explanations(source: Path | None, count: int, moves: int) -> dict:
    from agents.arena import run_match

    record = next(r for r in run_match("heuristic", "heuristic", games=2, seed=5, keep_records=True).records() if not r["redeal"])
    server, url = start_server(source)
    try:
        with httpx.Client(base_url=url, timeout=600) as client:
            table = client.post("/api/tables", json={"seed": 3}).json()
            statuses: list[int] = []

            def ask() -> None:
                with httpx.Client(base_url=url, timeout=600) as c:
                    statuses.append(
                        c.post("/api/explain", json={"record": record, "agent": "search:preset=rollouts"}).status_code
                    )

            askers = [threading.Thread(target=ask) for _ in range(count)]
            for t in askers:
                t.start()
            time.sleep(1.0)  # the explanations under way
            latencies = []
            state = table
            for _ in range(moves):
                if state["summary"]:
                    state = client.post(f"/api/tables/{table['table']}/continue").json()
                    continue
                started = time.perf_counter()
                action = state["view"]["legal_actions"][0]["id"]
                state = client.post(f"/api/tables/{table['table']}/action", json={"action": action}).json()
                latencies.append(time.perf_counter() - started)
            for t in askers:
                t.join()
    finally:
        server.kill()
        server.wait(10)
    ms = np.array(latencies) * 1000
    return {"explains": count, "moves": int(ms.size), "move_p50_ms": round(float(np.median(ms)), 1), "move_max_ms": round(float(ms.max()), 1),
            "explain_answers": {str(s): statuses.count(s) for s in sorted(set(statuses))}}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, help="serve another checkout of the kit (the baseline)")
    parser.add_argument("--explains", type=int, default=24)
    parser.add_argument("--moves", type=int, default=8)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    figures = {
        "upload": uploads(args.source, 1),
        "uploads_3": uploads(args.source, 3),
        "explain": explanations(args.source, args.explains, args.moves),
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
