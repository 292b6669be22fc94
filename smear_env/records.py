"""Hand records (``docs/records.md``): writing them atomically, and checking them by replay.

The checker never guesses: it replays every hand through the engine and stops at
the first record that breaks the format or a rule, naming the line, the key and
the rule.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable
from typing import Any

from .actions import DISCARD_BASE, PLAY_BASE, TRUMP_BASE, bid_action
from .cards import SUITS, parse_card
from .files import atomic_write
from .game import SCHEMA, Game, IllegalActionError, Phase, game_label, game_rng
from .rules import Rules

REQUIRED_RULES = ("kitty_size", "stick_the_dealer", "high_low_in_play", "win_only_on_made_bid", "defender_cap", "target_score")
PLAYED_KEYS = ("bidder", "bid", "trump", "discards", "tricks", "points", "game_count", "hand_points", "made_bid")


class RecordError(ValueError):
    """A record that breaks the format or a rule: which line, which key, which rule."""

    def __init__(self, line: int, key: str | None, rule: str | None, message: str) -> None:
        self.line, self.key, self.rule = line, key, rule
        where = f"line {line}" + (f", key {key!r}" if key else "") + (f", rule {rule}" if rule else "")
        super().__init__(f"{where}: {message}")


def write_records(records: Iterable[dict[str, Any]], path: str | os.PathLike[str]) -> int:
    """Write records as JSON Lines atomically (a temporary file, then a rename); returns how many."""
    count = 0

    def write(f) -> None:
        nonlocal count
        for record in records:
            f.write(json.dumps(record, separators=(",", ":")) + "\n")
            count += 1

    atomic_write(path, write)
    return count


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of a JSON Lines file (format only; see :func:`check_records` for rules)."""
    records = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise RecordError(n, None, None, f"not valid JSON ({e.msg})") from None
            if not isinstance(record, dict):
                raise RecordError(n, None, None, "a record must be a JSON object")
            records.append(record)
    return records


def _need(record: dict[str, Any], line: int, key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if key not in record:
        raise RecordError(line, key, None, f"missing; it must be {what}")
    value = record[key]
    bad_bool = kind is int and isinstance(value, bool)
    if bad_bool or not isinstance(value, kind):
        raise RecordError(line, key, None, f"is {value!r}; it must be {what}")
    return value


def _cards(value: Any, line: int, key: str, count: int | None) -> list[int]:
    if not isinstance(value, list) or (count is not None and len(value) != count):
        raise RecordError(line, key, None, f"must be a list of {count if count is not None else 'some'} cards, got {value!r}")
    try:
        return [parse_card(c) for c in value]
    except ValueError as e:
        raise RecordError(line, key, "R1", str(e)) from None


def _scores(value: list[Any], line: int, key: str, hand_index: int) -> list[int]:
    """A list's two ints, the teams' scores before hand ``hand_index``: a hand moves a score by at most 4 (R13, R14)."""
    reach = 4 * hand_index
    if not (len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise RecordError(line, key, "R14", f"is {str(value)[:60]}; it must be a list of 2 ints, the teams' scores")
    if any(abs(v) > reach for v in value):
        raise RecordError(
            line, key, "R14", f"is {str(value)[:60]}; before hand {hand_index} a score lies within -{reach} to {reach}"
        )
    return value


def _seat(value: Any, line: int, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise RecordError(line, key, "R2", f"seat {value!r} is not one of 0-3")
    return value


def _step(game: Game, action: int, line: int, key: str, what: str) -> None:
    rule = {Phase.BID: "R6", Phase.TRUMP: "R9", Phase.DISCARD: "R10", Phase.PLAY: "R11"}.get(game.phase, "R15")
    if game.phase == Phase.BID and game.rules.stick_the_dealer and game.to_act == game.dealer:
        rule = "R7v"
    if game.phase == Phase.PLAY and not game.tricks and not game.trick:
        rule = "R9"
    try:
        game.step(action)
    except IllegalActionError as e:
        raise RecordError(line, key, rule, f"{what} is not allowed: {e}") from None


def check_hand(record: dict[str, Any], line: int = 1, previous: dict[str, Any] | None = None, alone: bool = False) -> None:
    """Replay one record through the engine; raise RecordError at the first fault.

    ``previous`` is the game's record before this one (None for its first hand); ``alone`` checks the hand
    by itself, not its place in its game (a hand taken out of a file to be replayed on its own).
    """
    if record.get("schema") != SCHEMA:
        raise RecordError(line, "schema", None, f"is {record.get('schema')!r}; it must be {SCHEMA!r}")
    game_id = _need(record, line, "game_id", str, "a string")
    hand_index = _need(record, line, "hand_index", int, "an int")
    if hand_index < 0:
        raise RecordError(line, "hand_index", "R16", f"is {hand_index}; hands count from 0")
    rules_obj = _need(record, line, "rules", dict, "an object of rule settings")
    missing = [k for k in REQUIRED_RULES if k not in rules_obj]
    if missing:
        raise RecordError(line, "rules", None, f"missing setting(s) {missing}")
    try:
        rules = Rules.from_dict({k: v for k, v in rules_obj.items() if k in Rules.field_names()})
    except ValueError as e:
        raise RecordError(line, "rules", "R5", str(e)) from None
    dealer = _seat(record.get("dealer"), line, "dealer")
    hands_value = record.get("hands")
    if not isinstance(hands_value, list) or len(hands_value) != 4:
        raise RecordError(line, "hands", "R4", "must be 4 lists of 6 cards, by seat")
    hands = [_cards(h, line, "hands", 6) for h in hands_value]
    kitty = _cards(record.get("kitty"), line, "kitty", 8)
    deck = [c for h in hands for c in h] + kitty
    if len(set(deck)) != 32:
        raise RecordError(line, "hands", "R1", "the hands and kitty must hold each of the 32 cards exactly once")
    score_before = _scores(_need(record, line, "score_before", list, "a list of 2 ints"), line, "score_before", hand_index)
    redeal = _need(record, line, "redeal", bool, "true or false")
    if not alone:
        _check_continuity(record, previous, line)
    if hand_index >= rules.max_hands:
        raise RecordError(line, "hand_index", "R16", f"the game should have been truncated after {rules.max_hands} hands")

    game = Game.at_hand(rules, dealer, hands, kitty, score_before, hand_index, game_id, rng=0)
    all_passed = _check_bids(record, game, line)
    if redeal != all_passed:
        raise RecordError(line, "redeal", "R7", f"is {redeal}, but {'all' if all_passed else 'not all'} players passed")
    if redeal:
        for key in PLAYED_KEYS:
            if record.get(key) is not None:
                raise RecordError(line, key, "R7", "must be absent or null in a redeal")
    else:
        _check_play(record, game, line)
    _check_outcome(record, game.records[-1], rules, line)


def _check_continuity(record: dict[str, Any], previous: dict[str, Any] | None, line: int) -> None:
    """R3, R14, R15: a hand follows its game's previous hand (or starts a game)."""
    game_id, hand_index, score_before, dealer = (record[k] for k in ("game_id", "hand_index", "score_before", "dealer"))
    if previous is None:
        if hand_index != 0:
            raise RecordError(line, "hand_index", None, f"game {game_id!r} starts at hand_index {hand_index}, not 0")
        if score_before != [0, 0]:
            raise RecordError(line, "score_before", "R14", f"a game starts at [0, 0], not {score_before}")
        return
    if previous.get("game_over"):
        raise RecordError(line, "game_over", "R15", f"game {game_id!r} already ended before this hand")
    if hand_index != previous["hand_index"] + 1:
        raise RecordError(line, "hand_index", None, f"expected {previous['hand_index'] + 1}, got {hand_index}")
    if record["rules"] != previous["rules"]:
        raise RecordError(line, "rules", None, "the rule settings changed within one game")
    if score_before != previous["score_after"]:
        raise RecordError(
            line, "score_before", "R14", f"{score_before} is not the previous score_after {previous['score_after']}"
        )
    expected = previous["dealer"] if previous["redeal"] else (previous["dealer"] + 1) % 4
    if dealer != expected:
        raise RecordError(line, "dealer", "R3", f"dealer should be seat {expected}, got {dealer}")


def _check_bids(record: dict[str, Any], game: Game, line: int) -> bool:
    """R6, R7: the bids replayed in turn; whether everyone passed (the hand is thrown in)."""
    hand_index = game.hand_index
    for turn in _need(record, line, "bids", list, "a list of [seat, bid]"):
        if not (isinstance(turn, list) and len(turn) == 2 and turn[1] in (0, 2, 3, 4) and not isinstance(turn[1], bool)):
            raise RecordError(line, "bids", "R6", f"bad bidding turn {turn!r}: [seat, bid] with bid 0 (pass), 2, 3 or 4")
        seat = _seat(turn[0], line, "bids")
        if game.hand_index != hand_index or game.phase != Phase.BID:
            raise RecordError(line, "bids", "R7", f"turn {turn} comes after the bidding ended")
        if seat != game.to_act:
            raise RecordError(line, "bids", "R6", f"seat {seat} bid out of turn; it was seat {game.to_act}'s turn")
        _step(game, bid_action(turn[1]), line, "bids", f"bid {turn[1]} by seat {seat}")
    all_passed = game.hand_index != hand_index
    if not all_passed and game.phase == Phase.BID:
        raise RecordError(line, "bids", "R7", f"the bidding is not finished: seat {game.to_act} has not had a turn")
    return all_passed


def _check_play(record: dict[str, Any], game: Game, line: int) -> None:
    """R7-R12: the bidder and bid, the trump, the discards and the six tricks replayed."""
    hand_index = game.hand_index
    if record.get("bidder") != game.bidder:
        raise RecordError(line, "bidder", "R7", f"is {record.get('bidder')!r}; the bids make seat {game.bidder} the bidder")
    if record.get("bid") != game.high_bid:
        raise RecordError(line, "bid", "R7", f"is {record.get('bid')!r}; the highest bid was {game.high_bid}")
    trump = record.get("trump")
    if trump not in tuple(SUITS):
        raise RecordError(line, "trump", "R9", f"is {trump!r}; it must be one of 'C', 'D', 'H', 'S'")
    _step(game, TRUMP_BASE + SUITS.index(trump), line, "trump", f"trump {trump}")
    discards = _cards(record.get("discards"), line, "discards", game.rules.kitty_size)
    for card in discards:
        _step(game, DISCARD_BASE + card, line, "discards", f"discarding {record['discards'][discards.index(card)]}")
    tricks = record.get("tricks")
    if not isinstance(tricks, list) or len(tricks) != 6:
        raise RecordError(line, "tricks", "R12", "must be a list of the 6 tricks of the hand")
    for i, trick in enumerate(tricks):
        key = f"tricks[{i}]"
        if not isinstance(trick, dict) or not isinstance(trick.get("plays"), list) or len(trick["plays"]) != 4:
            raise RecordError(line, key, "R11", "a trick is {leader, plays: 4 [seat, card], winner}")
        if trick.get("leader") != game.to_act:
            raise RecordError(line, key + ".leader", "R12", f"is {trick.get('leader')!r}; seat {game.to_act} leads this trick")
        for play in trick["plays"]:
            if not (isinstance(play, list) and len(play) == 2):
                raise RecordError(line, key + ".plays", "R11", f"bad play {play!r}: [seat, card]")
            seat = _seat(play[0], line, key + ".plays")
            if seat != game.to_act:
                raise RecordError(
                    line, key + ".plays", "R11", f"seat {seat} played out of turn; it was seat {game.to_act}'s turn"
                )
            card = _cards([play[1]], line, key + ".plays", 1)[0]
            _step(game, PLAY_BASE + card, line, key + ".plays", f"seat {seat} playing {play[1]}")
        winner = game.records[-1]["tricks"][i]["winner"] if game.hand_index != hand_index else game.tricks[-1][2]
        if trick.get("winner") != winner:
            raise RecordError(line, key + ".winner", "R12", f"is {trick.get('winner')!r}; seat {winner} won it")


def _check_outcome(record: dict[str, Any], expected: dict[str, Any], rules: Rules, line: int) -> None:
    """R13-R15: the points, the game-count, the score and the game's end as the rules give them."""
    rule_of = {
        "points": "R13",
        "game_count": "R13d",
        "hand_points": "R13",
        "made_bid": "R14",
        "score_after": "R14",
        "game_over": "R15",
        "winner": "R15",
    }
    for key, rule in rule_of.items():
        if record["redeal"] and key in PLAYED_KEYS:
            continue
        if record.get(key) != expected[key]:
            if key == "score_after" and rules.defender_cap is not None:
                rule = "R14/R15v-b"
            if key in ("game_over", "winner") and rules.win_only_on_made_bid:
                rule = "R15v-a"
            raise RecordError(line, key, rule, f"is {record.get(key)!r}; the rules give {expected[key]!r}")


def hand_start(record: dict[str, Any]) -> Game:
    """The game at the start of a (checked) record's hand: its rules, dealer, cards and scores."""
    rules = Rules.from_dict({k: v for k, v in record["rules"].items() if k in Rules.field_names()})
    hands = [[parse_card(c) for c in hand] for hand in record["hands"]]
    kitty = [parse_card(c) for c in record["kitty"]]
    return Game.at_hand(
        rules, record["dealer"], hands, kitty, record["score_before"], record["hand_index"], record["game_id"], rng=0
    )


def hand_actions(record: dict[str, Any]) -> list[int]:
    """The action ids of a (checked) record's hand in the order they were made: bids, trump, discards, cards."""
    actions = [bid_action(bid) for _, bid in record["bids"]]
    if record["redeal"]:
        return actions
    actions.append(TRUMP_BASE + SUITS.index(record["trump"]))
    actions += [DISCARD_BASE + parse_card(card) for card in record["discards"]]
    return actions + [PLAY_BASE + parse_card(card) for trick in record["tricks"] for _, card in trick["plays"]]


def check_records(source: str | os.PathLike[str] | Iterable[dict[str, Any]]) -> int:
    """Check every record of a file (or an iterable of records); returns how many were checked."""
    records = read_records(source) if isinstance(source, (str, os.PathLike)) else list(source)
    last: dict[str, dict[str, Any]] = {}
    for n, record in enumerate(records, 1):
        if not isinstance(record, dict):
            raise RecordError(n, None, None, "a record must be a JSON object")
        game_id = record.get("game_id")
        check_hand(record, n, last.get(game_id) if isinstance(game_id, str) else None)
        last[str(game_id)] = record
    return len(records)


def play_random_games(rules: Rules, games: int, seed: int) -> list[dict[str, Any]]:
    """The records of ``games`` full games between uniformly random legal agents."""
    records: list[dict[str, Any]] = []
    for i in range(games):
        agent_rng = random.Random(f"agents-{seed}-{i}")
        game = Game(rules, game_rng(seed, i), game_id=game_label(seed, i))
        while not game.game_over:
            legal = game.legal_actions()
            game.step(legal[int(agent_rng.random() * len(legal))])
        records.extend(game.records)
    return records
