"""``smear-web``: a browser table to play Smear against any agents (Starlette on uvicorn).

The server keeps every game (:mod:`agents.web.tables`); the page only sends actions and receives
its seat's view. The pages are plain HTML, CSS and JavaScript served from this package: no build
step, nothing from a CDN.

API (JSON; an error is ``{"error": message}`` with a 4xx status, and the game is unchanged):

====================================  ==========================================================
``GET  /api/agents``                  the agent ids and their spec forms, the rule settings
``POST /api/tables``                  a new table: ``{"seat", "partner", "opponents", "rules", "seed"}``
``GET  /api/tables/ID``               what the seat may know now
``POST /api/tables/ID/action``        the seat's move: ``{"action": id}``
``POST /api/tables/ID/continue``      leave a finished hand's summary
``GET  /api/tables/ID/records``       the finished hands' records (JSON Lines, ``smear-hand/1``)
``DELETE /api/tables/ID``             abandon the table
====================================  ==========================================================
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from smear_env import Rules
from smear_env.cli import add_version_flag

from ..base import registered
from .tables import Table, TableError, Tables

STATIC = Path(str(files("agents.web").joinpath("static")))
MAX_BODY = 64 * 1024
"""The largest request body the API reads (bytes)."""


def error(status: int, message: str) -> JSONResponse:
    """A refusal the page can show: ``{"error": message}``."""
    return JSONResponse({"error": message}, status_code=status)


async def body_of(request: Request) -> dict[str, Any]:
    """The request's JSON object; an HTTPException 400/413 naming what was wrong."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
        raise HTTPException(413, f"request body over {MAX_BODY} bytes")
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise HTTPException(413, f"request body over {MAX_BODY} bytes")
    try:
        value = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise HTTPException(400, f"the body is not JSON ({e})") from None
    if not isinstance(value, dict):
        raise HTTPException(400, "the body must be a JSON object")
    return value


def create_app(tables: Tables | None = None) -> Starlette:
    """The web app; ``tables`` holds its games (a new, empty set by default)."""
    tables = tables if tables is not None else Tables()

    def table_of(request: Request) -> Table:
        try:
            return tables.get(request.path_params["table_id"])
        except KeyError:
            raise HTTPException(404, "no such table (it was abandoned, timed out, or the id is wrong)") from None

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "table.html")

    async def agents_list(request: Request) -> Response:
        defaults = Rules()
        return JSONResponse(
            {
                "agents": [{"id": e.id, "usage": e.usage(), "summary": e.summary} for e in registered()],
                "rules": defaults.to_dict(),
            }
        )

    async def new_table(request: Request) -> Response:
        body = await body_of(request)
        unknown = sorted(set(body) - {"seat", "partner", "opponents", "rules", "seed"})
        if unknown:
            return error(400, f"unknown field(s) {unknown}; allowed: seat, partner, opponents, rules, seed")
        seat, seed = body.get("seat", 0), body.get("seed")
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in range(4):
            return error(400, f"seat {seat!r}: one of 0, 1, 2, 3")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            return error(400, f"seed {seed!r}: a whole number, 0 or more (or null for a random one)")
        specs = {name: body.get(name, "heuristic") for name in ("partner", "opponents")}
        for name, spec in specs.items():
            if not isinstance(spec, str) or not spec.strip():
                return error(400, f"{name} {spec!r}: an agent spec such as heuristic, pimc, neural or search")
        rules_given = body.get("rules", {})
        if not isinstance(rules_given, dict):
            return error(400, f'rules {rules_given!r}: an object of rule settings, e.g. {{"kitty_size": 2}}')
        try:
            rules = Rules.from_dict(rules_given)
            table = await run_in_threadpool(Table, seat, specs["partner"].strip(), specs["opponents"].strip(), rules, seed)
        except (ValueError, TypeError) as e:
            return error(400, str(e))
        tables.add(table)
        return JSONResponse(table.state(), status_code=201)

    async def show(request: Request) -> Response:
        table = table_of(request)
        with table.lock:
            return JSONResponse(table.state())

    async def moved(table: Table, move: Callable[[], None]) -> Response:
        """A move at ``table`` in a worker thread (agents may think a while), answered with the new state."""

        def run() -> dict[str, Any]:
            with table.lock:
                move()
                return table.state()

        try:
            return JSONResponse(await run_in_threadpool(run))
        except TableError as e:
            return error(409, str(e))

    async def act(request: Request) -> Response:
        table = table_of(request)
        body = await body_of(request)
        if set(body) != {"action"}:
            return error(400, 'the body must be {"action": ID}, ID an action id from 0 to 71')
        return await moved(table, lambda: table.act(body["action"]))

    async def go_on(request: Request) -> Response:
        table = table_of(request)
        return await moved(table, table.go_on)

    async def records(request: Request) -> Response:
        table = table_of(request)
        with table.lock:
            lines = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in table.records())
        name = f"smear-{table.game.game_id}.jsonl"
        return Response(lines, media_type="application/jsonl", headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def abandon(request: Request) -> Response:
        try:
            tables.remove(request.path_params["table_id"])
        except KeyError:
            return error(404, "no such table (it was abandoned, timed out, or the id is wrong)")
        return Response(status_code=204)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error(exc.status_code, str(exc.detail))

    routes = [
        Route("/", index),
        Route("/api/agents", agents_list),
        Route("/api/tables", new_table, methods=["POST"]),
        Route("/api/tables/{table_id}", show, methods=["GET"]),
        Route("/api/tables/{table_id}", abandon, methods=["DELETE"]),
        Route("/api/tables/{table_id}/action", act, methods=["POST"]),
        Route("/api/tables/{table_id}/continue", go_on, methods=["POST"]),
        Route("/api/tables/{table_id}/records", records, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="smear-web", description="A browser table: play Smear against any agents.")
    add_version_flag(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    args = parser.parse_args(argv)
    import uvicorn

    print(f"smear-web: http://{args.host}:{args.port}/ (Ctrl-C stops it)", file=sys.stderr)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
