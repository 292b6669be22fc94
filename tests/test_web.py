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

from agents.web.app import MAX_BODY, create_app

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
    return TestClient(create_app())


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


def test_rule_settings_reach_the_game(client):
    rules = {"kitty_size": 0, "stick_the_dealer": True, "target_score": 5}
    state = client.post("/api/tables", json={"seat": 0, "opponents": "random", "partner": "random", "rules": rules}).json()
    assert {k: state["view"]["rules"][k] for k in rules} == rules
    state, _ = play_out(client, state)
    assert state["game_over"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"action": 999}, 409, "is not legal now; legal:"),
        ({"action": -1}, 409, "is not legal now"),
        ({"action": "JH"}, 409, "an action id, a whole number from 0 to 71"),
        ({"action": 1.5}, 409, "an action id"),
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
        (client.post(f"/api/tables/{table}/action", content=b"x" * (MAX_BODY + 1)), 413, "over"),
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
        ({"seed": -1}, "0 or more"),
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
