"""``smear-web`` against abuse, measured: the server's peak memory while a hostile upload is checked, and a table's
move latency while many explanations run.

    python benchmarks/web_limits.py [--source DIR] [--explains 24]

Each figure on a fresh server (its own process on a loopback port; ``--source`` serves another checkout of the
kit, e.g. a git worktree of the previous commit, for the before-and-after in one run):

* **upload**: the peak resident memory (``VmHWM``) of the server while it answers a 31 MiB upload of ``{}`` lines,
  then three such uploads at once, against its memory before;
* **explanations**: ``--explains`` clients ask ``/api/explain`` of ``search:preset=rollouts`` on one recorded hand
  at once; meanwhile a table with ``heuristic`` agents plays moves, each move's response time kept;
* **moves during uploads** (``--valid-uploads``): a valid 31 MiB records file (random games, made once under
  ``runs/web_limits``) uploaded by 0, 1 and 2 clients at once (``--files-per-client 2``), and meanwhile a table at
  another client's seat plays moves and reads its state, each response time kept.

The memory figures count the server and the processes it started (its file checks run in processes of their own).
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
    """The resident memory, now and at its peak, of the process and the processes it started (each one's peak
    summed: an upper bound of their peak together), in MiB."""
    totals = {"VmRSS": 0.0, "VmHWM": 0.0}
    for process in [pid, *children(pid)]:
        try:
            text = Path(f"/proc/{process}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        for k in totals:
            totals[k] += int(fields[k].split()[0]) / 1024
    return totals


def children(pid: int) -> list[int]:
    """The processes ``pid`` started, and theirs."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found + [g for c in found for g in children(c)]


def sending(url: str, body: bytes, at_once: int) -> tuple[list[threading.Thread], list[tuple[int, float]]]:
    """``at_once`` clients uploading ``body``, each in a thread, started; the threads and, as they end, each
    answer's status and seconds."""
    answers: list[tuple[int, float]] = []

    def send() -> None:
        started = time.perf_counter()
        with httpx.Client(base_url=url, timeout=600) as client:
            status = client.post("/api/records/upload", content=body).status_code
        answers.append((status, time.perf_counter() - started))

    threads = [threading.Thread(target=send) for _ in range(at_once)]
    for t in threads:
        t.start()
    return threads, answers


def uploads(source: Path | None, at_once: int) -> dict:
    server, url = start_server(source)
    try:
        before = memory(server.pid)["VmRSS"]
        body = b"{}\n" * (UPLOAD_MIB * 2**20 // 3)
        threads, answers = sending(url, body, at_once)
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


def valid_file() -> bytes:
    """A valid records file of about 31 MiB: random games (made once, kept under runs/web_limits)."""
    from smear_env import Rules, write_records
    from smear_env.records import play_random_games

    path = Path("runs/web_limits/valid.jsonl")
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        records: list[dict] = []
        size, seed = 0, 0
        while size < UPLOAD_MIB * 2**20 - 64 * 1024:
            for record in play_random_games(Rules(), 50, seed=seed):
                records.append(record)
                size += len(json.dumps(record, separators=(",", ":"))) + 1
            seed += 1
        while size > UPLOAD_MIB * 2**20:  # whole games: the last one may go over; trim to the last finished game
            size -= len(json.dumps(records.pop(), separators=(",", ":"))) + 1
        while records and not records[-1]["game_over"]:
            size -= len(json.dumps(records.pop(), separators=(",", ":"))) + 1
        write_records(records, path)
    return path.read_bytes()


def moves_during_uploads(source: Path | None, at_once: int, body: bytes) -> dict:
    server, url = start_server(source, "--files-per-client", "2")
    try:
        with httpx.Client(base_url=url, timeout=600) as client:
            table = client.post("/api/tables", json={"seed": 3, "partner": "random", "opponents": "random"}).json()
            senders, answers = sending(url, body, at_once)
            moves, reads = [], []
            state, began = table, time.perf_counter()
            while (any(t.is_alive() for t in senders) if senders else time.perf_counter() - began < 10) and len(moves) < 5000:
                started = time.perf_counter()
                state = client.get(f"/api/tables/{table['table']}").json()
                reads.append(time.perf_counter() - started)
                if state["game_over"]:
                    client.delete(f"/api/tables/{table['table']}")
                    table = state = client.post(
                        "/api/tables", json={"seed": len(moves), "partner": "random", "opponents": "random"}
                    ).json()
                    continue
                started = time.perf_counter()
                if state["summary"]:
                    state = client.post(f"/api/tables/{table['table']}/continue").json()
                    continue
                action = state["view"]["legal_actions"][0]["id"]
                state = client.post(f"/api/tables/{table['table']}/action", json={"action": action}).json()
                moves.append(time.perf_counter() - started)
            for t in senders:
                t.join()
            peak = memory(server.pid)["VmHWM"]
    finally:
        server.kill()  # the process this function started (its checking processes end with it)
        server.wait(10)

    def summary(times: list[float]) -> dict:
        ms = np.array(times) * 1000
        return {"n": int(ms.size), "p50_ms": round(float(np.median(ms)), 1), "p99_ms": round(float(np.percentile(ms, 99)), 1),
                "max_ms": round(float(ms.max()), 1)}  # fmt: skip

    return {"uploads": at_once, "move": summary(moves), "state": summary(reads), "answers": [s for s, _ in answers],
            "upload_seconds": [round(t, 1) for _, t in answers], "peak_mib": round(peak)}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, help="serve another checkout of the kit (the baseline)")
    parser.add_argument("--explains", type=int, default=24)
    parser.add_argument("--moves", type=int, default=8)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--valid-uploads", action="store_true", help="only the moves during valid uploads (0, 1 and 2)")
    args = parser.parse_args()
    if args.valid_uploads:
        body = valid_file()
        hands = body.count(b"\n")
        print(f"a valid records file of {len(body) / 2**20:.1f} MiB, {hands:,} hands", flush=True)
        figures = {f"moves_during_{n}_uploads": moves_during_uploads(args.source, n, body) for n in (0, 1, 2)}
    else:
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
