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


ROOT = Path(__file__).parent.parent
RULE_ID = r"\bR1[0-6](?:v-[ab]|[a-d]|v)?\b|\bR[1-9](?:v|[a-d])?\b"


def test_every_rule_id_named_in_the_code_is_in_docs_rules():
    import re

    rules_doc = (ROOT / "docs" / "rules.md").read_text()
    named: dict[str, str] = {}
    for folder in ("smear_env", "nets", "agents", "train"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for rule in re.findall(RULE_ID, path.read_text()):
                named.setdefault(rule, str(path.relative_to(ROOT)))
    assert {"R1", "R7v", "R13d", "R15v-a", "R15v-b", "R16"} <= set(named)
    missing = {rule: where for rule, where in named.items() if not re.search(rf"\*\*{re.escape(rule)}\b", rules_doc)}
    assert not missing, f"rule ids named in the code but not defined in docs/rules.md: {missing}"


def test_relative_links_in_the_readme_and_docs_resolve():
    import re

    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    checked = 0
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+://", target) or target.startswith(("#", "mailto:")):
                continue
            path = (page.parent / target.split("#")[0]).resolve()
            assert path.exists(), f"{page.relative_to(ROOT)} links to {target}, which does not exist"
            checked += 1
    assert checked >= 5
    assert "../shared" not in (ROOT / "README.md").read_text()
