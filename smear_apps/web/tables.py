"""The tables of ``smear-web``: a game kept on the server, a person in one seat, agents in the others.

No web framework here: a :class:`Table` takes actions and answers with what its person's seat may
know (:func:`smear_env.seat_view`), as plain JSON values, so nothing hidden ever leaves the server.
A finished hand stops the table at its summary (the whole hand face up, from its hand record) until
the person goes on; only then do the agents play the next hand.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np

from agents.base import Agent
from agents.registry import load_agent
from smear_env import Game, Phase, Rules, action_name, observe, seat_view
from smear_env.game import game_label, game_rng, run_entropy
from smear_env.render import action_words, after_move, announce, point_details, point_rules, seat_words, view_tally

MAX_TABLES = 200
"""Tables kept at once, all clients together."""
MAX_PER_CLIENT = 32
"""Tables one client (one address) may keep at once."""
IDLE_SECONDS = 6 * 3600.0
"""A table nobody touched for this long is dropped."""
EVICTABLE_SECONDS = 15 * 60.0
"""A table nobody touched for this long may make room for a new one (a finished game may at once)."""
STOPPED = "; this table cannot go on: abandon it and start another"
log = logging.getLogger("smear-web")
PERSON = "person"
"""What a table's records call the person's seat among the agents' specs."""


class TableError(ValueError):
    """A request a table refuses (an illegal move, a move out of turn); the game is unchanged."""


class AgentFailedError(TableError):
    """An agent of the table failed (raised, or chose an illegal move): the table has stopped for good; the
    person may look at it and abandon it, and nobody moves at it again."""


class TablesFullError(Exception):
    """No room for another table, and none that may be dropped (all are in play); the HTTP status says whose limit."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Table:
    """One game: the person's seat, the agents' specs, the rules; every move is made here.

    ``build(spec, role)`` makes each agent (by default :func:`agents.load_agent`; ``smear-web`` passes
    what its owner allows, :class:`smear_apps.web.policy.AgentPolicy`)."""

    def __init__(
        self,
        seat: int,
        partner: str,
        opponents: str,
        rules: Rules,
        seed: int | None = None,
        build: Callable[[str, str], Agent] | None = None,
        client: str = "",
    ) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in range(4):
            raise ValueError(f"seat {seat!r}: one of 0, 1, 2, 3")
        build = build or (lambda spec, role: load_agent(spec))
        self.id = secrets.token_urlsafe(18)
        self.client = client
        self.seat = seat
        self.rules = rules
        self.specs = {(seat + 2) % 4: partner, (seat + 1) % 4: opponents, (seat + 3) % 4: opponents}
        self.agents: dict[int, Agent] = {}
        for other, spec in self.specs.items():
            agent = build(spec, "partner" if other == (seat + 2) % 4 else "opponents")  # a ValueError naming what is allowed
            agent.check_rules(rules)
            self.agents[other] = agent
        entropy = run_entropy(seed)
        self.game = Game(rules, game_rng(entropy, 0, 0), game_id=game_label(entropy, 0, 0))
        for other, agent in self.agents.items():
            agent.seed([entropy % 2**63, other])
        self.log: list[str] = [self._deals()]
        self.summary: dict[str, Any] | None = None
        self.failed: str | None = None
        """Why the table stopped for good (an agent failed), or None while it plays."""
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        try:
            self._advance()
        except AgentFailedError:
            raise ValueError(f"the table could not start: {self.failed}".removesuffix(STOPPED)) from None
        self.shown = self.state()
        """The state as of the last finished move: what a GET answers without waiting for agents that think."""

    # ------------------------------------------------------------------ moves
    def _deals(self) -> str:
        """The log's first line of a hand: who deals, said to the person ("Hand 2: you deal.")."""
        dealer = self.game.dealer
        who = "you deal" if dealer == self.seat else f"{seat_words(dealer, self.seat)} deals"
        return f"Hand {self.game.hand_index + 1}: {who}."

    def _move(self, seat: int, action: int) -> None:
        game = self.game
        self.log.append(announce(game, seat, action, self.seat, faces=True, relative=True))
        learnt = after_move(game, seat, action, self.seat, faces=True, relative=True)
        before = len(game.records)
        game.step(action)
        self.log.extend(learnt)
        if len(game.records) > before:
            self.summary = game.records[-1]  # the table stops here until the person goes on

    def _advance(self) -> None:
        """The agents play until it is the person's turn, a hand ends or the game is over. An agent that raises
        or chooses an illegal move stops the table for good (:attr:`failed`): the game stays as it was before
        that agent's turn, and the person can see it and abandon it."""
        game = self.game
        while not game.game_over and self.summary is None and game.to_act != self.seat:
            seat = game.to_act
            try:
                action = self.agents[seat].act(observe(game, seat), game.action_mask(), seat_view(game, seat))
                if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
                    raise ValueError(f"it answered {str(action)[:40]!r}, not an action id")
                if int(action) not in game.legal_actions():
                    raise ValueError(f"it chose action {int(action)}, which is not legal")
            except Exception:  # noqa: BLE001 - any fault of an agent stops this table, never the server
                # The person reads whose agent failed, never the fault's text (an agent may hold its cards in it);
                # the server's log keeps the fault for the owner.
                log.exception("table %s: the %s agent at seat %d failed", self.id[:8], self.agents[seat].name, seat)
                who = seat_words(seat, self.seat)
                self.failed = f"the agent playing for {who} failed at its turn" + STOPPED
                self.log.append(f"The agent playing for {who} failed; the table has stopped.")
                raise AgentFailedError(self.failed) from None
            self._move(seat, int(action))

    def _check_open(self) -> None:
        """A :class:`TableError` unless the table is waiting for its person (not stopped, not over)."""
        if self.failed is not None:
            raise AgentFailedError(self.failed)
        if self.game.game_over:
            raise TableError("the game is over")

    def act(self, action: Any) -> None:
        """The person's move; a ValueError if it is not an action id, a :class:`TableError` if it is not the
        person's turn (naming no other seat's moves) or not one of the person's legal moves now."""
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < 72:
            raise ValueError(f"action {action!r}: an action id, a whole number from 0 to 71")
        self._check_open()
        if self.summary is not None:
            raise TableError("the hand is over: go on to the next hand (POST .../continue) first")
        if self.game.to_act != self.seat:
            raise TableError(f"it is not your turn: seat {self.game.to_act} is to act")
        legal = self.game.legal_actions()
        if action not in legal:
            allowed = ", ".join(f"{a} ({action_words(a)})" for a in legal)
            raise TableError(f"action {action} ({action_words(action)}) is not legal now; legal: {allowed}")
        self._move(self.seat, action)
        self._play_on()

    def go_on(self) -> None:
        """Leave a hand's summary: the agents play on to the person's next turn."""
        if self.failed is not None:
            raise AgentFailedError(self.failed)
        if self.summary is None:
            raise TableError("no hand summary to leave: it is a move that is expected")
        self.summary = None
        if not self.game.game_over:
            self.log = [self._deals()]  # this hand's moves only
        self._play_on()

    def _play_on(self) -> None:
        """The agents' turns, then what the person is shown (also when an agent failed: the moves made stand)."""
        try:
            self._advance()
        finally:
            self.shown = self.state()

    # ------------------------------------------------------------------ what the person sees
    def state(self) -> dict[str, Any]:
        """What the person's seat may know now, as JSON values (``seat_view``), with the legal moves named,
        the tally so far, the last moves in words and, at a hand's end, that hand's record face up."""
        game, me = self.game, self.seat
        view = seat_view(game, me)
        plain = asdict(view)
        plain["phase"] = view.phase.name.lower()
        plain["rules"] = view.rules.to_dict()
        plain["tricks"] = [{"leader": t.leader, "plays": [list(p) for p in t.plays], "winner": t.winner} for t in view.tricks]
        plain["trick"] = [list(p) for p in view.trick]
        my_turn = self.failed is None and self.summary is None and not game.game_over and game.to_act == me
        plain["legal_actions"] = [{"id": a, "name": action_name(a)} for a in (view.legal_actions if my_turn else ())]
        tally = None
        if view.trump is not None and view.phase == Phase.PLAY:
            won, points, game_count = view_tally(view)
            tally = {
                "tricks": won,
                "high": points["high"],
                "low": points["low"],
                "jack": points["jack"],
                "game_count": game_count,
            }
        return {
            "table": self.id,
            "seat": me,
            "agents": {str(s): spec for s, spec in sorted(self.specs.items())},
            "view": plain,
            "tally": tally,
            "point_rules": point_rules(self.rules),
            "log": list(self.log),
            "summary": self.summary,
            "summary_points": point_details(self.summary) if self.summary and not self.summary["redeal"] else None,
            "game_over": game.game_over and self.summary is None,
            "final_scores": list(game.scores) if game.game_over else None,
            "winner": game.winner if game.game_over else None,
            "hands_played": len(game.records),
            "failed": self.failed,
        }

    def records(self) -> list[dict[str, Any]]:
        """The hand records of the hands finished so far (all of them face up: they are over), each with
        ``agents``: who sat where (the agents' specs, ``person`` for the person's seat)."""
        seats = [PERSON if s == self.seat else self.specs[s] for s in range(4)]
        return [dict(record, agents=seats) for record in list(self.game.records)]

    def evictable(self, now: float) -> bool:
        """Whether this table may make room for another: its game is over, or nobody touched it for a while."""
        return self.game.game_over or now - self.touched > EVICTABLE_SECONDS


class Tables:
    """The tables of one server, by their unguessable ids. There is room for ``limit`` tables, ``per_client``
    of them for one client; a new table takes the room of a finished or long idle one (the least recently
    touched first, the client's own first), never of a game in play."""

    def __init__(self, limit: int = MAX_TABLES, per_client: int = MAX_PER_CLIENT, idle_seconds: float = IDLE_SECONDS) -> None:
        self.limit, self.per_client, self.idle_seconds = limit, per_client, idle_seconds
        self._tables: dict[str, Table] = {}
        self._lock = threading.Lock()

    def make_room(self, client: str) -> None:
        """Drop what may be dropped so that ``client`` can open a table; :class:`TablesFullError` if nothing may."""
        with self._lock:
            self._make_room(client)

    def add(self, table: Table) -> Table:
        """Keep ``table``, dropping what may be dropped to make room; :class:`TablesFullError` if there is none."""
        with self._lock:
            self._make_room(table.client)
            self._tables[table.id] = table
        return table

    def _make_room(self, client: str) -> None:
        now = time.monotonic()
        for key in [k for k, t in self._tables.items() if now - t.touched > self.idle_seconds]:
            del self._tables[key]
        own = [t for t in self._tables.values() if t.client == client]
        if len(own) >= self.per_client and not self._drop(own, now):
            raise TablesFullError(
                429,
                f"you have {len(own)} tables in play here, this server's limit for one client: "
                "finish or abandon one (DELETE /api/tables/ID) first",
            )
        if len(self._tables) >= self.limit and not self._drop(list(self._tables.values()), now):
            raise TablesFullError(503, f"the server is full: {len(self._tables)} tables in play, its limit; try again later")

    def _drop(self, tables: list[Table], now: float) -> bool:
        """Drop the least recently touched of ``tables`` that may make room; whether there was one."""
        candidates = [t for t in tables if t.evictable(now)]
        if not candidates:
            return False
        del self._tables[min(candidates, key=lambda t: t.touched).id]
        return True

    def get(self, table_id: str) -> Table:
        """The table of ``table_id``; a KeyError if there is none (never another table's)."""
        with self._lock:
            table = self._tables[table_id]
            table.touched = time.monotonic()
            return table

    def remove(self, table_id: str) -> None:
        """Abandon a table (a KeyError if there is none)."""
        with self._lock:
            del self._tables[table_id]

    def __len__(self) -> int:
        return len(self._tables)
