"""What ``smear-web``'s replay reads: records files from one folder only, an agent's values of each
decision of a recorded hand, and the deal sets of an arena match whose two games differed most."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from agents.base import Agent
from smear_env import IllegalActionError, action_name, observe, seat_view
from smear_env.records import hand_actions, hand_start

SUFFIXES = (".jsonl", ".json")


class FolderError(Exception):
    """Why a file of the records folder cannot be read, with the HTTP status that says so (4xx)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class RecordsFolder:
    """The one folder the replay may read (``smear-web --records DIR``): a name is a path inside it, never
    absolute, never with ``..``, never a symlink that leads out of it."""

    def __init__(self, root: Path | None, limit: int) -> None:
        self.root = root.resolve() if root is not None else None
        self.limit = limit
        self.shown = root.resolve().name if root is not None else None  # its name only: no server path to a client

    def _inside(self, path: Path) -> bool:
        assert self.root is not None
        try:
            return path.resolve(strict=True).is_relative_to(self.root)
        except (OSError, RuntimeError):
            return False

    def files(self) -> list[dict[str, Any]]:
        """The records (``.jsonl``) and match (``.json``) files in the folder and below it, by name."""
        if self.root is None:
            return []
        found = []
        for path in sorted(self.root.rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and self._inside(path):
                found.append({"name": path.relative_to(self.root).as_posix(), "bytes": path.stat().st_size})
        return found

    def read(self, name: str) -> str:
        """The text of file ``name`` of the folder; a FolderError naming why not."""
        if self.root is None:
            raise FolderError(
                404, "this server has no records folder (start it with smear-web --records DIR); upload a file instead"
            )
        relative = Path(name)
        if relative.is_absolute() or ".." in relative.parts or "\\" in name or "\0" in name:
            raise FolderError(400, f"{name!r}: a file name inside the records folder, without '..' and not absolute")
        path = self.root / relative
        if not path.exists() and not path.is_symlink():
            raise FolderError(404, f"{name!r}: no such file in the records folder")
        if not self._inside(path):
            raise FolderError(403, f"{name!r}: leads out of the records folder")
        if not path.is_file() or path.suffix not in SUFFIXES:
            raise FolderError(400, f"{name!r}: not a records (.jsonl) or match (.json) file")
        if path.stat().st_size > self.limit:
            raise FolderError(413, f"{name!r}: over the limit of {self.limit // 2**20} MiB")
        try:
            return path.read_text()
        except UnicodeDecodeError:
            raise FolderError(422, f"{name!r}: not UTF-8 text") from None


_agent_lock = threading.Lock()


def explain(record: dict[str, Any], agent: Agent) -> list[dict[str, Any]]:
    """Each decision of a recorded hand with a choice: the step, the seat, the action made and ``agent``'s value
    of every legal action (in the agent's unit: a network's is the hand's expected score margin).

    Raises:
        ValueError: the agent cannot value its choices or play these rules, or the record is not a playable hand.
    """
    if not callable(getattr(agent, "scores", None)):
        raise ValueError(f"agent {agent.name!r} cannot value its choices; neural, neural:PATH, dmc and search can")
    try:
        game, actions = hand_start(record), hand_actions(record)
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise ValueError(f"the record is not a hand record ({type(e).__name__}: {e})") from None
    agent.check_rules(game.rules)
    decisions = []
    with _agent_lock:  # one agent object serves all requests
        agent.seed(0)
        for step, action in enumerate(actions):
            legal = game.legal_actions()
            if len(legal) > 1:
                seat = game.to_act
                values = agent.scores(observe(game, seat), game.action_mask(), seat_view(game, seat))  # type: ignore[attr-defined]
                decisions.append(
                    {
                        "step": step,
                        "seat": seat,
                        "action": action_name(action),
                        "values": {action_name(a): round(v, 3) for a, v in values.items()},
                    }
                )
            try:
                game.step(action)
            except IllegalActionError as e:
                raise ValueError(f"the record's hand is not legal at step {step}: {e}") from None
    return decisions


def match_mismatch(summary: dict[str, Any], records: list[dict[str, Any]]) -> str | None:
    """Why ``records`` are not the hands of the arena match ``summary`` describes (None when they are): the
    same number of hands and games, the same rules, game ids of the match's seed (``smear-eval --json`` and
    ``--records`` of one run)."""
    seeds = summary.get("seed")
    seeds = seeds if isinstance(seeds, list) else [seeds]
    labels = {f"{s:x}" for s in seeds if isinstance(s, int) and not isinstance(s, bool) and s >= 0}
    games = {r["game_id"] for r in records}
    if summary.get("hands") != len(records):
        return f"the summary counts {str(summary.get('hands'))[:20]} hands, the records file holds {len(records)}"
    if summary.get("games") != len(games):
        return f"the summary counts {str(summary.get('games'))[:20]} games, the records file holds {len(games)}"
    if any(r["rules"] != summary.get("rules") for r in records):
        return "the records were played under other rules than the summary's"
    if not labels or any(g.split("-")[0] not in labels or g[-2:] not in ("-A", "-B") for g in games):
        return "the records' game ids are not those of the summary's seed (an arena match's game ids end in -A or -B)"
    return None


def match_swings(records: list[dict[str, Any]], most: int = 10) -> list[dict[str, Any]]:
    """The hands of an arena match whose two games of a deal set differed most for agent A.

    The two games of a deal set (``game_id`` ending ``-A`` and ``-B``) deal the same cards hand by hand with
    the partnerships swapped; for each hand index both played, A's score margin in the one plus A's in the other
    is what A gained over B on the same cards (0 when both play alike). Records without the arena's ``agents``
    key give no swings.
    """
    by_game: dict[str, dict[int, int]] = {}
    for index, record in enumerate(records):
        if isinstance(record.get("agents"), list) and record["game_id"][-2:] in ("-A", "-B"):
            by_game.setdefault(record["game_id"], {})[record["hand_index"]] = index
    swings = []
    for game_id, hands in by_game.items():
        if not game_id.endswith("-A") or game_id[:-1] + "B" not in by_game:
            continue
        other = by_game[game_id[:-1] + "B"]
        for hand_index in sorted(set(hands) & set(other)):
            pair = [records[hands[hand_index]], records[other[hand_index]]]
            margins = []
            for record in pair:
                team = record["agents"].index("A") & 1
                change = [after - before for before, after in zip(record["score_before"], record["score_after"], strict=True)]
                margins.append(change[team] - change[1 - team])
            swings.append(
                {
                    "deal_set": game_id[:-2],
                    "hand_index": hand_index,
                    "records": [hands[hand_index], other[hand_index]],
                    "margins": margins,
                    "swing": sum(margins),
                }
            )
    swings.sort(key=lambda s: -abs(s["swing"]))
    return swings[:most]
