"""``smear-web``'s API: a whole game through it with nothing hidden ever sent, and every bad request
refused with a 4xx and a message, the game unchanged (the browser itself: tests/test_web_browser.py)."""

from __future__ import annotations

import json
import re
import warnings

import pytest

from smear_env import check_records

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note about httpx versions
    from starlette.testclient import TestClient

from smear_apps.web.app import MAX_BODY, Settings, create_app

LOCAL = "http://127.0.0.1:8000"
"""What a browser on this machine sends as the server's address (the TestClient's own, testserver, is refused)."""
CARD = re.compile(r"(?<![A-Za-z0-9])[789TJQKA][CDHS](?![A-Za-z0-9])")


def known_cards(state: dict) -> set[str]:
    """What the seat may know in ``state``: its hand, its own pick-up and discards, every card played."""
    view = state["view"]
    known = set(view["hand"]) | set(view["picked_up"] or ()) | set(view["discards"] or ())
    known |= {card for trick in view["tricks"] for _, card in trick["plays"]} | {card for _, card in view["trick"]}
    return known


def leaked(state: dict, seen: set[str]) -> set[str]:
    """Cards named in the response that the seat cannot know. At a hand's summary the finished hand is
    face up (its record, and the log of its moves); the next hand's view shows only the seat's own."""
    record = state["summary"]
    face_up = set(CARD.findall(json.dumps(record))) if record else set()
    return set(CARD.findall(json.dumps(dict(state, summary=None)))) - known_cards(state) - seen - face_up


def play_out(client: TestClient, state: dict, pick=lambda legal: legal[-1]) -> tuple[dict, int]:
    """Play the person's seat to the end; every response is checked for hidden cards."""
    table, moves, seen = state["table"], 0, set()  # seen: cards of this hand played or held earlier
    while not state["game_over"]:
        assert not leaked(state, seen), (leaked(state, seen), state["log"][-5:])
        seen |= known_cards(state)
        if state["summary"]:
            record = state["summary"]
            assert record["schema"] == "smear-hand/1" and len(record["hands"]) == 4  # the whole hand, face up
            response = client.post(f"/api/tables/{table}/continue")
            seen = set()
        else:
            legal = [a["id"] for a in state["view"]["legal_actions"]]
            assert legal, "the person's seat has nothing to do"
            response = client.post(f"/api/tables/{table}/action", json={"action": pick(legal)})
            moves += 1
        assert response.status_code == 200, response.text
        state = response.json()
    return state, moves


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(), base_url=LOCAL)


def test_a_whole_game_through_the_api_sends_nothing_hidden(client, tmp_path):
    created = client.post("/api/tables", json={"seat": 1, "partner": "heuristic", "opponents": "random", "seed": 5})
    assert created.status_code == 201, created.text
    state, moves = play_out(client, created.json())
    assert moves > 10 and state["winner"] in (0, 1) and max(state["final_scores"]) >= 15 or state["view"]["hand_index"] >= 49
    download = client.get(f"/api/tables/{state['table']}/records")
    assert download.status_code == 200 and "attachment" in download.headers["content-disposition"]
    path = tmp_path / "game.jsonl"
    path.write_text(download.text)
    assert check_records(path) == state["hands_played"] > 0
    assert client.delete(f"/api/tables/{state['table']}").status_code == 204
    assert client.get(f"/api/tables/{state['table']}").status_code == 404


@pytest.mark.parametrize(("max_hands", "kitty_size", "seed"), [(1, 0, 7), (1, 2, 5), (2, 0, 7), (2, 2, 4)])
def test_r16_ismcts_tables_finish_short_games(client, max_hands, kitty_size, seed):
    """IS-MCTS at every other seat of games cut short by R16: each table starts and plays to the end (these
    settings and seeds once failed to start or stopped mid-game, the person reading "StopIteration: ")."""
    rules = {"max_hands": max_hands, "kitty_size": kitty_size}
    spec = "ismcts:simulations=4"
    start = client.post("/api/tables", json={"partner": spec, "opponents": spec, "rules": rules, "seed": seed})
    assert start.status_code == 201, start.text
    state, _ = play_out(client, start.json(), pick=lambda legal: legal[0])
    assert state["failed"] is None and state["hands_played"] <= max_hands


def test_the_log_names_the_seats_as_a_player_at_the_table_does(client):
    """No seat numbers in what the person reads of the moves: "you", "your partner", "your left-hand opponent"
    (who plays after you) and "your right-hand opponent"."""
    state = client.post("/api/tables", json={"seat": 1, "seed": 8}).json()
    state, _ = play_out(client, state, pick=lambda legal: legal[0])
    lines = state["log"]
    assert lines and not [line for line in lines if re.search(r"\b[Ss]eat \d", line)], lines
    assert re.match(r"Hand \d+: (you deal|your (partner|left-hand opponent|right-hand opponent) deals)\.$", lines[0])
    assert "card(s)" not in " ".join(lines)


def test_rule_settings_reach_the_game(client):
    rules = {"kitty_size": 0, "stick_the_dealer": True, "target_score": 5}
    state = client.post("/api/tables", json={"seat": 0, "opponents": "random", "partner": "random", "rules": rules}).json()
    assert {k: state["view"]["rules"][k] for k in rules} == rules
    state, _ = play_out(client, state)
    assert state["game_over"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"action": 999}, 400, "an action id, a whole number from 0 to 71"),
        ({"action": -1}, 400, "an action id"),
        ({"action": "JH"}, 400, "an action id, a whole number from 0 to 71"),
        ({"action": 1.5}, 400, "an action id"),
        ({"action": None}, 400, "an action id"),
        ({"move": 3}, 400, '{"action": ID}'),
        ([3], 400, "a JSON object"),
    ],
)
def test_bad_actions_are_refused_and_the_game_is_unchanged(client, body, status, message):
    state = client.post("/api/tables", json={"seed": 2}).json()
    table = state["table"]
    response = client.post(f"/api/tables/{table}/action", json=body)
    assert response.status_code == status and message in response.json()["error"], response.text
    assert client.get(f"/api/tables/{table}").json() == state


def test_malformed_requests_wrong_tables_and_methods_get_4xx(client):
    state = client.post("/api/tables", json={"seed": 3}).json()
    table = state["table"]
    illegal = next(a for a in range(72) if a not in [x["id"] for x in state["view"]["legal_actions"]])
    cases = [
        (
            client.post(f"/api/tables/{table}/action", content=b"{not json", headers={"content-type": "application/json"}),
            400,
            "not JSON",
        ),
        (
            client.post(
                f"/api/tables/{table}/action", content=b"x" * (MAX_BODY + 1), headers={"content-type": "application/json"}
            ),
            413,
            "over",
        ),
        (client.post("/api/tables/not-a-table/action", json={"action": 0}), 404, "no such table"),
        (client.post(f"/api/tables/{table}x/action", json={"action": 0}), 404, "no such table"),
        (client.put(f"/api/tables/{table}"), 405, "Method Not Allowed"),
        (client.get(f"/api/tables/{table}/action"), 405, "Method Not Allowed"),
        (client.post(f"/api/tables/{table}/continue"), 409, "no hand summary"),
        (client.post(f"/api/tables/{table}/action", json={"action": illegal}), 409, "not legal now"),
    ]
    for response, status, message in cases:
        assert response.status_code == status and message in response.json()["error"], response.text
    assert client.get(f"/api/tables/{table}").json() == state


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"partner": "nosuch"}, "not a built-in agent"),
        ({"opponents": "pimc:samples=many"}, "samples"),
        ({"partner": ""}, "an agent spec"),
        ({"seat": 4}, "one of 0, 1, 2, 3"),
        ({"seat": "0"}, "one of 0, 1, 2, 3"),
        ({"seat": True}, "one of 0, 1, 2, 3"),
        ({"seed": -1}, "a whole number from 0 to 2**64 - 1"),
        ({"seed": 2**64}, "a whole number from 0 to 2**64 - 1"),
        ({"rules": {"kitty_size": 7}}, "kitty_size"),
        ({"rules": {"jokers": True}}, "jokers"),
        ({"rules": [3]}, "an object of rule settings"),
        ({"colour": "red"}, "unknown field"),
    ],
)
def test_bad_specs_and_rule_settings_are_refused(client, body, message):
    response = client.post("/api/tables", json=body)
    assert response.status_code == 400 and message in response.json()["error"], response.text


def test_tables_are_apart(client):
    """Each table has its own unguessable id; moves at one never touch another."""
    a = client.post("/api/tables", json={"seed": 4}).json()
    b = client.post("/api/tables", json={"seed": 4}).json()
    assert a["table"] != b["table"] and len(a["table"]) >= 24
    move = a["view"]["legal_actions"][0]["id"]
    assert client.post(f"/api/tables/{a['table']}/action", json={"action": move}).status_code == 200
    assert client.get(f"/api/tables/{b['table']}").json() == b


@pytest.fixture(scope="module")
def match_folder(tmp_path_factory):
    """A records folder as ``smear-eval --json m.json --records m.jsonl`` leaves it, and a file beside it outside."""
    from serving import write_match

    from smear_env import write_records

    root = tmp_path_factory.mktemp("records")
    match = write_match(root, games=4, seed=1)
    (root / "sub").mkdir()
    write_records(match.records()[:3], root / "sub" / "few.jsonl")
    lines = (root / "m.jsonl").read_text().splitlines()
    broken = json.loads(lines[2])
    broken["tricks"][0]["winner"] = (broken["tricks"][0]["winner"] + 1) % 4
    (root / "broken.jsonl").write_text("\n".join([lines[0], lines[1], json.dumps(broken)]) + "\n")
    outside = tmp_path_factory.mktemp("outside") / "secret.jsonl"
    outside.write_text(lines[0] + "\n")
    (root / "link.jsonl").symlink_to(outside)
    return root, match


@pytest.fixture
def replay_client(match_folder) -> TestClient:
    return TestClient(create_app(Settings(records=match_folder[0])), base_url=LOCAL)


def test_the_records_folder_lists_and_serves_its_files_only(replay_client, match_folder):
    root, match = match_folder
    names = [f["name"] for f in replay_client.get("/api/records").json()["files"]]
    assert names == ["broken.jsonl", "m.json", "m.jsonl", "sub/few.jsonl"]  # the symlink out is not listed
    got = replay_client.get("/api/records/file", params={"name": "m.jsonl"}).json()
    assert got["records"] == json.loads(json.dumps(match.records())) and len(got["records"]) == sum(
        d.hands for d in match.deal_sets
    )
    assert len(replay_client.get("/api/records/file", params={"name": "sub/few.jsonl"}).json()["records"]) == 3


@pytest.mark.parametrize(
    ("name", "status", "message"),
    [
        ("../outside/secret.jsonl", 400, "without '..'"),
        ("sub/../../x.jsonl", 400, "without '..'"),
        ("/etc/passwd", 400, "not absolute"),
        ("link.jsonl", 403, "leads out of the records folder"),
        ("nothing.jsonl", 404, "no such file"),
        ("sub", 400, "not a records"),
        ("broken.jsonl", 422, "line 3"),
    ],
)
def test_paths_out_of_the_folder_and_bad_files_are_refused(replay_client, name, status, message):
    response = replay_client.get("/api/records/file", params={"name": name})
    assert response.status_code == status and message in response.json()["error"], response.text


def test_a_bad_record_names_its_line_key_and_rule(replay_client):
    error = replay_client.get("/api/records/file", params={"name": "broken.jsonl"}).json()["error"]
    assert "line 3" in error and "tricks[0].winner" in error and "R12" in error


def test_uploads_are_checked_and_a_huge_one_is_refused(replay_client, match_folder, monkeypatch):
    import smear_apps.web.app as app_module

    root, _ = match_folder
    text = (root / "sub" / "few.jsonl").read_text()
    assert len(replay_client.post("/api/records/upload?name=few.jsonl", content=text).json()["records"]) == 3
    response = replay_client.post("/api/records/upload", content="{not json\n")
    assert response.status_code == 422 and "line 1: not JSON" in response.json()["error"]
    response = replay_client.post("/api/records/upload", content=b"\xff\xfe")
    assert response.status_code == 422 and "UTF-8" in response.json()["error"]
    monkeypatch.setattr(app_module, "MAX_UPLOAD", 1000)
    small = TestClient(app_module.create_app(Settings(records=root)), base_url=LOCAL)
    response = small.post("/api/records/upload", content=text)
    assert response.status_code == 413 and "over the limit" in response.json()["error"]


def test_a_match_page_has_its_summary_and_the_deal_sets_that_swung_most(replay_client, match_folder):
    _, match = match_folder
    got = replay_client.get("/api/match", params={"json": "m.json", "records": "m.jsonl"}).json()
    assert got["summary"]["win_rate"] == match.summary()["win_rate"] and got["summary"]["smear_rl_version"]
    swings = got["swings"]
    assert swings and [abs(s["swing"]) for s in swings] == sorted((abs(s["swing"]) for s in swings), reverse=True)
    for swing in swings:  # recomputed from the two records: A's margin in each, summed
        total = 0
        for index in swing["records"]:
            record = got["records"][index]
            team = record["agents"].index("A") & 1
            change = [a - b for b, a in zip(record["score_before"], record["score_after"], strict=True)]
            total += change[team] - change[1 - team]
        assert total == swing["swing"]
        a, b = (got["records"][i] for i in swing["records"])
        assert a["hands"] == [b["hands"][s] for s in range(4)] and a["game_id"][:-2] == b["game_id"][:-2]
    bad = replay_client.get("/api/match", params={"json": "m.jsonl", "records": "m.jsonl"})
    assert bad.status_code == 422


def test_explain_gives_the_networks_values_of_every_decision(replay_client, match_folder):
    import numpy as np

    from agents import load_agent
    from smear_env import observe
    from smear_env.records import hand_actions, hand_start

    _, match = match_folder
    record = next(r for r in match.records() if not r["redeal"])
    got = replay_client.post("/api/explain", json={"record": record, "agent": "neural"}).json()["decisions"]
    agent, game, decisions = load_agent("neural"), hand_start(record), {}
    for step, action in enumerate(hand_actions(record)):
        if len(game.legal_actions()) > 1:
            decisions[step] = agent.values(observe(game, game.to_act)[None])[0]
        game.step(action)
    assert [d["step"] for d in got] == sorted(decisions)
    for d in got:
        from smear_env import parse_action

        assert {parse_action(n): v for n, v in d["values"].items()} == pytest.approx(
            {a: float(decisions[d["step"]][a]) for a in map(parse_action, d["values"])}, abs=1e-3
        )
        assert np.isfinite(list(d["values"].values())).all()
    for body, message in (
        ({"record": record, "agent": "heuristic"}, "cannot value its choices"),
        ({"record": record, "agent": "nosuch"}, "not a built-in agent"),
        ({"agent": "neural"}, '{"record"'),
    ):
        response = replay_client.post("/api/explain", json=body)
        assert response.status_code == 400 and message in response.json()["error"], response.text
    response = replay_client.post("/api/explain", json={"record": {"schema": "x"}, "agent": "neural"})
    assert response.status_code == 422 and "not a hand record this server can replay" in response.json()["error"]


def test_without_a_records_folder_only_uploads_are_read(client):
    assert client.get("/api/records").json() == {"folder": None, "files": []}
    response = client.get("/api/records/file", params={"name": "m.jsonl"})
    assert response.status_code == 404 and "no records folder" in response.json()["error"]


def test_twenty_tables_at_once_on_loopback_play_to_the_end(tmp_path):
    """The load test, bounded: 20 scripted clients against heuristic x3 at once, each game to its end, no error
    (the response times are benchmarks/bench_web.py's to report, not asserted here)."""
    import importlib.util
    from pathlib import Path

    from serving import serving

    spec = importlib.util.spec_from_file_location("bench_web", Path(__file__).parent.parent / "benchmarks" / "bench_web.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    with serving(create_app()) as url:
        timings, errors, games = bench.play_tables(url, tables=20, seed=100)
    assert not errors, errors[:5]
    assert all(game["state"]["game_over"] for game in games) and len(timings) > 20 * 10
    for i, game in enumerate(games):
        path = tmp_path / f"{i}.jsonl"
        path.write_text(game["records"])
        assert check_records(path) == game["state"]["hands_played"]
