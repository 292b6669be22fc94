"""``smear-web`` against an attacker: each test makes one attack of docs/web.md's "What a request cannot do"
and asserts both the refusal and that the server ran, read, stored or grew nothing it should not."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import threading
import time
import warnings
from pathlib import Path

import httpx
import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note about httpx versions
    from starlette.testclient import TestClient

from smear_apps.web.app import MAX_BODY, Settings, create_app, main
from smear_apps.web.policy import Limits
from smear_apps.web.tables import Table, Tables, TablesFullError
from smear_env import Rules

LOCAL = "http://127.0.0.1:8000"
WEIGHTS = Path(__file__).parent.parent / "smear_nets" / "weights"
EVIL = """
from pathlib import Path
Path({marker!r}).write_text("ran")
from agents import Agent
class X(Agent):
    def act(self, observation, action_mask, view):
        return int(action_mask.nonzero()[0][0])
"""


def client_of(settings: Settings | None = None, tables: Tables | None = None) -> TestClient:
    return TestClient(create_app(settings, tables), base_url=LOCAL)


@pytest.fixture
def evil(tmp_path, monkeypatch):
    """An agent's file and an importable module of the same code, each leaving a marker file when it runs."""
    marker = tmp_path / "ran.txt"
    (tmp_path / "evil.py").write_text(EVIL.format(marker=str(marker)))
    (tmp_path / "evil_module_smear_test.py").write_text(EVIL.format(marker=str(marker)))
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path, marker


# ---------------------------------------------------------------------- 1. no code from a request


@pytest.mark.parametrize("spec", ["{dir}/evil.py:X", "evil_module_smear_test:X", "evil_module_smear_test:X,a=1", "this:X"])
def test_a_request_cannot_run_a_file_or_import_a_module(evil, spec):
    folder, marker = evil
    tables = Tables()
    client = client_of(tables=tables)
    record = _record()
    before = set(sys.modules)
    for role in ("partner", "opponents"):
        response = client.post("/api/tables", json={role: spec.format(dir=folder)})
        assert response.status_code == 400, response.text
        assert "only its built-in agents" in response.json()["error"] and "smear-web --agent" in response.json()["error"]
    response = client.post("/api/explain", json={"record": record, "agent": spec.format(dir=folder)})
    assert response.status_code == 400 and "only its built-in agents" in response.json()["error"]
    assert not marker.exists(), "the request's code ran in the server"
    assert set(sys.modules) - before == set(), "the request imported a module"
    assert len(tables) == 0


def test_the_owner_allows_a_spec_by_name_and_only_that_spec(evil):
    folder, marker = evil
    spec = f"{folder}/evil.py:X"
    client = client_of(Settings(agents=(spec,)))
    assert spec in [a["id"] for a in client.get("/api/agents").json()["agents"]]
    assert client.post("/api/tables", json={"opponents": spec, "seed": 1}).status_code == 201
    assert marker.read_text() == "ran"  # the owner's own agent, which the owner named
    marker.unlink()
    response = client.post("/api/tables", json={"opponents": "evil_module_smear_test:X"})
    assert response.status_code == 400 and not marker.exists()


@pytest.fixture
def checkpoints(tmp_path):
    """A checkpoint folder of the owner's (a run folder and a file), and files and links beside it."""
    folder = tmp_path / "checkpoints"
    (folder / "run").mkdir(parents=True)
    shutil.copy(WEIGHTS / "dmc.pt", folder / "mine.pt")
    shutil.copy(WEIGHTS / "dmc.pt", folder / "run" / "checkpoint.pt")
    (folder / "broken.pt").write_bytes(b"not a checkpoint")
    outside = tmp_path / "outside.pt"
    shutil.copy(WEIGHTS / "dmc.pt", outside)
    (folder / "link.pt").symlink_to(outside)
    return folder, outside


def test_checkpoints_only_from_the_owners_folders_and_the_refusal_names_no_path(checkpoints):
    folder, outside = checkpoints
    client = client_of(Settings(checkpoints=(folder,)))
    for spec in ("neural:mine.pt", "neural:run", "neural:mine.pt+dmc", "search:net=mine.pt,seconds=0.01,samples=2"):
        response = client.post("/api/tables", json={"opponents": spec, "seed": 3})
        assert response.status_code == 201, response.text
        assert response.json()["agents"]["1"] == spec  # shown as the request named it
    refusals = {}
    for name in (str(outside), "../outside.pt", "link.pt", "nothing.pt", "/etc/passwd", "/etc/shadow", "run/../../outside.pt"):
        for spec in (f"neural:{name}", f"search:beliefs={name}", f"search:chances={name}", f"search:net={name}"):
            response = client.post("/api/tables", json={"opponents": spec})
            assert response.status_code == 400, (spec, response.text)
            message = response.json()["error"].replace(name, "NAME")  # the request's own words aside
            assert "is not offered by this server" in message and str(folder) not in message and str(outside) not in message
            refusals[spec] = message
    # Missing, unreadable, outside, a link out: one and the same answer for each option.
    assert len({m for s, m in refusals.items() if s.startswith("neural:")}) == 1
    assert len({m for s, m in refusals.items() if s.startswith("search:beliefs")}) == 1
    for spec in ("neural:broken.pt", "neural:suits=0", "neural:mine.pt,suits=99", "neural:dmc,suits=0"):
        response = client.post("/api/tables", json={"opponents": spec})
        assert response.status_code == 400
        message = response.json()["error"]
        assert "/" not in message.replace("neural:", ""), message  # no path of the server's, not even the install's
    bare = client_of()  # no folder named: no file at all
    response = bare.post("/api/tables", json={"opponents": "neural:mine.pt"})
    assert response.status_code == 400 and "named no checkpoint folder" in response.json()["error"]


def test_requests_from_another_site_or_another_host_name_are_refused():
    tables = Tables()
    client = client_of(tables=tables)
    body = json.dumps({"seed": 1})
    attacks = [
        ({"origin": "http://evil.example", "content-type": "application/json"}, 403),
        ({"origin": "null", "content-type": "application/json"}, 403),
        ({"origin": "http://127.0.0.1:8001", "content-type": "application/json"}, 403),  # another port is another site
        ({"sec-fetch-site": "cross-site", "content-type": "application/json"}, 403),
        ({"sec-fetch-site": "same-site", "content-type": "application/json"}, 403),
        ({"content-type": "text/plain"}, 415),  # what a page elsewhere can send without asking (no-cors)
        ({"content-type": "application/x-www-form-urlencoded"}, 415),
        ({}, 415),
    ]
    for headers, status in attacks:
        response = client.post("/api/tables", content=body, headers=headers)
        assert response.status_code == status, (headers, response.text)
        assert response.headers["content-type"] == "application/json" and response.json()["error"]
    rebound = TestClient(create_app(tables=tables), base_url="http://evil.example:8000")  # DNS rebinding
    for response in (rebound.post("/api/tables", json={"seed": 1}), rebound.get("/api/agents"), rebound.get("/")):
        assert response.status_code == 421 and "does not answer to the host" in response.json()["error"]
    assert len(tables) == 0
    same = client.post("/api/tables", content=body, headers={"origin": LOCAL, "content-type": "application/json; charset=utf-8"})
    assert same.status_code == 201 and len(tables) == 1
    state = same.json()
    move = state["view"]["legal_actions"][0]["id"]
    for method, path in (("POST", "/continue"), ("DELETE", ""), ("POST", "/action")):
        response = client.request(
            method, f"/api/tables/{state['table']}{path}", json={"action": move}, headers={"origin": "http://evil.example"}
        )
        assert response.status_code == 403
    assert client.get(f"/api/tables/{state['table']}").json() == state  # unchanged, still there


def test_listening_on_every_address_needs_the_names_clients_use(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--host", "0.0.0.0"])
    assert exit_info.value.code == 2 and "--allowed-host" in capsys.readouterr().err
    exposed = client_of(Settings(hosts=("mylaptop.lan",)))
    exposed.base_url = httpx.URL("http://mylaptop.lan:8000")
    assert exposed.get("/api/agents").status_code == 200
    exposed.base_url = httpx.URL("http://127.0.0.2:8000")
    assert exposed.get("/api/agents").status_code == 421


def test_every_answer_forbids_framing_sniffing_and_inline_script():
    client = client_of()
    for response in (client.get("/"), client.get("/replay"), client.get("/api/agents"), client.get("/static/table.js")):
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
        assert response.headers["x-content-type-options"] == "nosniff"
    static = Path(__file__).parent.parent / "smear_apps" / "web" / "static"
    for page in static.glob("*.html"):
        html = page.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)|\son[a-z]+\s*=", html), page  # no inline script, no handler attributes


# ---------------------------------------------------------------------- 2. caps on what a request spends


@pytest.mark.parametrize(
    ("spec", "option"),
    [
        ("pimc:samples=50000", "samples"),
        ("pimc:seconds=3000", "seconds"),
        ("search:seconds=3000", "seconds"),
        ("search:rollouts=100000", "rollouts"),
        ("search:play_rollouts=100000,mix=1", "play_rollouts"),
        ("search:rollouts=2,infer=1,draws=60", "draws"),
        ("neural:dmc+dmc+dmc+dmc+dmc+dmc+dmc+dmc+dmc", "networks"),
    ],
)
def test_options_over_the_owners_caps_are_refused_before_anything_is_built(spec, option):
    tables = Tables()
    client = client_of(tables=tables)
    response = client.post("/api/tables", json={"opponents": spec})
    assert response.status_code == 400 and option in response.json()["error"] and "limit" in response.json()["error"]
    assert len(tables) == 0
    raised = client_of(Settings(limits=Limits(seconds=5.0, samples=2000)))
    if option in ("samples",):
        assert raised.post("/api/tables", json={"opponents": "pimc:samples=1000,seconds=0.01"}).status_code == 201


GATE = """
import threading
from agents import Agent
entered = threading.Event()
release = threading.Event()
class Gate(Agent):
    def act(self, observation, action_mask, view):
        entered.set()
        assert release.wait(60)
        return int(action_mask.nonzero()[0][-1])
"""


def test_an_agent_that_thinks_stalls_no_other_request(tmp_path, monkeypatch):
    """While one table's agent thinks (held on a gate), the other tables and that table's own GET answer at once,
    and the pool is bounded: a second thinking request waits for the worker, it does not take another thread."""
    from serving import serving

    (tmp_path / "gate_agent_smear_test.py").write_text(GATE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import gate_agent_smear_test as gate

    settings = Settings(agents=("gate_agent_smear_test:Gate",), workers=1)
    with serving(create_app(settings)) as url, httpx.Client(base_url=url, timeout=30) as client:
        other = client.post("/api/tables", json={"seed": 7, "seat": 0}).json()
        gate.release.set()
        held = client.post("/api/tables", json={"seed": 8, "seat": 0, "opponents": "gate_agent_smear_test:Gate"}).json()
        gate.release.clear()
        gate.entered.clear()
        legal = [a["id"] for a in held["view"]["legal_actions"]]
        answer: list[httpx.Response] = []
        mover = threading.Thread(
            target=lambda: answer.append(client.post(f"/api/tables/{held['table']}/action", json={"action": legal[0]}))
        )
        mover.start()
        assert gate.entered.wait(30), "the gated agent never got to think"
        with httpx.Client(base_url=url, timeout=5) as quick:  # would time out if the loop waited for the agent
            assert quick.get(f"/api/tables/{other['table']}").json() == other
            assert quick.get(f"/api/tables/{held['table']}").json() == held  # the state before the move: no waiting
            assert quick.get("/api/agents").status_code == 200
            busy = quick.post(f"/api/tables/{held['table']}/action", json={"action": legal[0]})
            assert busy.status_code == 409 and "still playing the last move" in busy.json()["error"]
        gate.release.set()
        mover.join(30)
        assert answer and answer[0].status_code == 200


# ---------------------------------------------------------------------- 3. nobody evicts a game in play


def _table(client: str, seed: int = 0) -> Table:
    return Table(0, "random", "random", Rules(), seed, client=client)


def test_one_client_cannot_wipe_out_the_games_in_play():
    tables = Tables(limit=6, per_client=3)
    mine = tables.add(_table("10.0.0.1"))
    mine_before = mine.shown
    for i in range(300):  # a flood from one client: its own limit, then refusals
        try:
            tables.add(_table("10.0.0.66", i))
        except TablesFullError as e:
            assert e.status == 429 and "limit for one client" in str(e)
    assert tables.get(mine.id).shown == mine_before and len(tables) == 4
    for n in range(2):
        tables.add(_table(f"10.0.0.{20 + n}"))
    with pytest.raises(TablesFullError) as full:  # all six in play: the server says it is full, and drops nothing
        tables.add(_table("10.0.0.99"))
    assert full.value.status == 503 and "the server is full" in str(full.value)
    assert tables.get(mine.id) is mine and len(tables) == 6


def test_finished_and_long_idle_tables_make_room_oldest_idle_first(monkeypatch):
    import smear_apps.web.tables as tables_module

    clock = [1000.0]
    monkeypatch.setattr(tables_module.time, "monotonic", lambda: clock[0])
    tables = Tables(limit=3, per_client=3)
    old, idle, busy = (tables.add(_table(f"10.0.1.{n}")) for n in range(3))
    clock[0] += tables_module.EVICTABLE_SECONDS + 1
    tables.get(busy.id)  # touched now: in play
    newer = tables.add(_table("10.0.1.9"))  # takes the room of the longest idle
    with pytest.raises(KeyError):
        tables.get(old.id)
    assert tables.get(idle.id) is idle and tables.get(busy.id) is busy and tables.get(newer.id) is newer
    from smear_env import Phase

    idle.game.phase = Phase.GAME_OVER  # a finished game makes room at once (touched just now)
    tables.add(_table("10.0.1.10"))
    with pytest.raises(KeyError):
        tables.get(idle.id)


def test_a_full_server_says_so_in_the_answer():
    client = client_of(Settings(tables_per_client=2))
    assert [client.post("/api/tables", json={"seed": s}).status_code for s in range(2)] == [201, 201]
    response = client.post("/api/tables", json={"seed": 3})
    assert response.status_code == 429 and "finish or abandon one" in response.json()["error"]


# ---------------------------------------------------------------------- 4. bodies cut off while they stream


@pytest.mark.parametrize("path", ["/api/tables", "/api/explain", "/api/records/upload"])
def test_a_chunked_body_is_cut_off_at_the_limit_not_read_whole(path):
    """Up to 256 MiB offered in 64 KiB chunks with no Content-Length: the server answers 413 when the body
    passes its limit, while the client is still sending (it stops at the answer), and keeps serving."""
    import select
    import socket

    from serving import serving

    limit = 32 * 2**20 if path.endswith("upload") else MAX_BODY * 4
    piece = b"10000\r\n" + b"[" * 65536 + b"\r\n"  # one chunk of 64 KiB
    with serving(create_app()) as url:
        host, port = url.removeprefix("http://").split(":")
        sent, answer = 0, b""
        with socket.create_connection((host, int(port)), timeout=30) as raw:
            raw.sendall(
                f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\n\r\n".encode()
            )
            while sent < 256 * 2**20 and not select.select([raw], [], [], 0)[0]:
                try:
                    raw.sendall(piece)
                except OSError:
                    break  # the server closed the connection: it reads no more
                sent += 65536
            raw.settimeout(10)
            while b"}" not in answer:  # the headers, then the JSON body
                got = raw.recv(65536)
                if not got:
                    break
                answer += got
        assert answer.startswith(b"HTTP/1.1 413") and b"over the limit" in answer, answer[:300]
        assert sent <= limit + 16 * 2**20, f"the client got to send {sent / 2**20:.0f} MiB before the answer"
        assert httpx.get(f"{url}/api/agents").status_code == 200  # and it still serves


# ---------------------------------------------------------------------- 5. a clear 4xx, never a 500


def _record() -> dict:
    from agents.arena import run_match

    return next(r for r in run_match("heuristic", "random", games=2, seed=1, keep_records=True).records() if not r["redeal"])


@pytest.mark.parametrize(
    ("path", "body", "status", "message"),
    [
        ("/api/tables", b"[" * 20000 + b"]" * 20000, 400, "nested too deeply"),
        ("/api/tables", b'{"seed": ' + b"9" * 5000 + b"}", 400, "digits"),
        ("/api/tables", b'{"seed": 1e400}', 400, "a whole number"),
        ("/api/tables", b'{"seed": 18446744073709551616}', 400, "2**64 - 1"),
        ("/api/tables", b'{"seed": NaN}', 400, "a whole number"),
        ("/api/tables", b'{"partner": ["neural"]}', 400, "an agent spec"),
        ("/api/tables", b'{"rules": {"target_score": "15"}}', 400, "target_score"),
        ("/api/explain", b'{"a":' * 30000, 400, "nested too deeply"),
        ("/api/records/upload", b'{"a":' * 12000 + b"\n", 422, "nested too deeply"),
        ("/api/records/upload", b'{"a":' * 30000 + b"\n", 422, "over the 65,536 of any hand record"),
    ],
)
def test_hostile_bodies_get_a_4xx_json_error(path, body, status, message):
    response = client_of().post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code == status and message in response.json()["error"], response.text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rules": None}, "key 'rules'"),
        ({"dealer": 9}, "key 'dealer'"),
        ({"hands": "x"}, "key 'hands'"),
        ({"bids": 5}, "key 'bids'"),
        ({"score_before": []}, "key 'score_before', rule R14"),
        ({"score_before": [None, None]}, "key 'score_before', rule R14"),
        ({"score_before": ["0", "0"]}, "key 'score_before', rule R14"),
        ({"score_before": [0, 0, 0]}, "key 'score_before', rule R14"),
        ({"score_before": [False, False]}, "key 'score_before', rule R14"),
        ({"score_before": [10**40, 0]}, "key 'score_before', rule R14"),
        ({"hand_index": -1}, "key 'hand_index'"),
    ],
)
def test_a_broken_record_to_explain_is_refused_by_name(change, message):
    response = client_of().post("/api/explain", json={"record": _record() | change, "agent": "neural"})
    assert response.status_code == 422 and message in response.json()["error"], response.text


@pytest.mark.parametrize("score_before", [[], [None, None], ["a", "b"], [1], [True, False], [0.0, 0]])
def test_a_record_is_checked_one_way_wherever_it_enters(score_before, tmp_path):
    """The same broken first hand of a game: refused by /api/explain (once a 500), by an upload and by
    smear-records --check, each naming its key and rule."""
    from smear_env import RecordError, check_records

    record = next(r for r in run_record_game() if r["hand_index"] == 0) | {"score_before": score_before}
    client = client_of()
    explained = client.post("/api/explain", json={"record": record, "agent": "heuristic"})
    uploaded = client.post("/api/records/upload", content=json.dumps(record).encode() + b"\n")
    assert (explained.status_code, uploaded.status_code) == (422, 422), (explained.text, uploaded.text)
    (tmp_path / "r.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(RecordError) as checked:
        check_records(tmp_path / "r.jsonl")
    for refusal in (explained.json()["error"], uploaded.json()["error"], str(checked.value)):
        assert "key 'score_before'" in refusal and ("R14" in refusal), refusal


def run_record_game() -> list[dict]:
    from agents.arena import run_match

    return run_match("heuristic", "random", games=2, seed=1, keep_records=True).records()


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"opponents": "pimc:samples=nan"}, "samples", "a whole number"),
        ({"opponents": "pimc:samples=1e3"}, "samples", "a whole number"),
        ({"opponents": "pimc:samples=" + "9" * 5000}, "samples", "5,000 characters"),
        ({"opponents": "pimc:seconds=inf"}, "seconds", "a number above 0 and at most 3,600"),
        ({"opponents": "ismcts:simulations=1e3"}, "simulations", "a whole number from 1 to 100,000"),
        ({"partner": "search:blend=" + "1" * 5000}, "blend", "5,000 characters"),
        ({"rules": {"target_score": "9" * 5000}}, "target_score", "a whole number from 1 to 1000"),
        ({"rules": {"kitty_size": 99999999999}}, "kitty_size", "0 to 3"),
    ],
)
def test_a_refusal_names_the_field_and_quotes_a_short_prefix_of_the_value(body, field, words):
    answer = client_of().post("/api/tables", json=body)
    message = answer.json()["error"]
    assert answer.status_code == 400 and field in message and words in message, message
    assert len(message) < 400 and "a int" not in message and message.count("agent spec") <= 1, message


def test_a_number_of_thousands_of_digits_is_refused_in_a_clients_words():
    answer = client_of().post(
        "/api/tables", content=b'{"seed": ' + b"9" * 5000 + b"}", headers={"content-type": "application/json"}
    )
    message = answer.json()["error"]
    assert answer.status_code == 400 and "a number of more than 4,300 digits" in message
    assert "set_int_max_str_digits" not in message


def test_a_bad_action_is_400_and_a_huge_one_does_not_fail_the_server():
    client = client_of()
    state = client.post("/api/tables", json={"seed": 2}).json()
    for raw in (b'{"action": ' + b"7" * 5000 + b"}", b'{"action": "JH"}', b'{"action": 72}', b'{"action": 1e300}'):
        response = client.post(f"/api/tables/{state['table']}/action", content=raw, headers={"content-type": "application/json"})
        assert response.status_code == 400 and response.json()["error"], response.text
    assert client.get(f"/api/tables/{state['table']}").json() == state


# ---------------------------------------------------------------------- 8. a match and its own records only


def test_a_match_summary_with_records_of_another_match_is_refused(tmp_path):
    from serving import write_match

    from smear_env import write_records

    for name in ("other", "same_size"):
        (tmp_path / name).mkdir()
    write_match(tmp_path, games=2, seed=1)
    write_records(write_match(tmp_path / "other", games=4, seed=2).records(), tmp_path / "other.jsonl")
    write_records(write_match(tmp_path / "same_size", games=2, seed=9).records(), tmp_path / "same_size.jsonl")
    client = client_of(Settings(records=tmp_path))
    assert client.get("/api/match", params={"json": "m.json", "records": "m.jsonl"}).status_code == 200
    for records in ("other.jsonl", "same_size.jsonl"):
        response = client.get("/api/match", params={"json": "m.json", "records": records})
        assert response.status_code == 422 and "is not the records of the match" in response.json()["error"], response.text


# ---------------------------------------------------------------------- 9. agents that fail, numbers out of range

FAILING = """
from agents import Agent
class Fails(Agent):
    calls = 0
    def act(self, observation, action_mask, view):
        Fails.calls += 1
        if Fails.calls > {after}:
            raise RuntimeError("the agent broke")
        return int(action_mask.nonzero()[0][0])
"""


def _failing_client(tmp_path, monkeypatch, after: int) -> tuple[TestClient, Tables, str]:
    module = f"failing_agent_smear_test_{after}"
    (tmp_path / f"{module}.py").write_text(FAILING.format(after=after))
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = f"{module}:Fails"
    tables = Tables()
    return client_of(Settings(agents=(spec,)), tables), tables, spec


def test_an_agent_that_fails_between_turns_stops_the_table_and_nobody_moves_for_another_seat(tmp_path, monkeypatch):
    """The person plays; the next agent raises while the others play on: the table stops where the game stood,
    shows the person why and what to do, refuses every move after (naming no other seat's cards), and can be
    abandoned. Before the fix the game stayed at an agent's turn and a move for that seat was taken as the
    person's."""
    client, tables, spec = _failing_client(tmp_path, monkeypatch, after=3)
    start = client.post("/api/tables", json={"seat": 0, "partner": "random", "opponents": spec, "seed": 5})
    assert start.status_code == 201, start.text
    table = start.json()["table"]
    stopped = None
    for _ in range(40):  # the person plays its first legal move until the failing seat's turn comes
        state = client.get(f"/api/tables/{table}").json()
        legal = [a["id"] for a in state["view"]["legal_actions"]]
        assert legal, state
        answer = client.post(f"/api/tables/{table}/action", json={"action": legal[0]})
        if answer.status_code != 200:
            stopped = answer
            break
    assert stopped is not None and stopped.status_code == 410  # Gone: the table has stopped for good
    assert "failed at its turn" in stopped.json()["error"] and "abandon it" in stopped.json()["error"]
    state = client.get(f"/api/tables/{table}").json()
    assert re.search(r"the agent playing for your (left|right)-hand opponent failed", state["failed"]), state["failed"]
    assert "the agent broke" not in json.dumps(state) and "RuntimeError" not in json.dumps(state)  # its text is the log's
    assert state["view"]["legal_actions"] == []  # nobody's moves offered
    assert state["view"]["to_act"] != 0  # the game stands at the failed agent's turn
    game = tables.get(table).game
    before = (len(game.records), game.to_act, list(game.trick), game.phase)
    for action in range(72):  # no action id moves for the seat to act, and no answer names its cards
        refused = client.post(f"/api/tables/{table}/action", json={"action": action})
        assert refused.status_code == 410 and "legal" not in refused.json()["error"], refused.text
        assert "failed at its turn" in refused.json()["error"]  # every answer says why, in one line
    assert client.post(f"/api/tables/{table}/continue").status_code == 410
    assert (len(game.records), game.to_act, list(game.trick), game.phase) == before  # nothing moved
    kept = client.get(f"/api/tables/{table}/records")  # the hands it finished stay downloadable
    assert kept.status_code == 200 and len(kept.text.splitlines()) == len(game.records)
    assert client.delete(f"/api/tables/{table}").status_code == 204
    assert len(tables) == 0


@pytest.mark.parametrize("spec", ["rlcard:/etc/passwd", "rlcard:runs/rlcard_dqn/checkpoint_dqn.pt", "rlcard"])
def test_an_agent_that_reads_an_unvetted_file_is_refused_before_anything_is_read(spec, monkeypatch):
    """``rlcard:PATH`` unpickles a checkpoint of any kind: no request may name one (its owner may allow the spec);
    the server reads nothing, and the agent is not offered."""
    import torch

    def read(*args, **kwargs):
        raise AssertionError("a request made the server read a file")

    monkeypatch.setattr(torch, "load", read)
    client = client_of()
    answer = client.post("/api/tables", json={"seat": 0, "partner": spec, "seed": 1})
    assert answer.status_code == 400 and "a request cannot name" in answer.json()["error"], answer.text
    assert "rlcard" not in [a["id"] for a in client.get("/api/agents").json()["agents"]]


def test_an_illegal_move_is_refused_naming_the_legal_ones_as_a_person_reads_them():
    """The table's errors name cards as their faces show them (#64), never by the records' codes."""
    tables = Tables()
    client = client_of(tables=tables)
    state = client.post("/api/tables", json={"seat": 0, "seed": 11}).json()
    game = tables.get(state["table"]).game
    illegal = next(a for a in range(52, 72) if a not in game.legal_actions())  # a card, not playable now
    refused = client.post(f"/api/tables/{state['table']}/action", json={"action": illegal})
    assert refused.status_code == 409 and "is not legal now; legal:" in refused.json()["error"]
    assert not CARD_CODE.search(refused.json()["error"]), refused.json()["error"]
    from smear_env.render import action_words

    words = [action_words(a) for a in (0, 2, 6, 20, 43, 52)]
    assert words == ["pass", "bid 3", "trump hearts", "discard J\u2666", "10\u2663", "J\u2666"], words


def test_a_move_out_of_turn_is_refused_without_naming_another_seats_cards():
    tables = Tables()
    client = client_of(tables=tables)
    state = client.post("/api/tables", json={"seat": 0, "seed": 11}).json()
    game = tables.get(state["table"]).game
    game.to_act = (game.to_act + 1) % 4  # a table whose game waits on another seat (as a failed agent leaves it)
    hidden = game.legal_actions()
    for action in hidden:
        refused = client.post(f"/api/tables/{state['table']}/action", json={"action": action})
        assert refused.status_code == 409 and "not your turn" in refused.json()["error"]
        assert not CARD_CODE.search(refused.json()["error"])


CARD_CODE = re.compile(r"(?<![A-Za-z0-9])[789TJQKA][CDHS](?![A-Za-z0-9])")


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("search:blend=1e308", "blend needs a number from 0 to 100, got '1e308'"),
        ("search:blend=nan", "blend needs a number from 0 to 100, got 'nan'"),
        ("search:infer=nan", "infer needs a number from 0 to 100"),
        ("search:infer=1e300,rollouts=2", "infer needs a number from 0 to 100"),
        ("search:net_tricks=1000000", "net_tricks needs a whole number from 0 to 6"),
        ("search:mix=-1", "mix needs a number from 0 to 1"),
        ("pimc:seconds=nan", "seconds needs a number above 0 and at most 3,600"),
        ("pimc:seconds=inf", "seconds needs a number above 0 and at most 3,600"),
        ("pimc:seconds=0", "seconds needs a number above 0 and at most 3,600"),
        ("ismcts:simulations=nan", "simulations needs a whole number from 1 to 100,000"),
        ("ismcts:uct_c=-inf", "uct_c needs a number above 0 and at most 100"),
        ("neural:suits=25", "suits needs a whole number from 1 to 24"),
        ("neural:device=cuda", "device= is this server's choice"),
    ],
)
def test_every_number_from_a_request_is_finite_and_in_its_range(spec, words):
    tables = Tables()
    client = client_of(tables=tables)
    response = client.post("/api/tables", json={"opponents": spec})
    assert response.status_code == 400 and words in response.json()["error"], response.text
    assert "torch" not in response.json()["error"]  # nothing of the server's build
    assert len(tables) == 0
    explained = client.post("/api/explain", json={"record": _record(), "agent": spec})
    assert explained.status_code == 400 and words in explained.json()["error"], explained.text


# ---------------------------------------------------------------------- 10. no 500 without its headers, no 500 at all


def test_a_very_long_file_name_is_a_400_not_a_server_error(tmp_path):
    client = client_of(Settings(records=tmp_path))
    for name, status in (("a" * 20_000, 400), ("a" * 300, 400), ("b/" * 200 + "c" * 300, 404)):
        response = client.get("/api/records/file", params={"name": name})
        assert response.status_code == status, (len(name), response.status_code, response.text)
        assert response.headers["x-content-type-options"] == "nosniff"


def test_match_records_that_seat_other_agents_are_refused(tmp_path):
    from serving import write_match

    write_match(tmp_path, games=2, seed=3)
    lines = (tmp_path / "m.jsonl").read_text().splitlines()
    renamed = [json.dumps({**json.loads(line), "agents": ["X", "Y", "X", "Y"]}) for line in lines]
    (tmp_path / "other.jsonl").write_text("\n".join(renamed) + "\n")
    response = client_of(Settings(records=tmp_path)).get("/api/match", params={"json": "m.json", "records": "other.jsonl"})
    assert response.status_code == 422 and "agents A and B" in response.json()["error"]


def test_an_agent_that_raises_with_its_cards_in_the_message_shows_the_person_none_of_it(tmp_path, monkeypatch, caplog):
    """An owner-allowed agent raises at its first turn with its hand in the message: the person reads which seat's
    agent failed, in a player's words; the message stays in the server's log."""
    (tmp_path / "leaky_agent_smear_test.py").write_text(
        "from agents import Agent\n"
        "class Leaks(Agent):\n    def act(self, observation, action_mask, view):\n"
        "        raise ValueError('holding ' + ' '.join(view.hand))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    client = client_of(Settings(agents=("leaky_agent_smear_test:Leaks",)))
    answer = client.post(
        "/api/tables", json={"seat": 0, "partner": "random", "opponents": "leaky_agent_smear_test:Leaks", "seed": 4}
    )
    refusal = answer.json()["error"]
    assert answer.status_code == 400 and "could not start" in refusal, answer.text
    assert re.search(r"the agent playing for your (left|right)-hand opponent failed at its turn", refusal), refusal
    assert "holding" not in refusal and "ValueError" not in refusal and "seat" not in refusal
    assert any(r.exc_info and "holding" in str(r.exc_info[1]) for r in caplog.records)  # the owner's log keeps it


def test_the_servers_own_400_carries_the_security_headers():
    """A request uvicorn cannot parse (a 200 kB request line) is answered before any app: the answer carries
    the headers of every other."""
    import socket
    from urllib.parse import urlsplit

    from serving import serving

    with serving(create_app()) as url:
        address = urlsplit(url)
        with socket.create_connection((address.hostname, address.port), timeout=10) as s:
            answer = b""
            try:  # the server answers and closes once the line passes its limit: it may reset the rest of the send
                s.sendall(b"GET /" + b"a" * 200_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                while chunk := s.recv(65536):
                    answer += chunk
            except (BrokenPipeError, ConnectionResetError):
                pass
    head = answer.split(b"\r\n\r\n")[0].decode("latin-1").lower()
    assert head.startswith("http/1.1 400"), head
    assert "x-frame-options: deny" in head and "frame-ancestors 'none'" in head and "x-content-type-options: nosniff" in head


def test_a_server_error_carries_the_security_headers(monkeypatch):
    import smear_apps.web.app as app_module

    def broken(self, request):
        raise RuntimeError("a fault of the server's own")

    monkeypatch.setattr(app_module.TableRoutes, "agents_list", broken)
    response = client_of().get("/api/agents")
    assert response.status_code == 500 and "the server failed" in response.json()["error"]
    assert "a fault" not in response.text  # the cause stays in the server's log
    assert response.headers["x-frame-options"] == "DENY" and "frame-ancestors" in response.headers["content-security-policy"]


def test_full_answers_say_when_to_try_again():
    tables = Tables(limit=1, per_client=1)
    client = client_of(tables=tables)
    assert client.post("/api/tables", json={}).status_code == 201
    full = client.post("/api/tables", json={})
    assert full.status_code == 429 and int(full.headers["retry-after"]) > 0


# ---------------------------------------------------------------------- 11. uploads: memory a small multiple of the size


def test_an_upload_of_empty_objects_is_refused_at_its_first_line_without_building_it(tmp_path):
    """31 MiB of ``{}`` lines: refused at line 1 (not a record), the file never parsed into objects."""
    import tracemalloc

    from smear_apps.web.replay import FolderError, checked_answer

    body = b"{}\n" * (31 * 2**20 // 3)
    response = client_of().post("/api/records/upload", content=body)
    assert response.status_code == 422 and "line 1" in response.json()["error"]
    tracemalloc.start()  # the check itself, as its process runs it
    with pytest.raises(FolderError, match="line 1"):
        checked_answer(body, "upload.jsonl")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 * len(body), f"peak {peak / 2**20:.0f} MiB for a {len(body) / 2**20:.0f} MiB upload"


def test_a_real_records_file_costs_a_small_multiple_of_its_size(tmp_path):
    """A valid file of many records: the answer is built from the lines as sent, not from a parsed copy."""
    import tracemalloc

    from smear_apps.web.replay import checked_answer
    from smear_env import Rules
    from smear_env.records import play_random_games

    records = play_random_games(Rules(), 60, seed=2)
    body = "".join(json.dumps(r) + "\n" for r in records).encode()
    response = client_of().post("/api/records/upload", content=body)
    assert response.status_code == 200 and len(response.json()["records"]) == len(records)
    assert response.json()["records"] == records
    tracemalloc.start()  # the check itself, as its process runs it
    answer = checked_answer(body, "upload.jsonl")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert json.loads(answer)["records"] == records
    assert peak < 12 * len(body), f"peak {peak / 2**20:.1f} MiB for a {len(body) / 2**20:.1f} MiB file"


def test_uploads_at_once_past_the_share_are_told_to_wait_and_are_checked_apart_from_the_tables(tmp_path, monkeypatch):
    """A client has one records file checked at a time (the server two): the next is 429 with Retry-After,
    refused before its body is read; the one under way is checked in a process apart from the server's, and
    a table plays on meanwhile."""
    import functools

    from serving import gated_check, serving

    import smear_apps.web.app as app_module

    monkeypatch.setattr(app_module, "checked_answer", functools.partial(gated_check, str(tmp_path)))
    from smear_env.records import play_random_games

    body = "".join(json.dumps(r) + "\n" for r in play_random_games(Rules(), 1, seed=4)).encode()
    with serving(create_app(Settings())) as url, httpx.Client(base_url=url, timeout=60) as client:
        first: list[httpx.Response] = []
        worker = threading.Thread(target=lambda: first.append(client.post("/api/records/upload", content=body)))
        worker.start()
        deadline = time.monotonic() + 60  # the checking process starts first
        while not (tmp_path / "entered").exists():
            assert time.monotonic() < deadline, "the check never started"
            time.sleep(0.02)
        second = client.post("/api/records/upload", content=body)
        assert second.status_code == 429 and int(second.headers["retry-after"]) > 0
        assert "records files under way" in second.json()["error"]
        table = client.post("/api/tables", json={"seed": 3}).json()  # a table plays on while the file is checked
        legal = table["view"]["legal_actions"][0]["id"]
        assert client.post(f"/api/tables/{table['table']}/action", json={"action": legal}).status_code == 200
        (tmp_path / "release").write_text("")
        worker.join(60)
        assert first and first[0].status_code == 200
    # The check ran in a process of its own, not in a thread of the server's (which holds the tables' loop): a move's
    # latency at another table does not depend on the uploads (benchmarks/web_limits.py measures it: docs/web.md).
    assert int((tmp_path / "entered").read_text()) != os.getpid()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the processes' children from /proc (Linux)")
def test_no_checking_process_outlives_a_killed_server():
    """smear-web killed (SIGKILL: it cannot stop its processes) after a records file was checked: the checking
    process it started ends by itself within seconds."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_web", Path(__file__).parent.parent / "benchmarks" / "bench_web.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from smear_env.records import play_random_games

    body = "".join(json.dumps(r) + "\n" for r in play_random_games(Rules(), 1, seed=4)).encode()
    server, url = bench.start_server(None)
    try:
        assert httpx.post(f"{url}/api/records/upload", content=body, timeout=60).status_code == 200
        started = [int(c) for task in Path(f"/proc/{server.pid}/task").iterdir() for c in (task / "children").read_text().split()]
        assert started, "no checking process"
    finally:
        server.kill()  # by its handle
        server.wait(10)
    deadline = time.monotonic() + 15
    while any(Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid) for pid in started):
        assert time.monotonic() < deadline, f"processes {started} outlived the server"
        time.sleep(0.2)


def _state(pid: int) -> str:
    try:
        return next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("State:")).lower()
    except (OSError, StopIteration):
        return "zombie"


def test_explanations_have_their_own_share_and_never_hold_up_a_table(tmp_path, monkeypatch):
    """Explanations past a client's share are 429 at once; while the allowed ones think (held on a gate), a
    move at a table answers at once: they run in threads of their own."""
    import smear_apps.web.app as app_module

    entered, release = threading.Event(), threading.Event()

    def held(record, agent):
        entered.set()
        assert release.wait(60)
        return []

    monkeypatch.setattr(app_module, "explain", held)
    from serving import serving

    settings = Settings(workers=1, slow_workers=1, explains_per_client=1)
    with serving(create_app(settings)) as url, httpx.Client(base_url=url, timeout=30) as client:
        table = client.post("/api/tables", json={"seed": 3}).json()
        answers: list[httpx.Response] = []
        asker = threading.Thread(
            target=lambda: answers.append(client.post("/api/explain", json={"record": _record(), "agent": "neural"}))
        )
        asker.start()
        assert entered.wait(30)
        with httpx.Client(base_url=url, timeout=5) as quick:
            again = quick.post("/api/explain", json={"record": _record(), "agent": "neural"})
            assert again.status_code == 429 and int(again.headers["retry-after"]) > 0
            legal = table["view"]["legal_actions"][0]["id"]
            moved = quick.post(f"/api/tables/{table['table']}/action", json={"action": legal})  # times out if held up
            assert moved.status_code == 200
        release.set()
        asker.join(30)
        assert answers and answers[0].status_code == 200
