"""What ``smear-web``'s replay reads: records files from one folder only, an agent's values of each
decision of a recorded hand, and the deal sets of an arena match whose two games differed most."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from agents.base import Agent
from smear_env import IllegalActionError, RecordError, action_name, observe, seat_view
from smear_env.records import check_hand, hand_actions, hand_start

SUFFIXES = (".jsonl", ".json")
MAX_LINE = 64 * 1024
"""The longest line a records file may have (bytes): a hand record takes a few kB."""
MAX_NAME = 1024
"""The longest file name (its path inside the records folder) a request may give."""


class FolderError(Exception):
    """Why a file of the records folder cannot be read, with the HTTP status that says so (4xx)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status

    def __reduce__(self) -> tuple[type, tuple[int, str]]:  # raised in a checking process, re-raised in the server's
        return FolderError, (self.status, str(self))


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

    def read(self, name: str) -> bytes:
        """The bytes of file ``name`` of the folder; a FolderError naming why not."""
        if self.root is None:
            raise FolderError(
                404, "this server has no records folder (start it with smear-web --records DIR); upload a file instead"
            )
        if len(name) > MAX_NAME:
            raise FolderError(400, f"a file name of {len(name):,} characters: at most {MAX_NAME}, inside the records folder")
        relative = Path(name)
        if relative.is_absolute() or ".." in relative.parts or "\\" in name or "\0" in name:
            raise FolderError(400, f"{name!r}: a file name inside the records folder, without '..' and not absolute")
        path = self.root / relative
        try:
            found = path.exists() or path.is_symlink()
        except OSError:  # a part of the name longer than the file system takes, say
            raise FolderError(400, f"{name[:100]!r}: not a file name this server can look up") from None
        if not found:
            raise FolderError(404, f"{name!r}: no such file in the records folder")
        if not self._inside(path):
            raise FolderError(403, f"{name!r}: leads out of the records folder")
        if not path.is_file() or path.suffix not in SUFFIXES:
            raise FolderError(400, f"{name!r}: not a records (.jsonl) or match (.json) file")
        if path.stat().st_size > self.limit:
            raise FolderError(413, f"{name!r}: over the limit of {self.limit // 2**20} MiB")
        return path.read_bytes()[: self.limit]


class Hand(NamedTuple):
    """What a match's view reads of one checked record (the rest stays in its line)."""

    game_id: str
    hand_index: int
    rules: str  # the rule settings, as canonical JSON
    agents: tuple[str, ...] | None
    score_before: tuple[int, ...]
    score_after: tuple[int, ...]


@dataclass
class CheckedFile:
    """A records file whose every line was replayed through the engine: the lines as they came (each one
    record's JSON) and what a match's view reads of each. Its cost in memory is a few times the file's
    size whatever the file holds: a line is parsed, checked and let go before the next."""

    name: str
    lines: list[bytes]
    hands: list[Hand]

    def answer(self, **more: Any) -> bytes:
        """The JSON answer ``{...more, "name": ..., "records": [...]}`` built from the lines as they are."""
        head = b"".join(f"{json.dumps(k)}:{json.dumps(v, allow_nan=False)},".encode() for k, v in more.items())
        return b"{" + head + b'"name":' + json.dumps(self.name).encode() + b',"records":[' + b",".join(self.lines) + b"]}"


def json_fault(error: Exception) -> str:
    """Why a text is not JSON this server reads, in a client's words (Python's own advice to raise its digit limit,
    sys.set_int_max_str_digits, is for the server's owner, not for a client)."""
    text = str(error)
    if "Exceeds the limit" in text and "digits" in text:
        return f"a number of more than {sys.get_int_max_str_digits():,} digits"
    return text[:200]


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def check_file(raw: bytes, name: str) -> CheckedFile:
    """The records of a JSON Lines file, each checked by replay as it is read (``smear_env.records.check_hand``,
    its game's previous hand kept in brief); a FolderError (422) naming the line and the fault."""
    lines: list[bytes] = []
    hands: list[Hand] = []
    last: dict[str, dict[str, Any]] = {}  # each game's previous hand: what the continuity check reads of it
    start, number = 0, 0
    while start < len(raw):
        end = raw.find(b"\n", start)
        end = len(raw) if end < 0 else end
        line, start = raw[start:end], end + 1
        number += 1
        if len(line) > MAX_LINE:
            raise FolderError(422, f"{name}: line {number}: {len(line):,} bytes, over the {MAX_LINE:,} of any hand record")
        if not line.strip():
            continue
        try:
            text = line.decode()
        except UnicodeDecodeError:
            raise FolderError(422, f"{name}: line {number}: not UTF-8 text (hand records are JSON Lines)") from None
        try:
            record = json.loads(text, parse_constant=_no_constant)
        except RecursionError:
            raise FolderError(422, f"{name}: line {number}: not a record (nested too deeply)") from None
        except ValueError as e:  # not JSON, not UTF-8, NaN, or a number of more digits than Python converts
            raise FolderError(422, f"{name}: line {number}: not JSON ({json_fault(e)})") from None
        if not isinstance(record, dict):
            raise FolderError(422, f"{name}: line {number}: a record must be a JSON object")
        game_id = record.get("game_id")
        try:
            check_hand(record, number, last.get(game_id) if isinstance(game_id, str) else None)
        except RecordError as e:
            raise FolderError(422, f"{name}: {e}") from None
        game_id = str(game_id)  # checked: a string
        last[game_id] = {
            k: record[k] for k in ("game_over", "hand_index", "rules", "score_after", "dealer", "redeal") if k in record
        }
        agents = record.get("agents")
        hands.append(
            Hand(game_id, record["hand_index"], json.dumps(record["rules"], sort_keys=True),
                 tuple(map(str, agents)) if isinstance(agents, list) else None,
                 tuple(record["score_before"]), tuple(record["score_after"]))
        )  # fmt: skip
        lines.append(line.strip())
    if not lines:
        raise FolderError(422, f"{name}: no records in it")
    return CheckedFile(name, lines, hands)


def checked_answer(raw: bytes, name: str) -> bytes:
    """The answer to a records file (``{"name", "records"}``), checked: what a checking process returns."""
    return check_file(raw, name).answer()


def match_answer(summary_raw: bytes, summary_name: str, records_raw: bytes, records_name: str) -> bytes:
    """The answer to an arena match (its summary, its checked records and the deal sets that swung most), or a
    FolderError (422) naming what is wrong: the summary is not one, or the records are not its own."""
    try:
        summary = json.loads(summary_raw)
    except (ValueError, RecursionError) as e:
        raise FolderError(422, f"{summary_name}: not JSON ({json_fault(e)}); give the file of smear-eval --json") from None
    if not isinstance(summary, dict) or "win_rate" not in summary or "agents" not in summary:
        raise FolderError(422, f"{summary_name}: not a match summary (smear-eval --json writes one)")
    loaded = check_file(records_raw, records_name)
    mismatch = match_mismatch(summary, loaded.hands)
    if mismatch:
        raise FolderError(422, f"{records_name} is not the records of the match {summary_name}: {mismatch}")
    try:
        return loaded.answer(summary=summary, swings=match_swings(loaded.hands))
    except ValueError:  # a NaN or infinity in the summary
        raise FolderError(422, f"{summary_name}: holds a number JSON does not allow (NaN or infinity)") from None


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
    agent.seed(0)
    for step, action in enumerate(actions):
        legal = game.legal_actions()
        if len(legal) > 1:
            seat = game.to_act
            values = agent.scores(observe(game, seat), game.action_mask(), seat_view(game, seat))  # type: ignore[attr-defined]
            if not all(math.isfinite(v) for v in values.values()):
                raise ValueError(f"agent {agent.name!r} gave a value that is not a number at step {step}")
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


def match_mismatch(summary: dict[str, Any], hands: list[Hand]) -> str | None:
    """Why ``hands`` (a checked file's) are not the hands of the arena match ``summary`` describes (None when
    they are): the same number of hands and games, the same rules, game ids of the match's seed and the two
    sides seated as the arena seats them (``smear-eval --json`` and ``--records`` of one run)."""
    seeds = summary.get("seed")
    seeds = seeds if isinstance(seeds, list) else [seeds]
    labels = {f"{s:x}" for s in seeds if isinstance(s, int) and not isinstance(s, bool) and s >= 0}
    games = {h.game_id for h in hands}
    if summary.get("hands") != len(hands):
        return f"the summary counts {str(summary.get('hands'))[:20]} hands, the records file holds {len(hands)}"
    if summary.get("games") != len(games):
        return f"the summary counts {str(summary.get('games'))[:20]} games, the records file holds {len(games)}"
    rules = json.dumps(summary.get("rules"), sort_keys=True)
    if any(h.rules != rules for h in hands):
        return "the records were played under other rules than the summary's"
    if not labels or any(g.split("-")[0] not in labels or g[-2:] not in ("-A", "-B") for g in games):
        return "the records' game ids are not those of the summary's seed (an arena match's game ids end in -A or -B)"
    if any(h.agents is None or sorted(h.agents) != ["A", "A", "B", "B"] for h in hands):
        return "the records do not seat the match's two sides as the arena does (agents A and B, two seats each)"
    return None


def match_swings(hands: list[Hand], most: int = 10) -> list[dict[str, Any]]:
    """The hands of an arena match whose two games of a deal set differed most for agent A.

    The two games of a deal set (``game_id`` ending ``-A`` and ``-B``) deal the same cards hand by hand with
    the partnerships swapped; for each hand index both played, A's score margin in the one plus A's in the other
    is what A gained over B on the same cards (0 when both play alike). Hands without the arena's ``agents``
    (A and B, two seats each) give no swings.
    """
    by_game: dict[str, dict[int, int]] = {}
    for index, hand in enumerate(hands):
        if hand.agents is not None and "A" in hand.agents and hand.game_id[-2:] in ("-A", "-B"):
            by_game.setdefault(hand.game_id, {})[hand.hand_index] = index
    swings: list[dict[str, Any]] = []
    for game_id, indexes in by_game.items():
        if not game_id.endswith("-A") or game_id[:-1] + "B" not in by_game:
            continue
        other = by_game[game_id[:-1] + "B"]
        for hand_index in sorted(set(indexes) & set(other)):
            pair = [hands[indexes[hand_index]], hands[other[hand_index]]]
            margins = []
            for hand in pair:
                assert hand.agents is not None
                team = hand.agents.index("A") & 1
                change = [after - before for before, after in zip(hand.score_before, hand.score_after, strict=True)]
                margins.append(change[team] - change[1 - team])
            swings.append(
                {
                    "deal_set": game_id[:-2],
                    "hand_index": hand_index,
                    "records": [indexes[hand_index], other[hand_index]],
                    "margins": margins,
                    "swing": sum(margins),
                }
            )
    swings.sort(key=lambda s: -abs(s["swing"]))
    return swings[:most]
