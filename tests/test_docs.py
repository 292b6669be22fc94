"""The documentation is generated from the code, or checked against it."""

from pathlib import Path

import smear_env

README = (Path(__file__).parent.parent / "README.md").read_text()


def test_readme_observation_table_matches_the_code():
    assert smear_env.layout_table() in README


def test_readme_dimensions_match_the_code():
    assert f"float32[{smear_env.OBS_DIM}]" in README
    assert f"float32[{smear_env.STATE_DIM}]" in README
    assert f"int8[{smear_env.NUM_ACTIONS}]" in README


def test_env_docstring_carries_the_layout():
    import sys

    doc = sys.modules["smear_env.env"].__doc__
    assert smear_env.layout_table().splitlines()[1] in doc
    assert f"({smear_env.OBS_DIM},)" in doc


def test_action_table_names_round_trip():
    for action in range(smear_env.NUM_ACTIONS):
        assert smear_env.parse_action(smear_env.action_name(action)) == action
    assert len(smear_env.action_table().splitlines()) == smear_env.NUM_ACTIONS


def test_readme_python_examples_run(tmp_path, monkeypatch):
    import re

    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
