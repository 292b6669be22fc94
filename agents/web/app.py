"""``smear-web``: a browser table to play Smear against any agents (Starlette on uvicorn).

The server keeps every game (``agents.web.tables``); the page only sends actions and receives
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
``GET  /api/records``                 the records and match files in the ``--records`` folder
``GET  /api/records/file?name=N``     a records file of that folder, checked (``check_records``)
``POST /api/records/upload``          a records file sent as the body, checked
``GET  /api/match?json=J&records=R``  an arena match: its summary, its records, the deal sets that swung most
``POST /api/explain``                 ``{"record", "agent"}``: the agent's value of each legal action at each decision
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

from smear_env import RecordError, Rules, check_records
from smear_env.cli import add_version_flag

from ..base import registered
from .replay import FolderError, RecordsFolder, explain, match_swings
from .tables import Table, TableError, Tables

STATIC = Path(str(files("agents.web").joinpath("static")))
MAX_BODY = 64 * 1024
"""The largest request body the API reads (bytes)."""
MAX_UPLOAD = 32 * 1024 * 1024
"""The largest records file the server reads, from its folder or uploaded (bytes)."""


def error(status: int, message: str) -> JSONResponse:
    """A refusal the page can show: ``{"error": message}``."""
    return JSONResponse({"error": message}, status_code=status)


async def body_of(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    """The request's JSON object; an HTTPException 400/413 naming what was wrong."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > limit):
        raise HTTPException(413, f"request body over {limit} bytes")
    raw = await request.body()
    if len(raw) > limit:
        raise HTTPException(413, f"request body over {limit} bytes")
    try:
        value = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise HTTPException(400, f"the body is not JSON ({e})") from None
    if not isinstance(value, dict):
        raise HTTPException(400, "the body must be a JSON object")
    return value


def checked(text: str, name: str) -> dict[str, Any]:
    """The records of a JSON Lines text, checked by replay; an HTTPException 422 naming the line and the fault."""
    records = []
    for line, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            records.append(json.loads(raw))
        except json.JSONDecodeError as e:
            raise HTTPException(422, f"{name}: line {line}: not JSON ({e.msg})") from None
    if not records:
        raise HTTPException(422, f"{name}: no records in it")
    try:
        check_records(records)
    except RecordError as e:
        raise HTTPException(422, f"{name}: {e}") from None
    return {"name": name, "records": records}


def create_app(tables: Tables | None = None, records: Path | None = None) -> Starlette:
    """The web app; ``tables`` holds its games (a new, empty set by default), ``records`` is the only
    folder it reads records files from (none: only uploads)."""
    tables = tables if tables is not None else Tables()
    folder = RecordsFolder(records, MAX_UPLOAD)

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

    async def table_records(request: Request) -> Response:
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

    async def replay_page(request: Request) -> Response:
        return FileResponse(STATIC / "replay.html")

    async def records_list(request: Request) -> Response:
        return JSONResponse({"folder": folder.shown, "files": await run_in_threadpool(folder.files)})

    def named(request: Request, key: str = "name") -> str:
        name = request.query_params.get(key)
        if not name:
            raise HTTPException(400, f"give ?{key}=FILE, a file of the records folder (GET /api/records lists them)")
        return name

    async def records_file(request: Request) -> Response:
        name = named(request)
        text = await run_in_threadpool(folder.read, name)
        return JSONResponse(await run_in_threadpool(checked, text, name))

    async def upload(request: Request) -> Response:
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > MAX_UPLOAD:
            raise HTTPException(413, f"the file is over the limit of {MAX_UPLOAD // 2**20} MiB")
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_UPLOAD:
                raise HTTPException(413, f"the file is over the limit of {MAX_UPLOAD // 2**20} MiB")
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            raise HTTPException(422, "the file is not UTF-8 text (hand records are JSON Lines)") from None
        name = request.query_params.get("name", "upload.jsonl")
        return JSONResponse(await run_in_threadpool(checked, text, name))

    async def match(request: Request) -> Response:
        summary_name, records_name = named(request, "json"), named(request, "records")
        try:
            summary = json.loads(await run_in_threadpool(folder.read, summary_name))
        except json.JSONDecodeError as e:
            raise HTTPException(422, f"{summary_name}: not JSON ({e.msg}); give the file of smear-eval --json") from None
        if not isinstance(summary, dict) or "win_rate" not in summary or "agents" not in summary:
            raise HTTPException(422, f"{summary_name}: not a match summary (smear-eval --json writes one)")
        loaded = await run_in_threadpool(checked, await run_in_threadpool(folder.read, records_name), records_name)
        return JSONResponse({"summary": summary, **loaded, "swings": match_swings(loaded["records"])})

    async def explain_hand(request: Request) -> Response:
        body = await body_of(request, limit=MAX_BODY * 4)
        if set(body) - {"record", "agent"} or not isinstance(body.get("record"), dict):
            raise HTTPException(400, 'the body must be {"record": a hand record, "agent": a spec such as neural or search}')
        spec = body.get("agent", "neural")
        try:
            values = await run_in_threadpool(explain, body["record"], spec)
        except ValueError as e:
            raise HTTPException(400, str(e)) from None
        return JSONResponse({"agent": spec, "decisions": values})

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error(exc.status_code, str(exc.detail))

    async def folder_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, FolderError)
        return error(exc.status, str(exc))

    routes = [
        Route("/", index),
        Route("/api/agents", agents_list),
        Route("/api/tables", new_table, methods=["POST"]),
        Route("/api/tables/{table_id}", show, methods=["GET"]),
        Route("/api/tables/{table_id}", abandon, methods=["DELETE"]),
        Route("/api/tables/{table_id}/action", act, methods=["POST"]),
        Route("/api/tables/{table_id}/continue", go_on, methods=["POST"]),
        Route("/api/tables/{table_id}/records", table_records, methods=["GET"]),
        Route("/replay", replay_page),
        Route("/api/records", records_list),
        Route("/api/records/file", records_file),
        Route("/api/records/upload", upload, methods=["POST"]),
        Route("/api/match", match),
        Route("/api/explain", explain_hand, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error, FolderError: folder_error})


def main(argv: list[str] | None = None) -> int:
    """``smear-web [--host H] [--port P] [--records DIR]``: serve the table and the replay until Ctrl-C."""
    parser = argparse.ArgumentParser(prog="smear-web", description="A browser table: play Smear against any agents.")
    add_version_flag(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--records",
        metavar="DIR",
        help="the folder whose records files (and smear-eval --json files) the replay may open; nothing outside it",
    )
    args = parser.parse_args(argv)
    if args.records and not Path(args.records).is_dir():
        parser.error(f"--records {args.records}: not a folder")
    import uvicorn

    print(f"smear-web: http://{args.host}:{args.port}/ (replays: /replay; Ctrl-C stops it)", file=sys.stderr)
    app = create_app(records=Path(args.records) if args.records else None)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
