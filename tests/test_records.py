"""Hand records: the writer follows docs/records.md and the checker names line, key and rule."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from scenarios import mixed_hand

from smear_apps.records_app import main as records_main
from smear_env import RecordError, Rules, check_records, read_records, write_records
from smear_env.records import play_random_games

GOLDEN = Path(__file__).parent / "golden"
KEYS = [
    "schema", "game_id", "hand_index", "rules", "dealer", "hands", "kitty", "bids", "redeal", "bidder", "bid", "trump",
    "discards", "tricks", "points", "game_count", "hand_points", "made_bid", "score_before", "score_after", "game_over", "winner",
]  # fmt: skip


@pytest.fixture(scope="module")
def records():
    return play_random_games(Rules(), 8, seed=3)


def test_records_follow_the_format(records):
    assert records and all(list(r) == KEYS for r in records)
    assert all(r["schema"] == "smear-hand/1" for r in records)
    assert any(r["redeal"] for r in records)
    for r in records:
        assert set(r["rules"]) >= {
            "kitty_size",
            "stick_the_dealer",
            "high_low_in_play",
            "win_only_on_made_bid",
            "defender_cap",
            "target_score",
        }
        if not r["redeal"]:
            assert len(r["tricks"]) == 6 and all(len(t["plays"]) == 4 for t in r["tricks"])
            assert set(r["points"]) == {"high", "low", "jack", "game"}
    json.dumps(records)  # plain JSON types only


def test_records_check_and_round_trip(records, tmp_path):
    path = tmp_path / "games.jsonl"
    assert write_records(records, path) == len(records)
    assert read_records(path) == records
    assert check_records(path) == len(records)
    assert not list(tmp_path.glob(".*tmp"))  # nothing half-written left behind


def test_scripted_hand_record():
    record = mixed_hand().records[-1]
    assert record["bids"] == [[0, 2], [1, 0], [2, 0], [3, 0]]
    assert record["tricks"][0] == {"leader": 0, "plays": [[0, "AH"], [1, "7H"], [2, "8H"], [3, "JH"]], "winner": 0}
    assert record["score_before"] == [0, 0] and record["score_after"] == [3, 1]
    assert check_records([record]) == 1


def broken(records, mutate):
    bad = copy.deepcopy(records)
    i = next(i for i, r in enumerate(bad) if not r["redeal"])
    mutate(bad[i])
    return bad, i + 1


def swap_second_and_third_play(record):
    plays = record["tricks"][0]["plays"]
    plays[1], plays[2] = plays[2], plays[1]


@pytest.mark.parametrize(
    "mutate, key, rule",
    [
        (lambda r: r.__setitem__("score_after", [r["score_after"][0] + 1, r["score_after"][1]]), "score_after", "R14"),
        (lambda r: r["points"].__setitem__("jack", 9), "points", "R13"),
        (lambda r: r.__setitem__("game_count", [0, 0]), "game_count", "R13d"),
        (lambda r: r.__setitem__("trump", "X"), "trump", "R9"),
        (lambda r: r["tricks"][0].__setitem__("winner", (r["tricks"][0]["winner"] + 1) % 4), "tricks[0].winner", "R12"),
        (swap_second_and_third_play, "tricks[0].plays", "R11"),
        (lambda r: r["hands"][0].__setitem__(0, "6H"), "hands", "R1"),
        (lambda r: r.__setitem__("schema", "smear-hand/2"), "schema", None),
        (lambda r: r.pop("bids"), "bids", None),
        (lambda r: r.__setitem__("made_bid", not r["made_bid"]), "made_bid", "R14"),
    ],
)
def test_checker_names_line_key_and_rule(records, mutate, key, rule):
    bad, line = broken(records, mutate)
    with pytest.raises(RecordError) as err:
        check_records(bad)
    assert err.value.line == line and err.value.key == key and err.value.rule == rule
    assert f"line {line}" in str(err.value)


def test_checker_catches_wrong_dealer_and_scores_across_hands(records):
    bad = copy.deepcopy(records)
    i = next(i for i, r in enumerate(bad) if r["hand_index"] > 0)
    bad[i]["dealer"] = (bad[i]["dealer"] + 2) % 4
    with pytest.raises(RecordError, match="rule R3"):
        check_records(bad)
    bad = copy.deepcopy(records)
    bad[i]["score_before"] = [99, 0]
    with pytest.raises(RecordError, match="key 'score_before', rule R14"):
        check_records(bad)


def test_checker_catches_illegal_discard_of_trump():
    record = mixed_hand(rules=Rules(kitty_size=0)).records[-1]
    bad = copy.deepcopy(record)
    bad["discards"] = ["AS"]  # kitty_size 0: no discards at all
    with pytest.raises(RecordError, match="key 'discards'"):
        check_records([bad])


def test_checker_reports_bad_json_line(tmp_path, records):
    path = tmp_path / "bad.jsonl"
    write_records(records[:3], path)
    with open(path, "a") as f:
        f.write("{not json\n")
    with pytest.raises(RecordError, match="line 4: not valid JSON"):
        check_records(path)


def test_golden_playthroughs():
    """The full records of fixed seeds must not change (regenerate with tests/golden/make_golden.py)."""
    for path in sorted(GOLDEN.glob("seed*.jsonl")):
        seed = int(path.stem.removeprefix("seed"))
        expected = read_records(path)
        assert play_random_games(Rules(), 1, seed) == expected, path.name
        assert check_records(path) == len(expected)


def test_cli_writes_and_checks(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert records_main(["--games", "3", "--seed", "2", "--out", str(out), "--kitty-size", "1", "--stick-the-dealer"]) == 0
    assert records_main(["--check", str(out)]) == 0
    assert "records OK" in capsys.readouterr().out
    lines = out.read_text().splitlines()
    record = json.loads(lines[-1])
    assert record["rules"]["kitty_size"] == 1 and record["rules"]["stick_the_dealer"] is True
    record["score_after"] = [100, 100]
    lines[-1] = json.dumps(record)
    out.write_text("\n".join(lines) + "\n")
    assert records_main(["--check", str(out)]) == 1
    assert f"line {len(lines)}" in capsys.readouterr().err


def test_cli_rejects_bad_settings(capsys):
    with pytest.raises(SystemExit):
        records_main(["--kitty-size", "5"])
    assert "kitty_size=5: allowed values are 0 to 3" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        records_main(["--defender-cap", "0"])
    assert "defender_cap" in capsys.readouterr().err


def test_cli_vector_engine_records_pass_the_checker(tmp_path):
    out = tmp_path / "v.jsonl"
    assert records_main(["--engine", "vector", "--games", "6", "--seed", "4", "--out", str(out), "--kitty-size", "2"]) == 0
    records = read_records(out)
    assert {r["game_id"] for r in records} == {f"4-{i}-0" for i in range(6)}
    assert check_records(out) == len(records)
