"""A web app served on a free loopback port in a thread of the test's process, for as long as a ``with`` lasts."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def serving(app) -> Iterator[str]:
    """The app's base URL (``http://127.0.0.1:PORT``); the server stops, by its own handle, at the end."""
    import uvicorn

    from smear_apps.web.app import server_config

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(server_config(app, "127.0.0.1", port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def write_match(folder, games: int, seed: int):
    """An arena match of ``neural`` against ``heuristic`` written into ``folder`` as ``smear-eval --json m.json
    --records m.jsonl`` writes it; the match."""
    import json

    from agents.arena import run_match
    from smear_env import write_records

    match = run_match("neural", "heuristic", games=games, seed=seed, keep_records=True)
    write_records(match.records(), folder / "m.jsonl")
    (folder / "m.json").write_text(json.dumps(match.summary()))
    return match


def gated_check(gate, raw: bytes, name: str) -> bytes:
    """``smear_apps.web.replay.checked_answer`` held at a gate across processes (run in smear-web's checking
    process): it writes its process id to ``gate/entered``, then waits (30 s at most) for ``gate/release``."""
    from pathlib import Path

    from smear_apps.web.replay import checked_answer

    gate = Path(gate)
    (gate / "entered").write_text(str(os.getpid()))
    deadline = time.monotonic() + 30
    while not (gate / "release").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return checked_answer(raw, name)
