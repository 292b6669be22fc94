"""``smear-web``: a browser table to play Smear against any agents (Starlette on uvicorn).

The server keeps every game (``smear_apps.web.tables``); the page only sends actions and receives
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

Every request is treated as hostile: it reaches the app only from this server's own pages or a script
(``smear_apps.web.guard``: the ``Host``, ``Origin`` and ``Sec-Fetch-Site`` checks, and the headers every
answer carries); the agents it names are the owner's choice (``smear_apps.web.policy``: built-ins under
caps, checkpoints only from the owner's folders, no file or module from a request); bodies are cut
off while they stream in; the agents think in a pool of ``--workers`` threads, never on the loop that
answers the other tables, and records files are checked in processes of their own; tables are limited per client and in all, and only a finished or long idle
table ever makes room for another.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib.resources import files
from multiprocessing import get_context
from pathlib import Path
from typing import Annotated, Any, TypeVar

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from tyro.conf import UseAppendAction, arg

from agents.base import Agent
from smear_env import RecordError, Rules
from smear_env.records import check_hand

from ..command import cli, refuse
from .guard import LOOPBACK, Guard, http_protocol
from .policy import AgentPolicy, Limits
from .replay import FolderError, RecordsFolder, checked_answer, explain, json_fault, match_answer
from .shares import BusyError, Share
from .tables import MAX_PER_CLIENT, MAX_TABLES, AgentFailedError, Table, TableError, Tables, TablesFullError

STATIC = Path(str(files("smear_apps.web").joinpath("static")))
MAX_BODY = 64 * 1024
"""The largest request body the API reads (bytes)."""
MAX_UPLOAD = 32 * 1024 * 1024
"""The largest records file the server reads, from its folder or uploaded (bytes)."""
MAX_SEED = 2**64 - 1
"""The largest seed a table takes."""
SCORERS = 8
"""Agents kept for ``/api/explain`` (the least recently used goes past this)."""
RETRY_AFTER = 5
"""Seconds a client told the server is full (429, 503) is asked to wait (``Retry-After``)."""
T = TypeVar("T")
PROG = "smear-web"
DESCRIPTION = (
    "A browser table: play Smear against the built-in agents. Everything a request may make the server read, run "
    "or spend is set here, by the server's owner."
)


@dataclass(frozen=True)
class Settings:
    """What the server's owner allowed (``smear-web``'s flags); the defaults are a loopback server's."""

    hosts: tuple[str, ...] = LOOPBACK
    """The ``Host`` names it answers to: ``name`` (any port) or ``name:port``."""
    records: Path | None = None
    """The only folder it reads records files from (None: only uploads)."""
    checkpoints: tuple[Path, ...] = ()
    """The folders whose checkpoints (and chance tables) a request may name."""
    agents: tuple[str, ...] = ()
    """Specs a request may name beyond the built-ins (``file.py:Class``, a checkpoint anywhere): the owner's trust."""
    limits: Limits = field(default_factory=Limits)
    """Caps on the options of a request's agents."""
    workers: int = 8
    """Threads the tables' agents think in, all tables together."""
    slow_workers: int = 2
    """Threads the explanations and the checks of records files run in (apart from the tables')."""
    explains_per_client: int = 2
    """Explanations one client address may have under way at once (the server takes twice ``slow_workers``)."""
    files_per_client: int = 1
    """Records files (uploads, the folder's files, matches) one client address may have checked at once
    (the server takes ``slow_workers``): each is held in memory while it is checked."""
    max_tables: int = MAX_TABLES
    """Tables kept at once, all clients together."""
    tables_per_client: int = MAX_PER_CLIENT
    """Tables one client address may keep at once."""


def error(status: int, message: str, retry_after: int | None = None) -> JSONResponse:
    """A refusal the page can show: ``{"error": message}`` (with ``Retry-After`` where waiting helps)."""
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def read_body(request: Request, limit: int, what: str) -> bytes:
    """The request's body, refused with 413 as soon as it passes ``limit`` bytes (a declared length first)."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > limit):
        raise HTTPException(413, f"{what} over the limit of {limit:,} bytes")
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise HTTPException(413, f"{what} over the limit of {limit:,} bytes")
    return bytes(raw)


async def body_of(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    """The request's JSON object; an HTTPException (400, 413, 415) naming what was wrong."""
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind != "application/json":
        raise HTTPException(415, f"the body must be JSON sent as Content-Type: application/json (got {kind[:60] or 'none'!r})")
    raw = await read_body(request, limit, "request body")
    try:
        value = json.loads(raw or b"{}")
    except RecursionError:
        raise HTTPException(400, "the body is not JSON this server reads (nested too deeply)") from None
    except ValueError as e:  # not JSON, not UTF-8, or a number of more digits than Python converts
        raise HTTPException(400, f"the body is not JSON this server reads ({json_fault(e)})") from None
    if not isinstance(value, dict):
        raise HTTPException(400, "the body must be a JSON object")
    return value


class Workers:
    """What works off the event loop: ``settings.workers`` threads for the tables' agents, and apart from them
    ``settings.slow_workers`` threads for the explanations and the reading of records files, and as many
    processes for the checks of records files, so that a table's move never waits behind those. A check is
    Python replaying each hand: in a thread of the server's process it would hold the interpreter's lock from
    the loop that answers the tables (a 31 MiB file took a move elsewhere from 3 ms to a p99 of 774 ms)."""

    def __init__(self, settings: Settings) -> None:
        self.pool = ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="smear-web")
        self.slow_pool = ThreadPoolExecutor(max_workers=settings.slow_workers, thread_name_prefix="smear-web-slow")
        self.check_pool = ProcessPoolExecutor(
            max_workers=settings.slow_workers, mp_context=get_context("spawn"), initializer=end_with, initargs=(os.getpid(),)
        )

    async def work(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the tables' pool, off the event loop."""
        return await asyncio.wrap_future(self.pool.submit(function, *args))

    async def slow(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the threads of the explanations and file reads, off the event loop."""
        return await asyncio.wrap_future(self.slow_pool.submit(function, *args))

    async def check(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` (a module's function; its arguments and answer bytes) in a checking process."""
        return await asyncio.wrap_future(self.check_pool.submit(function, *args))

    def shutdown(self) -> None:
        """Stop the pools; work not yet started is dropped, the checking processes are stopped."""
        for pool in (self.pool, self.slow_pool, self.check_pool):
            pool.shutdown(wait=False, cancel_futures=True)


def end_with(server: int) -> None:
    """In a checking process: end it once the server's process ``server`` has ended (even killed, when it could not
    stop its processes), so that none outlives it."""

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="smear-web-end-with-server").start()


class TableRoutes:
    """The tables: a new one, its state, the person's moves, its records, abandoning it."""

    def __init__(self, settings: Settings, tables: Tables, policy: AgentPolicy, workers: Workers) -> None:
        self.settings, self.tables, self.policy, self.work = settings, tables, policy, workers.work

    def table_of(self, request: Request) -> Table:
        """The table a request's path names; 404 if there is none."""
        try:
            return self.tables.get(request.path_params["table_id"])
        except KeyError:
            raise HTTPException(404, "no such table (it was abandoned, timed out, or the id is wrong)") from None

    async def index(self, request: Request) -> Response:
        """``GET /``: the table page."""
        return FileResponse(STATIC / "table.html")

    async def agents_list(self, request: Request) -> Response:
        """``GET /api/agents``: the agents a request may name, the default rule settings and the caps."""
        limits = self.settings.limits
        return JSONResponse(
            {"agents": self.policy.offered(), "rules": Rules().to_dict(), "limits": limits.caps() | {"members": limits.members}}
        )

    async def new_table(self, request: Request) -> Response:
        """``POST /api/tables``: a new table, the agents playing until the person's first turn (201)."""
        body = await body_of(request)
        unknown = sorted(set(body) - {"seat", "partner", "opponents", "rules", "seed"})
        if unknown:
            return error(400, f"unknown field(s) {unknown}; allowed: seat, partner, opponents, rules, seed")
        seat, seed = body.get("seat", 0), body.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
            return error(400, f"seed {str(seed)[:40]!r}: a whole number from 0 to 2**64 - 1 (or null for a random one)")
        specs = {name: body.get(name, "heuristic") for name in ("partner", "opponents")}
        for name, spec in specs.items():
            if not isinstance(spec, str) or not spec.strip():
                return error(400, f"{name} {str(spec)[:60]!r}: an agent spec such as heuristic, pimc, neural or search")
        rules_given = body.get("rules", {})
        if not isinstance(rules_given, dict):
            return error(400, f'rules {str(rules_given)[:60]!r}: an object of rule settings, e.g. {{"kitty_size": 2}}')
        client = client_of(request)
        try:
            rules = Rules.from_dict(rules_given)
            self.tables.make_room(client)
            table = await self.work(
                Table, seat, specs["partner"].strip(), specs["opponents"].strip(), rules, seed, self.policy.build, client
            )
            self.tables.add(table)
        except TablesFullError as e:
            return error(e.status, str(e), RETRY_AFTER)
        except (ValueError, TypeError) as e:
            return error(400, str(e))
        return JSONResponse(table.shown, status_code=201)

    async def show(self, request: Request) -> Response:
        """``GET /api/tables/ID``: what the seat may know now."""
        return JSONResponse(self.table_of(request).shown)  # as of the last finished move: never waits for thinking agents

    async def moved(self, table: Table, move: Callable[[], None]) -> Response:
        """A move at ``table`` in the pool (agents may think a while), answered with the new state; a table
        still busy with a move refuses another at once (no worker waits on it)."""
        if not table.lock.acquire(blocking=False):
            return error(409, "the table is still playing the last move: wait for its answer")

        def run() -> dict[str, Any]:
            try:
                move()
                return table.shown
            finally:
                table.lock.release()  # a plain Lock: released by the worker that made the move

        try:
            return JSONResponse(await self.work(run))
        except AgentFailedError as e:  # the table has stopped for good: every later move is 410, naming why
            return error(410, str(e))
        except TableError as e:
            return error(409, str(e))
        except ValueError as e:
            return error(400, str(e))

    async def act(self, request: Request) -> Response:
        """``POST /api/tables/ID/action``: the seat's move; the agents play on."""
        table = self.table_of(request)
        body = await body_of(request)
        if set(body) != {"action"}:
            return error(400, 'the body must be {"action": ID}, ID an action id from 0 to 71')
        return await self.moved(table, lambda: table.act(body["action"]))

    async def go_on(self, request: Request) -> Response:
        """``POST /api/tables/ID/continue``: leave a finished hand's summary."""
        table = self.table_of(request)
        return await self.moved(table, table.go_on)

    async def table_records(self, request: Request) -> Response:
        """``GET /api/tables/ID/records``: the finished hands' records, each seat's agent named."""
        table = self.table_of(request)
        lines = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in table.records())
        name = f"smear-{table.game.game_id}.jsonl"
        return Response(lines, media_type="application/jsonl", headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def abandon(self, request: Request) -> Response:
        """``DELETE /api/tables/ID``: abandon the table."""
        try:
            self.tables.remove(request.path_params["table_id"])
        except KeyError:
            return error(404, "no such table (it was abandoned, timed out, or the id is wrong)")
        return Response(status_code=204)

    def routes(self) -> list[Route]:
        """The routes of this part of the API."""
        return [
            Route("/", self.index),
            Route("/api/agents", self.agents_list),
            Route("/api/tables", self.new_table, methods=["POST"]),
            Route("/api/tables/{table_id}", self.show, methods=["GET"]),
            Route("/api/tables/{table_id}", self.abandon, methods=["DELETE"]),
            Route("/api/tables/{table_id}/action", self.act, methods=["POST"]),
            Route("/api/tables/{table_id}/continue", self.go_on, methods=["POST"]),
            Route("/api/tables/{table_id}/records", self.table_records, methods=["GET"]),
        ]


class ReplayRoutes:
    """The replay: the records folder's files, uploads, an arena match, an agent's values of a recorded hand.
    Each of these runs in the slow pool under its share (:mod:`smear_apps.web.shares`): a client that asks for more
    at once is told to wait (429, ``Retry-After``), and the tables never wait behind them."""

    def __init__(self, settings: Settings, policy: AgentPolicy, workers: Workers) -> None:
        self.folder, self.policy, self.work = RecordsFolder(settings.records, MAX_UPLOAD), policy, workers.slow
        self.check = workers.check
        self.scorers: dict[str, tuple[Agent, threading.Lock]] = {}
        self.scorers_lock = threading.Lock()
        self.explains = Share(
            "explanations", settings.explains_per_client, max(2 * settings.slow_workers, settings.explains_per_client)
        )
        self.files = Share("records files", settings.files_per_client, max(settings.slow_workers, settings.files_per_client))

    def named(self, request: Request, key: str = "name") -> str:
        """The file a query parameter names; 400 if it names none."""
        name = request.query_params.get(key)
        if not name:
            raise HTTPException(400, f"give ?{key}=FILE, a file of the records folder (GET /api/records lists them)")
        return name

    def scorer(self, spec: str) -> tuple[Agent, threading.Lock]:
        """The agent of ``spec`` for ``/api/explain``, kept (building a network agent takes a while), with the lock
        that lets one request at a time use it."""
        with self.scorers_lock:
            if spec not in self.scorers:
                while len(self.scorers) >= SCORERS:
                    del self.scorers[next(iter(self.scorers))]
                self.scorers[spec] = (self.policy.build(spec, "agent"), threading.Lock())
            self.scorers[spec] = self.scorers.pop(spec)  # the most recently used last
            return self.scorers[spec]

    def explained(self, record: dict[str, Any], spec: str) -> list[dict[str, Any]]:
        """The agent's values of each decision of ``record`` (in the slow pool)."""
        agent, lock = self.scorer(spec)
        with lock:
            return explain(record, agent)

    async def replay_page(self, request: Request) -> Response:
        """``GET /replay``: the replay page."""
        return FileResponse(STATIC / "replay.html")

    async def records_list(self, request: Request) -> Response:
        """``GET /api/records``: the records and match files of the records folder."""
        return JSONResponse({"folder": self.folder.shown, "files": await self.work(self.folder.files)})

    async def records_file(self, request: Request) -> Response:
        """``GET /api/records/file?name=N``: a records file of the folder, checked."""
        name = self.named(request)
        with self.files.taken(client_of(request)):
            raw = await self.work(self.folder.read, name)
            return json_bytes(await self.check(checked_answer, raw, name))

    async def upload(self, request: Request) -> Response:
        """``POST /api/records/upload``: a records file sent as the body (cut off at its limit), checked."""
        name = request.query_params.get("name", "upload.jsonl")[:200]
        with self.files.taken(client_of(request)):  # before the body: a refused upload is never read
            raw = await read_body(request, MAX_UPLOAD, "the file is")
            return json_bytes(await self.check(checked_answer, raw, name))

    async def match(self, request: Request) -> Response:
        """``GET /api/match?json=J&records=R``: an arena match, its records checked to be its own."""
        summary_name, records_name = self.named(request, "json"), self.named(request, "records")
        with self.files.taken(client_of(request)):
            summary, records = await self.work(self.folder.read, summary_name), await self.work(self.folder.read, records_name)
            return json_bytes(await self.check(match_answer, summary, summary_name, records, records_name))

    async def explain_hand(self, request: Request) -> Response:
        """``POST /api/explain``: an agent's value of each legal action at each decision of a hand."""
        with self.explains.taken(client_of(request)):
            body = await body_of(request, limit=MAX_BODY * 4)
            if set(body) - {"record", "agent"} or not isinstance(body.get("record"), dict):
                raise HTTPException(400, 'the body must be {"record": a hand record, "agent": a spec such as neural or search}')
            spec = body.get("agent", "neural")
            if not isinstance(spec, str) or not spec.strip():
                raise HTTPException(400, f"agent {str(spec)[:60]!r}: an agent spec such as neural, dmc or search")
            try:
                check_hand(body["record"], alone=True)
            except RecordError as e:
                raise HTTPException(422, f"the record is not a hand record this server can replay: {e}") from None
            try:
                values = await self.work(self.explained, body["record"], spec.strip())
            except ValueError as e:
                raise HTTPException(400, str(e)) from None
            return JSONResponse({"agent": spec, "decisions": values})

    def routes(self) -> list[Route]:
        """The routes of this part of the API."""
        return [
            Route("/replay", self.replay_page),
            Route("/api/records", self.records_list),
            Route("/api/records/file", self.records_file),
            Route("/api/records/upload", self.upload, methods=["POST"]),
            Route("/api/match", self.match),
            Route("/api/explain", self.explain_hand, methods=["POST"]),
        ]


def client_of(request: Request) -> str:
    """The client's address: what the per-client limits count by."""
    return request.client.host if request.client else ""


def json_bytes(body: bytes) -> Response:
    """An answer of JSON already made."""
    return Response(body, media_type="application/json")


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error(exc.status_code, str(exc.detail))


async def _folder_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, FolderError)
    return error(exc.status, str(exc))


async def _busy(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BusyError)
    return error(exc.status, str(exc), exc.retry_after)


def create_app(settings: Settings | None = None, tables: Tables | None = None) -> Starlette:
    """The web app under ``settings`` (a loopback server's by default); ``tables`` holds its games (a new,
    empty set by default)."""
    settings = settings or Settings()
    policy = AgentPolicy(settings.checkpoints, settings.agents, settings.limits)
    workers = Workers(settings)  # one bounded pool for every request that thinks or reads
    tables = tables if tables is not None else Tables(settings.max_tables, settings.tables_per_client)
    table_routes, replay_routes = TableRoutes(settings, tables, policy, workers), ReplayRoutes(settings, policy, workers)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        workers.shutdown()

    static = Mount("/static", StaticFiles(directory=STATIC), name="static")
    return Starlette(
        routes=table_routes.routes() + replay_routes.routes() + [static],
        exception_handlers={
            HTTPException: _http_error,
            FolderError: _folder_error,
            BusyError: _busy,
        },  # a 500: smear_apps.web.guard
        middleware=[Middleware(Guard, hosts=settings.hosts)],
        lifespan=lifespan,
    )


@dataclass
class Config:
    """``smear-web``'s options: everything a request may make the server read, run or spend."""

    host: str = "127.0.0.1"
    """address to listen on (127.0.0.1: this machine only)"""
    port: int = 8000
    """port"""
    allowed_host: Annotated[tuple[str, ...], UseAppendAction, arg(metavar="NAME[:PORT]")] = ()
    """a host name clients reach the server by; needed with --host 0.0.0.0, where every other name is refused"""
    records: Annotated[str | None, arg(metavar="DIR")] = None
    """the folder whose records files (and smear-eval --json files) the replay may open; nothing outside it"""
    checkpoints: Annotated[tuple[str, ...], UseAppendAction, arg(metavar="DIR")] = ()
    """a folder whose checkpoints a table may name, neural:NAME relative to it; none by default"""
    agent: Annotated[tuple[str, ...], UseAppendAction, arg(metavar="SPEC")] = ()
    """a spec a table may name beyond the built-ins, exactly as written, e.g. my_bot.py:Bot: its code runs in the server"""
    think_seconds: float = Limits().seconds
    """most seconds= a table's agent may ask"""
    max_samples: int = Limits().samples
    """most samples="""
    max_rollouts: int = Limits().rollouts
    """most rollouts= and play_rollouts="""
    workers: int = 8
    """threads the agents think in, all tables together"""
    slow_workers: int = 2
    """threads the explanations and the records files' checks run in, apart from the tables'"""
    explains_per_client: int = 2
    """explanations one client may have under way at once"""
    files_per_client: int = 1
    """records files one client may have checked at once"""
    max_tables: int = MAX_TABLES
    """tables at once, all clients"""
    tables_per_client: int = MAX_PER_CLIENT
    """tables at once for one client address"""

    def __post_init__(self) -> None:
        """The checks that need nothing but the values (main checks the folders)."""
        for name in ("workers", "slow_workers", "explains_per_client", "files_per_client", "max_tables", "tables_per_client"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} {getattr(self, name)}: 1 or more")
        if not self.think_seconds > 0 or self.max_samples < 1 or self.max_rollouts < 0:
            raise ValueError("--think-seconds must be over 0, --max-samples 1 or more, --max-rollouts 0 or more")


def main(argv: list[str] | None = None) -> int:
    """``smear-web [--host H] [--port P] [--records DIR] ...``: serve the table and the replay until Ctrl-C."""
    config = cli(Config, argv, DESCRIPTION, PROG)
    if config.records and not Path(config.records).is_dir():
        refuse(PROG, f"--records {config.records}: not a folder")
    for given in config.checkpoints:
        if not Path(given).is_dir():
            refuse(PROG, f"--checkpoints {given}: not a folder")
    hosts = [f"{name}:{config.port}" for name in LOOPBACK]
    if config.host in ("0.0.0.0", "::", ""):
        if not config.allowed_host:
            refuse(
                PROG,
                f"--host {config.host} listens on every address: name the host names clients use with --allowed-host "
                "(e.g. --allowed-host mylaptop.lan), so that no other site's name is answered",
            )
    elif config.host not in ("127.0.0.1", "localhost", "::1"):
        hosts.append(f"[{config.host}]:{config.port}" if ":" in config.host else f"{config.host}:{config.port}")
    settings = Settings(
        hosts=tuple(hosts + list(config.allowed_host)),
        records=Path(config.records) if config.records else None,
        checkpoints=tuple(Path(c) for c in config.checkpoints),
        agents=tuple(config.agent),
        limits=Limits(seconds=config.think_seconds, samples=config.max_samples, rollouts=config.max_rollouts),
        workers=config.workers,
        slow_workers=config.slow_workers,
        explains_per_client=config.explains_per_client,
        files_per_client=config.files_per_client,
        max_tables=config.max_tables,
        tables_per_client=config.tables_per_client,
    )
    import uvicorn

    print(f"smear-web: http://{config.host}:{config.port}/ (replays: /replay; Ctrl-C stops it)", file=sys.stderr)
    uvicorn.Server(server_config(create_app(settings), config.host, config.port)).run()
    return 0


def server_config(app: Starlette, host: str, port: int) -> Any:
    """uvicorn's settings for serving ``app``: its own 400s carry the security headers too (``guard.http_protocol``)."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level="warning", http=http_protocol())


if __name__ == "__main__":
    sys.exit(main())
